"""Incremental-ingest benchmark on a real history: successive django releases from PyPI, one
commit each, then a one-file commit and a branch with 40 changed files.

For each step it prints the changed files, seconds, files parsed, nodes/edges written,
embeddings computed against symbols whose content is new, and the ratio to a full ingest of
the same commit measured in the same run (a fresh branch, parse cache bypassed; embeddings are
content-addressed, so the full ingest reuses them). The steps run back to back, as a branch's
history comes, and the full ingests after them all: a whole branch written and dropped just
before a step slows the step (a one-file commit's graph write: 1.6 s right after, 0.5 s after
a 40 s pause). Figures are printed, never asserted.

    BRANCHGRAPH_NEO4J_URI=bolt://127.0.0.1:7687 python bench/incremental.py
"""

from __future__ import annotations

import argparse
import json
import uuid
from pathlib import Path

from corpus import commit_sdist, drop_repo, fetch_sdist, git, scratch

from branchgraph import api
from branchgraph.core.config import Config
from branchgraph.stores import open_graph_store, open_pg_store

SYMBOLS = (
    "MATCH (n {repo: $repo, branch: $branch}) WHERE n:Class OR n:Function OR n:Method "
    "RETURN n.path AS p, n.qualname AS q, n.content_hash AS h"
)


def symbol_set(root: Path, config: Config, repo: str, branch: str) -> set[tuple[str, str, str]]:
    with open_graph_store(config, root) as graph:
        return {
            (r["p"], r["q"], r["h"])
            for r in graph.read_query(SYMBOLS, {"repo": repo, "branch": branch}, limit=10_000_000)
        }


def full_ingest_seconds(root: Path, config: Config, commit: str) -> float:
    """A from-scratch ingest of ``commit`` under a throwaway branch name, then dropped."""
    name = f"bench-full-{uuid.uuid4().hex[:6]}"
    summary = api.ingest(root, branch=name, rev=commit, full=True, config=config)
    # From both stores: a branch PostgreSQL remembers could be chosen as a later branch's base.
    with open_graph_store(config, root) as graph, open_pg_store(config, root) as pg:
        api.drop_branch_with(graph, pg, summary.repo, name)
    return summary.seconds["total"]


def step(label: str, root: Path, config: Config, branch: str, commit: str, seen: set) -> dict:
    """An update of ``branch`` to ``commit``, its figures without the full ingest's (``with_full``)."""
    summary = api.ingest(root, branch=branch, config=config)
    new_symbols = symbol_set(root, config, summary.repo, branch) - seen
    seen |= new_symbols
    return {
        "step": label,
        "commit": commit,
        "strategy": summary.strategy,
        "changed_files": summary.changes,
        "seconds": summary.seconds["total"],
        "seconds_by_stage": summary.seconds,
        "files_parsed": summary.work.get("files_parsed", 0),
        "files_resolved": summary.work.get("files_resolved", 0),
        "files_written": summary.work.get("files_written", 0),
        "files_re_resolved": summary.work.get("files_re_resolved", 0),
        "nodes_written": summary.work.get("nodes_written", 0),
        "edges_written": summary.work.get("edges_written", 0),
        "embeddings_computed": summary.embeddings["computed"],
        "symbols_with_new_content": len(new_symbols),
    }


def with_full(root: Path, config: Config, row: dict) -> dict:
    """``row`` with the seconds of a full ingest of its commit and the ratio to them."""
    full = full_ingest_seconds(root, config, row["commit"])
    row = {**row, "full_ingest_seconds": full, "ratio_to_full": round(row["seconds"] / full, 3)}
    print(json.dumps(row))
    return row


def edit_files(root: Path, count: int, note: str) -> list[str]:
    """Append a small function to ``count`` Python files of the package."""
    targets = sorted(p for p in (root / "django").rglob("*.py") if p.stat().st_size > 2000)[::7][:count]
    for path in targets:
        with path.open("a") as f:
            f.write(f"\n\ndef bench_{note}_{path.stem}(value):\n    return value\n")
    return [str(p.relative_to(root)) for p in targets]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--package", default="Django")
    parser.add_argument("--versions", default="5.1.2,5.1.3,5.1.4", help="comma-separated releases, oldest first")
    parser.add_argument("--embedder", default="hashing")
    args = parser.parse_args()
    versions = args.versions.split(",")
    sdists = [fetch_sdist(args.package, v) for v in versions]

    with scratch("branchgraph-bench-incremental-", embedder=args.embedder) as (config, tmp):
        root = tmp / f"{args.package.lower()}-{uuid.uuid4().hex[:8]}"
        rows = []
        try:
            seen: set = set()
            commit = commit_sdist(sdists[0], root, versions[0])
            first = api.ingest(root, config=config)
            seen |= symbol_set(root, config, first.repo, "main")
            print(json.dumps({"step": f"initial {versions[0]}", "seconds": first.seconds, "files": first.files}))
            for version, sdist in zip(versions[1:], sdists[1:], strict=True):
                commit = commit_sdist(sdist, root, version)
                rows.append(step(f"release {version}", root, config, "main", commit, seen))

            edit_files(root, 1, "one")
            git(root, "commit", "-qam", "one-file commit")
            rows.append(step("one-file commit", root, config, "main", git(root, "rev-parse", "HEAD").strip(), seen))

            git(root, "checkout", "-qb", "feature/forty")
            edit_files(root, 40, "forty")
            git(root, "commit", "-qam", "forty files")
            rows.append(
                step(
                    "new branch, 40 files", root, config, "feature/forty", git(root, "rev-parse", "HEAD").strip(), seen
                )
            )
            rows = [with_full(root, config, row) for row in rows]
        finally:
            drop_repo(root, config)
    print()
    print(
        f"{'step':<24} {'strategy':<11} {'changed':>7} {'seconds':>8} {'parsed':>6} {'resolved':>8} {'written':>7} "
        f"{'re-res':>6} {'embeds':>6} {'new syms':>8} {'full s':>7} {'ratio':>6}"
    )
    for r in rows:
        changed = sum(r["changed_files"].values())
        print(
            f"{r['step']:<24} {r['strategy']:<11} {changed:>7} {r['seconds']:>8.2f} {r['files_parsed']:>6} "
            f"{r['files_resolved']:>8} {r['files_written']:>7} "
            f"{r['files_re_resolved']:>6} {r['embeddings_computed']:>6} {r['symbols_with_new_content']:>8} "
            f"{r['full_ingest_seconds']:>7.2f} {r['ratio_to_full']:>6.3f}"
        )


if __name__ == "__main__":
    main()
