"""TypeScript resolution measured against TypeScript's own checker, on real projects.

    python bench/resolution_ts.py --source hono=/path/to/hono.git [--source NAME=GIT_DIR ...] [--sample 10]

Each source is cloned at its default branch's tip and two call graphs are built over the same
``.ts``/``.tsx`` files: the checker's (``tests/fixtures/tsc_edges.mjs``: the compiler API
asked for the declaration of every call's, ``new``'s and JSX tag's callee, and of every
``extends``/``implements``, named the way branchgraph names symbols) and branchgraph's (the
resolver in process, no stores). The checker reads the project through a tsconfig written
for the run: the repository's own compiler options (its ``tsconfig.json``, else
``tsconfig.base.json``), every TypeScript file included, nothing emitted; dependencies are
not installed, so what they declare is outside both graphs. Scored by distinct (source, type,
target) edges between the project's own symbols: precision (branchgraph's edges the checker
also sees) and recall (the checker's edges branchgraph finds), with the unresolved rate beside
them and a sample of each kind of disagreement. Needs Node.js and the ``typescript`` npm
package (installed into a cache directory from the npm registry when --typescript is not
given); figures are printed, never asserted.
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
sys.path.insert(0, str(HERE.parent / "tests" / "fixtures"))

from confirm_with_tsc import typescript_package  # noqa: E402
from edge_scores import checkable_edges, cloned, print_scores, unresolved_rate  # noqa: E402
from graph_view import resolve_sources  # noqa: E402

from branchgraph.core.languages import is_project_file  # noqa: E402

TYPES = ("CALLS", "INHERITS_FROM", "IMPLEMENTS")
COUNTED = ("CALLS", "IMPORTS", "INHERITS_FROM", "IMPLEMENTS", "PARAM_TYPE", "RETURNS_TYPE")
EXTENSIONS = (".ts", ".tsx", ".mts", ".cts")


def project_files(root: Path) -> list[str]:
    listed = subprocess.check_output(["git", "ls-files"], cwd=root, text=True).split("\n")
    return [p for p in listed if p.endswith(EXTENSIONS) and not p.endswith(".d.ts")]


def checker_edges(root: Path, typescript: Path) -> set[tuple[str, str, str]]:
    """The checker's edges, over a tsconfig.json (written in place of the repository's) that
    includes every TypeScript file under the repository's own compiler options."""
    if (root / "tsconfig.json").exists():
        (root / "tsconfig.json").rename(root / "tsconfig.original.json")
    own = next((n for n in ("tsconfig.original.json", "tsconfig.base.json") if _has_options(root / n)), None)
    config = {
        **({"extends": f"./{own}"} if own else {}),
        "compilerOptions": {"noEmit": True, "composite": False, "incremental": False, "skipLibCheck": True},
        "include": ["**/*.ts", "**/*.tsx", "**/*.mts", "**/*.cts"],
        "exclude": ["**/node_modules", "**/*.d.ts"],
    }
    (root / "tsconfig.json").write_text(json.dumps(config))
    out = subprocess.run(
        ["node", str(HERE.parent / "tests/fixtures/tsc_edges.mjs"), str(typescript), str(root)],
        check=True,
        capture_output=True,
        text=True,
    )
    return {tuple(e) for e in json.loads(out.stdout)["edges"] if e[1] in TYPES}


def _has_options(path: Path) -> bool:
    """Whether a tsconfig sets compiler options (read as text: tsconfig allows comments)."""
    try:
        return '"compilerOptions"' in path.read_text()
    except OSError:
        return False


def branchgraph_edges(root: Path, files: list[str]) -> tuple[set[tuple[str, str, str]], float]:
    sources = {f: (root / f).read_bytes() for f in files}
    listed = subprocess.check_output(["git", "ls-files"], cwd=root, text=True).split("\n")
    sources |= {p: (root / p).read_bytes() for p in listed if p and is_project_file(p.rsplit("/", 1)[-1])}
    graph = resolve_sources(sources, root.name)
    edges = {(a.props["qualname"], e.type, b.props["qualname"]) for a, e, b in checkable_edges(graph, TYPES)}
    return edges, unresolved_rate(graph, COUNTED)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", action="append", default=[], help="NAME=GIT_DIR (repeatable)")
    parser.add_argument("--sample", type=int, default=10, help="disagreements shown per kind")
    parser.add_argument("--typescript", type=Path, help="an installed typescript package directory")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "branchgraph-tsc")
    args = parser.parse_args()
    typescript = args.typescript or typescript_package(args.cache)
    scratch = Path(tempfile.mkdtemp(prefix="branchgraph-resolution-ts-"))
    for name, root, commit in cloned(args.source, scratch):
        files = project_files(root)
        found, rate = branchgraph_edges(root, files)
        truth = checker_edges(root, typescript)
        print(f"{name} @ {commit}: {len(files)} TypeScript files, unresolved rate {rate:.1%}")
        print_scores(truth, found, TYPES, "the checker", args.sample)


if __name__ == "__main__":
    main()
