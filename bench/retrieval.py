"""Retrieval quality and speed.

1. Recall@5/10/20 on the golden sets (tests/golden/: click, tuned on; requests, written
   after the tuning to check it carries over) for lexical-only, vector-only
   and hybrid entry search, and the full pipeline (hybrid + expansion + ranking, the context
   items in rank order), per embedder. Each set's sdist is fetched from PyPI at the pinned
   version and indexed into a throwaway repository.
2. context() latency over 100 queries on the django graph (the `local` embedder, so no
   remote call): p50/p95, against the same run's entry search alone (the bound: context()
   runs one search, then expands, reads and ranks). The queries are the first sentences of
   100 docstrings drawn with a fixed seed: natural language about the code itself.

    BRANCHGRAPH_NEO4J_URI=bolt://127.0.0.1:7687 python bench/retrieval.py [--embedders hashing,local] [--skip-latency]
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import time
import uuid
from pathlib import Path

from corpus import commit_sdist, drop_repo, fetch_sdist, scratch
from golden_run import GOLDEN_SETS, commit_golden_corpus, golden_set, measure_recall

from branchgraph import api
from branchgraph.core.config import Config
from branchgraph.retrieval.query import FileMentions

LATENCY_QUERIES = 100


def recall_table(golden_name: str, embedders: list[str], tmp: Path, config: Config) -> None:
    golden = golden_set(golden_name)
    root = tmp / f"{golden.package}-{uuid.uuid4().hex[:8]}"
    commit_golden_corpus(golden, root)
    try:
        print(f"{len(golden.questions)} questions over {golden.package} {golden.version}")
        print(f"{'embedder':<18} {'mode':<8} {'R@5':>6} {'R@10':>6} {'R@20':>6}")
        lexical = None
        for i, embedder in enumerate(embedders):
            # Lexical search does not use the embedder: it is shown once.
            modes = ("lexical", "dense", "hybrid", "full") if i == 0 else ("dense", "hybrid", "full")
            figures = measure_recall(root, config, embedder, modes, golden)
            for mode, recall in figures.items():
                print(f"{embedder:<18} {mode:<8} {recall[5]:>6.3f} {recall[10]:>6.3f} {recall[20]:>6.3f}")
            lexical = figures.get("lexical", lexical)
            best_single = max(figures["dense"][10], lexical[10])
            print(
                f"{'':<18} full pipeline R@10 minus the best single list: {figures['full'][10] - best_single:+.3f} (target +0.15)"
            )
    finally:
        drop_repo(root, config)


def docstring_queries(workspace: api.Workspace, n: int) -> list[str]:
    rows = workspace.graph.read_query(
        "MATCH (s:Function) WHERE s.repo = $repo AND s.docstring <> '' RETURN s.docstring AS d ORDER BY s.id "
        "UNION MATCH (s:Method) WHERE s.repo = $repo AND s.docstring <> '' RETURN s.docstring AS d ORDER BY s.id",
        {"repo": workspace.root.name},
        limit=1_000_000,
    )
    sentences = sorted({r["d"].strip().split("\n\n")[0].replace("\n", " ").split(". ")[0][:200] for r in rows})
    sentences = [s for s in sentences if len(s.split()) >= 4]
    return random.Random(42).sample(sentences, n)


def timed(fn, queries: list[str]) -> list[float]:
    out = []
    for q in queries:
        start = time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - start) * 1000)
    return out


def percentile(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(p) - 1]


def latency(tmp: Path, package: str, version: str, config: Config) -> None:
    root = tmp / f"{package}-{uuid.uuid4().hex[:8]}"
    commit_sdist(fetch_sdist(package, version), root)
    config = dataclasses.replace(config, embedder="local")
    try:
        started = time.perf_counter()
        summary = api.ingest(root, config=config)
        print(
            f"\n{package} {version}: {summary.files} files, {sum(summary.nodes.values())} nodes indexed "
            f"in {time.perf_counter() - started:.1f} s"
        )
        with api.Workspace(root, config=config) as ws:
            queries = docstring_queries(ws, LATENCY_QUERIES)
            ws.context(queries[0])  # warm: model load, recency cache, connections
            search_ms = timed(lambda q: ws.search(q, k=12), queries)
            context_ms = timed(lambda q: ws.context(q), queries)
            # Again, as a server that has answered for a while does (its JIT and page cache warm).
            again_ms = timed(lambda q: ws.context(q), queries)
            sizes = [len(ws.context(q).items) for q in queries[:10]]
        p50, p95 = percentile(context_ms, 50), percentile(context_ms, 95)
        s50, s95 = percentile(search_ms, 50), percentile(search_ms, 95)
        print(f"entry search over {len(queries)} queries: p50 {s50:.1f} ms, p95 {s95:.1f} ms (the bound)")
        print(
            f"context() over {len(queries)} queries:     p50 {p50:.1f} ms, p95 {p95:.1f} ms "
            f"(ratio to search: p50 {p50 / s50:.2f}x, p95 {p95 / s95:.2f}x; targets 50 / 150 ms)"
        )
        print(
            f"context() again over the same queries: p50 {percentile(again_ms, 50):.1f} ms, "
            f"p95 {percentile(again_ms, 95):.1f} ms"
        )
        print(f"items per context (first 10 queries, 6000-token budget): {sizes}")
        naming = [ms for q, ms in zip(queries, context_ms, strict=True) if FileMentions.of(q)]
        if naming:
            print(
                f"queries naming a file or module (their symbols join the candidates): {len(naming)}, "
                f"context() median {statistics.median(naming):.1f} ms"
            )
    finally:
        drop_repo(root, config)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--embedders", default="hashing,local", help="comma-separated: hashing, local, local-transformer, openai"
    )
    parser.add_argument("--golden", default=",".join(GOLDEN_SETS), help="golden sets in tests/golden/, comma-separated")
    parser.add_argument("--skip-recall", action="store_true")
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument("--latency-corpus", default="Django==5.1.4", help="PACKAGE==VERSION from PyPI")
    args = parser.parse_args()
    with scratch("branchgraph-bench-retrieval-") as (config, tmp):
        if not args.skip_recall:
            for name in args.golden.split(","):
                recall_table(name, args.embedders.split(","), tmp, config)
        if not args.skip_latency:
            package, version = args.latency_corpus.split("==")
            latency(tmp, package, version, config)


if __name__ == "__main__":
    main()
