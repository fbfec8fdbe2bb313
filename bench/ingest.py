"""Full-ingest benchmark on a real corpus: the django sdist from PyPI, committed to git.

Prints files, nodes, edges, seconds per stage, files/s, peak RSS, and the ratio of the
total to a bare tree-sitter parse of the same files measured in the same run (the bound).
Figures are printed, never asserted: the machine is shared and noisy.

    BRANCHGRAPH_NEO4J_URI=bolt://127.0.0.1:7687 python bench/ingest.py [--embedder none]
"""

from __future__ import annotations

import argparse
import json
import resource
import time
import uuid
from pathlib import Path

from corpus import commit_sdist, drop_repo, fetch_sdist, scratch

from branchgraph import api
from branchgraph.core.languages import new_parser


def bare_parse_seconds(root: Path) -> tuple[int, float]:
    """Files and seconds for tree-sitter alone on every .py file (read from disk first)."""
    sources = [p.read_bytes() for p in sorted(root.rglob("*.py")) if ".git" not in p.parts]
    parser = new_parser("python")
    start = time.perf_counter()
    for data in sources:
        parser.parse(data)
    return len(sources), time.perf_counter() - start


def _embed_rate(summary: api.IngestSummary) -> float | None:
    symbols = sum(summary.embeddings.values())
    seconds = summary.seconds.get("embed", 0.0)
    return round(symbols / seconds, 1) if symbols and seconds else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--package", default="Django")
    parser.add_argument("--version", default="5.1.4")
    parser.add_argument("--embedder", default="none", help="none (graph only, the target's setting), hashing or openai")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON document")
    args = parser.parse_args()

    sdist = fetch_sdist(args.package, args.version)
    with scratch("branchgraph-bench-ingest-", embedder=args.embedder) as (config, tmp):
        root = tmp / f"{args.package.lower()}-{uuid.uuid4().hex[:8]}"
        commit_sdist(sdist, root)
        parsed_files, bare = bare_parse_seconds(root)
        try:
            first = api.ingest(root, config=config)
            again = api.ingest(root, config=config)
            full = api.ingest(root, config=config, full=True)
        finally:
            drop_repo(root, config)
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # The largest child waited for: a parse worker or the forked half of a resolve (whose
    # pages are the parent's until written, so the two peaks overlap and do not add up).
    child_rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    figures = {
        "corpus": f"{args.package}-{args.version}",
        "embedder": first.embedder,
        "files": first.files,
        "skipped": first.skipped,
        "nodes": sum(first.nodes.values()),
        "nodes_by_label": first.nodes,
        "edges": sum(first.edges.values()),
        "edges_by_type": first.edges,
        "unresolved_rate": first.unresolved_rate,
        "dangling": first.dangling,
        "seconds_first_ingest": first.seconds,
        "seconds_reingest_same_commit": again.seconds,
        "seconds_full_reingest": full.seconds,
        "files_per_second": round(first.files / first.seconds["total"], 1),
        # The embedding figure: symbols given a vector row (computed, vector and
        # full-text rows written, the vector index built) per second of the embed stage.
        "embed_symbols_per_second": _embed_rate(first),
        "peak_rss_mib": round(rss_mib, 1),
        "peak_rss_child_mib": round(child_rss_mib, 1),
        "bare_parse_files": parsed_files,
        "bare_parse_seconds": round(bare, 3),
        "ratio_total_to_bare_parse": round(first.seconds["total"] / bare, 1),
        "ratio_full_reingest_to_bare_parse": round(full.seconds["total"] / bare, 1),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"corpus            {figures['corpus']} ({first.files} files parsed, skipped {first.skipped or 'none'})")
    print(f"graph             {figures['nodes']} nodes {first.nodes}")
    print(f"                  {figures['edges']} edges {first.edges}")
    print(f"unresolved rate   {first.unresolved_rate:.1%}  dangling {first.dangling}")
    print(f"first ingest (s)  {first.seconds}")
    print(f"same commit (s)   {again.seconds}")
    print(f"--full again (s)  {full.seconds}")
    print(f"files/s           {figures['files_per_second']}")
    if figures["embed_symbols_per_second"] is not None:
        print(f"embed stage       {figures['embed_symbols_per_second']} symbols/s ({first.embeddings})")
    print(f"peak RSS          {figures['peak_rss_mib']} MiB (largest child {figures['peak_rss_child_mib']} MiB)")
    print(f"bare parse        {bare:.3f} s for {parsed_files} files")
    print(
        f"ratio             total/bare parse = {figures['ratio_total_to_bare_parse']}x "
        f"(--full again {figures['ratio_full_reingest_to_bare_parse']}x)"
    )


if __name__ == "__main__":
    main()
