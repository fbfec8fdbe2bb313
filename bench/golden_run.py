"""The golden sets' corpora (each package at its pinned version, committed to a throwaway
repository) and recall measurement per embedder and mode, shared by the benchmarks."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from corpus import commit_sdist, fetch_sdist

from branchgraph import api
from branchgraph.core.config import Config
from branchgraph.retrieval.golden import GoldenSet, context_ranking, recall_at, search_ranking

GOLDEN_DIR = Path(__file__).parent.parent / "tests" / "golden"
GOLDEN_SETS = ("click", "requests", "flask-commits")


def golden_set(name: str = "click") -> GoldenSet:
    return GoldenSet.load(GOLDEN_DIR / f"{name}.json")


def commit_golden_corpus(golden: GoldenSet, root: Path) -> None:
    commit_sdist(fetch_sdist(golden.package, golden.version), root)


def measure_recall(
    root: Path, config: Config, embedder: str, modes: tuple[str, ...], golden: GoldenSet
) -> dict[str, dict[int, float]]:
    """Index ``root`` with ``embedder`` (vectors are re-made when it changes) and return
    recall@5/10/20 for each mode: ``lexical``, ``dense``, ``hybrid`` entry search, or
    ``full`` (the whole context pipeline)."""
    config = dataclasses.replace(config, embedder=embedder)
    api.ingest(root, config=config)
    out = {}
    with api.Workspace(root, config=config) as workspace:
        for mode in modes:
            if mode == "full":
                out[mode] = recall_at(golden, lambda q, k: context_ranking(workspace, q))
            else:
                out[mode] = recall_at(golden, lambda q, k, mode=mode: search_ranking(workspace, q, k, mode))
    return out
