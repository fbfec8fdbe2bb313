"""Write a commit-derived golden set for CI: real tasks whose code CI can fetch from PyPI.

Cases are mined (``task_mining.py``) from the commits made after a release, in the project's
git history; each keeps the gold functions that exist, under the same qualified name, in the
release's sdist, so the CI test indexes the sdist (no git history needed) and asks each
commit message. The set is written to tests/golden/<name>.json in the format of the
hand-written sets.

    python bench/make_commit_golden.py --repo /path/to/flask.git --package flask --version 3.0.0 \\
        --range 3.0.0..3.1.0 --name flask-commits
"""

from __future__ import annotations

import argparse
import json
import tarfile
import tempfile
from pathlib import Path

from corpus import fetch_sdist
from task_mining import mine_cases

from branchgraph.core.extract import extract
from branchgraph.ingest.python_modules import module_name

GOLDEN_DIR = Path(__file__).parent.parent / "tests" / "golden"


def sdist_qualnames(package: str, version: str) -> set[str]:
    """Every function, method and class qualname of the sdist, as branchgraph names them."""
    names: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(fetch_sdist(package, version)) as tar:
        tar.extractall(tmp, filter="data")
        (top,) = [p for p in Path(tmp).iterdir() if p.is_dir()]
        for path in top.rglob("*.py"):
            rel = path.relative_to(top).as_posix()
            defs = extract("python", path.read_bytes()).definitions
            for d in defs:
                parts, parent = [d.name], d.parent
                while parent is not None:
                    parts.append(defs[parent].name)
                    parent = defs[parent].parent
                names.add(f"{module_name(rel)}.{'.'.join(reversed(parts))}")
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--package", required=True)
    parser.add_argument("--version", required=True, help="the release whose sdist CI indexes")
    parser.add_argument("--range", required=True, help="the commits to mine, e.g. 3.0.0..3.1.0")
    parser.add_argument("--name", required=True)
    args = parser.parse_args()
    known = sdist_qualnames(args.package, args.version)
    questions = []
    for case in mine_cases(args.repo, args.package, limit=1000, revisions=args.range):
        if not case.held_out:
            continue  # the tuning half of bench/real_tasks.py may hold it: CI keeps to the held-out half
        symbols = sorted({f"{module_name(g.path)}.{g.name}" for g in case.gold} & known)
        if symbols:
            questions.append({"q": case.query, "symbols": symbols, "commit": case.commit})
    document = {
        "package": args.package,
        "version": args.version,
        "about": (
            f"Real tasks: the commit messages of {args.package}'s non-merge commits in {args.range} that change "
            "1-4 source files (housekeeping left out), each with the functions and methods it changed that exist "
            f"under the same name in the {args.version} sdist; only commits of the held-out half (odd commit id, "
            "bench/task_mining.py), so nothing here was tuned on. Written by bench/make_commit_golden.py."
        ),
        "questions": questions,
    }
    out = GOLDEN_DIR / f"{args.name}.json"
    out.write_text(json.dumps(document, indent=1) + "\n")
    print(f"{out}: {len(questions)} questions")


if __name__ == "__main__":
    main()
