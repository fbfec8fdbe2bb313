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
from branchgraph.retrieval.golden import GoldenSet, recall_at
from gitrepo import commit_files, init_repo, read_tree

pytestmark = [pytest.mark.neo4j, pytest.mark.postgres]

GOLDEN = GoldenSet.load(Path(__file__).parent / "golden" / "click.json")
FLOORS = {("hashing", "hybrid"): 0.30, ("hashing", "dense"): 0.20, ("local", "dense"): 0.42, ("local", "hybrid"): 0.42}


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


def recall(root: Path, config, mode: str) -> dict[int, float]:
    def retrieve(question: str, k: int) -> list[str]:
        return [h.qualname for h in api.search(question, path=root, k=k, mode=mode, config=config)]

    return recall_at(GOLDEN, retrieve)


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


def test_recall_floors_and_the_local_model_beats_feature_hashing(click_repo: Path, config, graph_store):
    figures = {}
    try:
        for embedder in ("hashing", "local"):
            switched = dataclasses.replace(config, embedder=embedder)
            api.ingest(click_repo, config=switched)
            for mode in ("dense", "hybrid"):
                figures[(embedder, mode)] = recall(click_repo, switched, mode)[10]
    finally:
        graph_store.delete_branch(click_repo.name, "main")
    for key, floor in FLOORS.items():
        assert figures[key] >= floor, (key, figures)
    assert figures[("local", "dense")] > figures[("hashing", "dense")] + 0.1, figures
