"""Per-language ingest on real repositories: files, symbols, edges, unresolved rate and
files/s, each language's throughput beside Python's measured in the same run (the bound:
within 1.5x of Python's files/s), graph only (no embedder).

    BRANCHGRAPH_NEO4J_URI=bolt://127.0.0.1:7687 python bench/languages.py \\
        --source typescript=/path/to/hono.git [--source go=...] [--python Django==5.1.4]

A source is any git repository (a bare mirror too); its default branch's tip is indexed.
The Python baseline is a PyPI sdist committed to git (bench/corpus.py). Figures are printed,
never asserted: the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import uuid
from collections import Counter
from pathlib import Path

from corpus import commit_sdist, drop_repo, fetch_sdist, git, scratch

from branchgraph import api
from branchgraph.core.config import Config
from branchgraph.core.languages import language_for_path
from branchgraph.stores import open_graph_store

SYMBOL_LABELS = ("Class", "Interface", "Function", "Method")
FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"


def commit_tree(source: Path, root: Path) -> None:
    """A git repository at ``root`` whose one commit holds a copy of ``source``."""
    shutil.copytree(source, root)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "fixtures"]):
        git(root, *args)


def ingest_figures(root: Path, config: Config) -> dict:
    summary = api.ingest(root, config=config)
    return {
        "files": summary.files,
        "skipped": summary.skipped,
        "symbols": sum(summary.nodes.get(label, 0) for label in SYMBOL_LABELS),
        "nodes": summary.nodes,
        "edges": sum(summary.edges.values()),
        "edges_by_type": summary.edges,
        "dangling": summary.dangling,
        "unresolved_rate": summary.unresolved_rate,
        "seconds": summary.seconds["total"],
        "seconds_by_stage": summary.seconds,
        "kib_per_file": round(
            sum(
                p.stat().st_size
                for p in root.rglob("*")
                if p.is_file() and ".git" not in p.parts and language_for_path(p.name)
            )
            / 1024
            / max(summary.files, 1),
            1,
        ),
        "files_per_second": round(summary.files / summary.seconds["total"], 1),
        # Files differ in size between corpora; edges per second says how the work compares.
        "edges_per_second": round(sum(summary.edges.values()) / summary.seconds["total"]),
        "repo": summary.repo,
        "branch": summary.branch,
    }


def top_unresolved(config: Config, root: Path, repo: str, branch: str, limit: int) -> list[tuple[str, int]]:
    """The most frequent raw texts of unresolved references: where the resolver falls short."""
    with open_graph_store(config, root) as graph:
        rows = graph.read_query(
            "MATCH ({repo: $repo, branch: $branch})-[r]->(u:Unresolved {reason: 'unresolved'}) "
            "RETURN type(r) AS type, r.raw AS raw",
            {"repo": repo, "branch": branch},
            limit=1_000_000,
        )
    counts = Counter(f"{r['type']} {r['raw']}" for r in rows)
    return counts.most_common(limit)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", action="append", default=[], help="LANGUAGE=GIT_DIR (repeatable)")
    parser.add_argument("--python", default="Django==5.1.4", help="the Python baseline sdist, PACKAGE==VERSION")
    parser.add_argument(
        "--warm-up", default="SQLAlchemy==2.0.36", help="a Python sdist ingested untimed first, PACKAGE==VERSION"
    )
    parser.add_argument("--show-unresolved", type=int, default=15, help="print this many frequent unresolved raws")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON document")
    args = parser.parse_args()
    if not args.source:
        parser.error("give at least one --source LANGUAGE=GIT_DIR")

    figures: dict[str, dict] = {}
    with scratch("branchgraph-bench-languages-", embedder="none") as (config, tmp):
        package, version = args.python.split("==")
        baseline = tmp / f"python-{uuid.uuid4().hex[:8]}"
        commit_sdist(fetch_sdist(package, version), baseline)
        roots = [("python", baseline)]
        for source in args.source:
            language, git_dir = source.split("=", 1)
            root = tmp / f"{language}-{Path(git_dir).parent.name or 'repo'}-{uuid.uuid4().hex[:8]}"
            subprocess.run(["git", "clone", "--quiet", git_dir, str(root)], check=True)
            roots.append((language, root))
        try:
            # A server that has just started writes its first large graph at half its pace
            # (django: about 120 files/s cold, 210 warm): a project ingested once untimed
            # first, so that the ratios do not flatter whichever language comes after it.
            # Another project than any measured: the parse cache (by blob) must not serve them.
            warm_package, warm_version = args.warm_up.split("==")
            warm_root = tmp / f"warm-up-{uuid.uuid4().hex[:8]}"
            commit_sdist(fetch_sdist(warm_package, warm_version), warm_root)
            warm_up = ingest_figures(warm_root, config)
            drop_repo(warm_root, config)
            print(f"warm-up: {args.warm_up}, {warm_up['files']} files, untimed ({warm_up['seconds']} s)", flush=True)
            # The server plans each write statement (one per node label and edge shape) on
            # first sight, about 0.5 s for Go's shapes; Python's were planned by the warm-up
            # above. The test fixtures of every language plan the others' the same way.
            fixtures_root = tmp / f"fixtures-{uuid.uuid4().hex[:8]}"
            commit_tree(FIXTURES, fixtures_root)
            warm_fixtures = ingest_figures(fixtures_root, config)
            drop_repo(fixtures_root, config)
            print(f"warm-up: tests/fixtures, {warm_fixtures['files']} files, untimed", flush=True)
            for language, root in roots:
                figures[language] = ingest_figures(root, config)
                figures[language]["corpus"] = args.python if language == "python" else root.name
                figures[language]["top_unresolved"] = top_unresolved(
                    config, root, figures[language]["repo"], figures[language]["branch"], args.show_unresolved
                )
        finally:
            for _, root in roots:
                drop_repo(root, config)
    python_rate = figures["python"]["files_per_second"]
    for row in figures.values():
        row["throughput_ratio_to_python"] = round(row["files_per_second"] / python_rate, 2)
        row["edge_rate_ratio_to_python"] = round(row["edges_per_second"] / figures["python"]["edges_per_second"], 2)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for language, row in figures.items():
        print(f"{language:11s} {row['corpus']}")
        print(f"  files      {row['files']} (skipped {row['skipped'] or 'none'})")
        print(f"  symbols    {row['symbols']}  nodes {row['nodes']}")
        print(f"  edges      {row['edges']} {row['edges_by_type']}")
        print(f"  unresolved {row['unresolved_rate']:.1%}  dangling {row['dangling']}  (target <= 10%)")
        print(
            f"  files/s    {row['files_per_second']} in {row['seconds']} s; "
            f"ratio to Python's files/s {row['throughput_ratio_to_python']} (bound: >= 0.67, within 1.5x)"
        )
        print(
            f"  edges/s    {row['edges_per_second']} (ratio to Python's {row['edge_rate_ratio_to_python']}); "
            f"{row['kib_per_file']} KiB per file; stages {row['seconds_by_stage']}"
        )
        for raw, count in row["top_unresolved"]:
            print(f"    {count:5d}  {raw}")


if __name__ == "__main__":
    main()
