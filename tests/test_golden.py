"""Retrieval quality floors on the golden set (tests/golden/click.json), measured on the
click sdist fetched from PyPI at the pinned version. The floors sit a little under the
figures measured when they were set (see README, Benchmarks), so a regression fails CI."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from branchgraph import api
from branchgraph.retrieval.golden import GoldenSet, context_ranking, recall_at, search_ranking
from gitrepo import commit_files, init_repo, read_tree

pytestmark = [pytest.mark.neo4j, pytest.mark.postgres]

GOLDEN = GoldenSet.load(Path(__file__).parent / "golden" / "click.json")
FLOORS = {
    ("hashing", "lexical"): 0.50,
    ("hashing", "hybrid"): 0.43,
    ("hashing", "dense"): 0.20,
    ("hashing", "full"): 0.46,
    ("local", "dense"): 0.46,
    ("local", "hybrid"): 0.48,
    ("local", "full"): 0.65,
}


@pytest.fixture(scope="module")
def click_repo(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("golden")
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:", "-d", str(work), f"{GOLDEN.package}=={GOLDEN.version}"],
        check=True,
    )
    (sdist,) = work.glob("*.tar.gz")
    with tarfile.open(sdist) as tar:
        tar.extractall(work / "src", filter="data")
    (top,) = (work / "src").iterdir()
    root = work / f"click-golden-{GOLDEN.version}"
    commit_files(init_repo(root), read_tree(top))
    return root


def recall(root: Path, config, modes: tuple[str, ...]) -> dict[str, float]:
    """Recall@10 per mode: entry search modes, or ``full`` (the context pipeline's ranking)."""
    out = {}
    with api.Workspace(root, config=config) as workspace:
        for mode in modes:
            if mode == "full":
                out[mode] = recall_at(GOLDEN, lambda q, k: context_ranking(workspace, q))[10]
            else:
                out[mode] = recall_at(GOLDEN, lambda q, k, mode=mode: search_ranking(workspace, q, k, mode))[10]
    return out


def test_golden_set_names_only_real_symbols(click_repo: Path, config, graph_store):
    api.ingest(click_repo, config=config)
    rows = graph_store.read_query(
        "MATCH (n {repo: $repo, branch: 'main'}) WHERE n:Class OR n:Function OR n:Method RETURN n.qualname AS q",
        {"repo": click_repo.name},
        limit=100_000,
    )
    known = {r["q"] for r in rows}
    assert len(GOLDEN.questions) >= 40
    assert {s for _, wanted in GOLDEN.questions for s in wanted} <= known


def test_recall_floors_the_local_model_and_the_full_pipeline(click_repo: Path, config, graph_store):
    figures = {}
    try:
        for embedder in ("hashing", "local"):
            switched = dataclasses.replace(config, embedder=embedder)
            api.ingest(click_repo, config=switched)
            modes = ("lexical", "dense", "hybrid", "full") if embedder == "hashing" else ("dense", "hybrid", "full")
            for mode, figure in recall(click_repo, switched, modes).items():
                figures[(embedder, mode)] = figure
    finally:
        graph_store.delete_branch(click_repo.name, "main")
    for key, floor in FLOORS.items():
        assert figures[key] >= floor, (key, figures)
    assert figures[("local", "dense")] > figures[("hashing", "dense")] + 0.1, figures
    # Expansion and ranking must add to what either list finds alone.
    assert figures[("local", "full")] > max(figures[("local", "dense")], figures[("hashing", "lexical")]) + 0.10, figures
