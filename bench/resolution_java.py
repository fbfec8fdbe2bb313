"""Java resolution measured against javac's own attribution, on real projects.

    python bench/resolution_java.py --source jsoup=/path/to/jsoup.git [--source NAME=GIT_DIR ...] [--sample 10]

Each source is cloned at its default branch's tip, its dependencies copied with Maven
(``mvn dependency:copy-dependencies``, test scope included, from Maven Central) when it has a
``pom.xml``, and two call graphs are built over the same ``.java`` files: javac's
(``tests/fixtures/javaedges/JavaEdges.java``: every method invocation and ``new`` as javac
attributes it, superclasses and interfaces) and branchgraph's (the resolver in process, no
stores). Scored by distinct (source, type, target) edges between the project's own types and
methods: precision (branchgraph's edges javac also sees) and recall (javac's edges branchgraph
finds), with the unresolved rate beside them and a sample of each kind of disagreement. Code
in anonymous classes is left out on both sides (javac gives it no name). Needs a JDK and
Maven; figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from edge_scores import checkable_edges, cloned, print_scores, unresolved_rate  # noqa: E402
from graph_view import resolve_sources  # noqa: E402

TYPES = ("CALLS", "INHERITS_FROM", "IMPLEMENTS")
EDGE_TYPES = ("CALLS", "IMPORTS", "INHERITS_FROM", "IMPLEMENTS", "PARAM_TYPE", "RETURNS_TYPE")


def javac_edges(root: Path, files: list[str]) -> set[tuple[str, str, str]]:
    lib = root.parent / f"{root.name}-lib"
    if (root / "pom.xml").exists():
        subprocess.run(["mvn", "-q", "dependency:copy-dependencies", f"-DoutputDirectory={lib}"], cwd=root, check=True)
    classpath = ":".join(str(jar) for jar in sorted(lib.glob("*.jar")))
    listing = root.parent / f"{root.name}-files.txt"
    listing.write_text("\n".join(str(root / f) for f in files))
    output = subprocess.check_output(
        ["java", str(HERE.parent / "tests/fixtures/javaedges/JavaEdges.java"), classpath, f"@{listing}"],
        stderr=subprocess.DEVNULL,
    )
    return {tuple(e) for e in json.loads(output)}


def branchgraph_edges(root: Path, files: list[str]) -> tuple[set[tuple[str, str, str]], float]:
    graph = resolve_sources({f: (root / f).read_bytes() for f in files}, root.name)
    nodes = {n.id: n for s in graph for n in [*s.nodes, *s.unresolved]}
    in_methods = {
        n.id
        for s in graph
        for n in s.nodes
        if n.label in ("Class", "Interface", "Method") and _inside_a_method(n.props["qualname"], nodes, s)
    }
    edges = {
        (source.props["qualname"], e.type, target.props["qualname"])
        for source, e, target in checkable_edges(graph, TYPES)
        # An anonymous class of an interface: javac's `new` is of the anonymous class.
        if source.id not in in_methods and not (e.type == "CALLS" and target.label == "Interface")
    }
    return edges, unresolved_rate(graph, EDGE_TYPES)


def _inside_a_method(qualname: str, nodes: dict, subgraph) -> bool:
    """Whether a definition sits in a method body (an anonymous or local class's member)."""
    methods = {n.props["qualname"] for n in subgraph.nodes if n.label == "Method"}
    parts = qualname.split(".")
    return any(".".join(parts[:i]) in methods for i in range(1, len(parts)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", action="append", default=[], help="NAME=GIT_DIR (repeatable)")
    parser.add_argument("--sample", type=int, default=10, help="disagreements shown per kind")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="branchgraph-resolution-java-"))
    for name, root, commit in cloned(args.source, scratch):
        files = sorted(
            str(p.relative_to(root))
            for p in root.rglob("*.java")
            if ".git" not in p.parts and p.name not in ("module-info.java", "package-info.java")
        )
        truth = javac_edges(root, files)
        truth = {e for e in truth if e[0] and e[2]}  # anonymous classes have no name
        found, rate = branchgraph_edges(root, files)
        print(f"{name} @ {commit}: {len(files)} Java files, unresolved rate {rate:.1%}")
        print_scores(truth, found, TYPES, "javac", args.sample)


if __name__ == "__main__":
    main()
