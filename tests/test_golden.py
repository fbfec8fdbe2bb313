"""Retrieval quality floors on the golden sets (tests/golden/), measured on each package's
sdist fetched from PyPI at the pinned version: click (the set the ranking was first tuned on),
requests (written after that tuning, to check it carries over) and flask-commits (real tasks:
commit messages of flask's held-out commits with the functions they changed, written by
bench/make_commit_golden.py, so CI needs no git history). The floors sit a little under the
figures measured when they were set (see README, Benchmarks), so a regression fails CI."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from gitrepo import commit_files, init_repo, read_tree

from branchgraph import api
from branchgraph.retrieval.golden import GoldenSet, context_ranking, recall_at, search_ranking

pytestmark = [pytest.mark.neo4j, pytest.mark.postgres]

GOLDEN_DIR = Path(__file__).parent / "golden"
# Recall@10 floors per golden set (its file name in tests/golden/), embedder and mode.
FLOORS = {
    "click": {
        ("hashing", "lexical"): 0.60,  # 0.587 -> 0.627 with BM25 b 0.45
        ("hashing", "hybrid"): 0.52,
        ("hashing", "dense"): 0.19,
        ("hashing", "full"): 0.71,
        ("local", "dense"): 0.47,
        ("local", "hybrid"): 0.53,
        # 0.775 -> 0.732 when classes became outlines with their methods as items of their own
        # (issue 10): this set's scoring credits a class shown in full with every method in it,
        # so answers that were one whole class (ProgressBar, Choice, Context) now need their
        # methods in the top 10 one by one. On real tasks, which score by line overlap, the same
        # change raised recall@10 by 0.1. requests rose (0.925 -> 0.950).
        ("local", "full"): 0.73,  # 0.743 with BM25 b 0.45 and the refitted ranker
    },
    "requests": {
        ("hashing", "lexical"): 0.82,  # 0.825 -> 0.850 with BM25 b 0.45
        ("hashing", "hybrid"): 0.76,
        ("hashing", "dense"): 0.38,
        ("hashing", "full"): 0.89,
        ("local", "dense"): 0.66,
        ("local", "hybrid"): 0.85,
        ("local", "full"): 0.93,
    },
    "flask-commits": {
        ("hashing", "lexical"): 0.47,  # 0.457 -> 0.500 with BM25 b 0.45
        ("hashing", "hybrid"): 0.42,
        ("hashing", "dense"): 0.16,
        ("hashing", "full"): 0.60,
        ("local", "dense"): 0.27,
        ("local", "hybrid"): 0.48,
        ("local", "full"): 0.61,  # 0.623 -> 0.634
    },
}


@pytest.fixture(scope="module", params=sorted(FLOORS))
def golden(request, tmp_path_factory) -> tuple[GoldenSet, Path, str]:
    """A golden set, its package committed to a fresh repository, and the set's name."""
    golden = GoldenSet.load(GOLDEN_DIR / f"{request.param}.json")
    work = tmp_path_factory.mktemp(f"golden-{request.param}")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--no-binary",
            ":all:",
            "-d",
            str(work),
            f"{golden.package}=={golden.version}",
        ],
        check=True,
    )
    (sdist,) = work.glob("*.tar.gz")
    with tarfile.open(sdist) as tar:
        tar.extractall(work / "src", filter="data")
    (top,) = (work / "src").iterdir()
    root = work / f"{golden.package}-golden-{golden.version}"
    commit_files(init_repo(root), read_tree(top))
    return golden, root, request.param


def recall(golden: GoldenSet, root: Path, config, modes: tuple[str, ...]) -> dict[str, float]:
    """Recall@10 per mode: entry search modes, or ``full`` (the context pipeline's ranking)."""
    out = {}
    with api.Workspace(root, config=config) as workspace:
        for mode in modes:
            if mode == "full":
                out[mode] = recall_at(golden, lambda q, k: context_ranking(workspace, q))[10]
            else:
                out[mode] = recall_at(golden, lambda q, k, mode=mode: search_ranking(workspace, q, k, mode))[10]
    return out


def test_golden_set_names_only_real_symbols(golden, config, graph_store):
    golden_set, root, _ = golden
    api.ingest(root, config=config)
    rows = graph_store.read_query(
        "MATCH (n {repo: $repo, branch: 'main'}) WHERE n:Class OR n:Function OR n:Method RETURN n.qualname AS q",
        {"repo": root.name},
        limit=100_000,
    )
    known = {r["q"] for r in rows}
    assert len(golden_set.questions) >= 40
    assert {s for _, wanted in golden_set.questions for s in wanted} <= known


def test_recall_floors_the_local_model_and_the_full_pipeline(golden, config, graph_store):
    golden_set, root, name = golden
    figures = {}
    try:
        for embedder in ("hashing", "local"):
            switched = dataclasses.replace(config, embedder=embedder)
            api.ingest(root, config=switched)
            modes = ("lexical", "dense", "hybrid", "full") if embedder == "hashing" else ("dense", "hybrid", "full")
            for mode, figure in recall(golden_set, root, switched, modes).items():
                figures[(embedder, mode)] = figure
    finally:
        graph_store.delete_branch(root.name, "main")
    for key, floor in FLOORS[name].items():
        assert figures[key] >= floor, (key, figures)
    assert figures[("local", "dense")] > figures[("hashing", "dense")] + 0.1, figures
    # Expansion and ranking must add to what either list finds alone: 10 points, or half of
    # what the better list leaves to find when that is less (requests: full-text alone 0.85).
    best = max(figures[("local", "dense")], figures[("hashing", "lexical")])
    assert figures[("local", "full")] >= best + min(0.10, (1 - best) / 2), figures
