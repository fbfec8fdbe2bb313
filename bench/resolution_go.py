"""Go resolution measured against Go's own type checker, on real modules.

    python bench/resolution_go.py --source gin=/path/to/gin.git [--source NAME=GIT_DIR ...] [--sample 10]

Each source is cloned at its default branch's tip, its dependencies downloaded (``go mod
download``: the Go module proxy), and two call graphs built over the same files: go/types'
(``tests/fixtures/goedges``: calls and composite literals inside function and method
bodies, struct embedding, interface satisfaction between the module's own types) and
branchgraph's (the resolver in process, no stores). Scored by distinct (source, type,
target) edges of the module's own symbols: precision (branchgraph's edges the checker also
sees) and recall (the checker's edges branchgraph finds), with the unresolved rate beside
them and a sample of each kind of disagreement to read. Needs the Go toolchain; figures are
printed, never asserted.
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

from branchgraph.core.languages import is_project_file, language_for_path  # noqa: E402
from branchgraph.core.languages.go import module_name  # noqa: E402

TYPES = ("CALLS", "INHERITS_FROM", "IMPLEMENTS")
CODE_LABELS = ("Function", "Method")
COUNTED = ("CALLS", "IMPORTS", "INHERITS_FROM", "PARAM_TYPE", "RETURNS_TYPE")


def checker_edges(root: Path, binary: Path) -> set[tuple[str, str, str]]:
    subprocess.run(["go", "mod", "download"], cwd=root, check=True)
    return {tuple(e) for e in json.loads(subprocess.check_output([str(binary), "."], cwd=root))}


def checker_name(node) -> str:
    """A node's qualname as the checker writes it: a type declared inside a function by its
    package and bare name (`binder.target`, not `binder.TestBind.target`)."""
    qualname = node.props["qualname"]
    if node.label not in ("Class", "Interface"):
        return qualname
    package = module_name(node.path)
    local = qualname[len(package) + 1 :] if package else qualname
    return f"{package}.{local.rsplit('.', 1)[-1]}" if package else local.rsplit(".", 1)[-1]


def branchgraph_edges(root: Path) -> tuple[set[tuple[str, str, str]], float, int]:
    sources = {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.parts and (language_for_path(str(p)) or is_project_file(p.name))
    }
    sources = {path: data for path, data in sources.items() if path.endswith(".go") or path.endswith("go.mod")}
    graph = resolve_sources(sources, root.name)
    # The checker reads calls inside function and method bodies only.
    edges = {
        (source.props["qualname"], e.type, checker_name(target))
        for source, e, target in checkable_edges(graph, TYPES)
        if e.type != "CALLS" or source.label in CODE_LABELS
    }
    return edges, unresolved_rate(graph, COUNTED), len([p for p in sources if p.endswith(".go")])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", action="append", default=[], help="NAME=GIT_DIR (repeatable)")
    parser.add_argument("--sample", type=int, default=10, help="disagreements shown per kind")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="branchgraph-resolution-go-"))
    binary = scratch / "goedges"
    subprocess.run(["go", "build", "-o", str(binary), "."], cwd=HERE.parent / "tests/fixtures/goedges", check=True)
    for name, root, commit in cloned(args.source, scratch):
        truth = checker_edges(root, binary)
        found, rate, files = branchgraph_edges(root)
        print(f"{name} @ {commit}: {files} Go files, unresolved rate {rate:.1%}")
        print_scores(truth, found, TYPES, "the checker", args.sample)


if __name__ == "__main__":
    main()
