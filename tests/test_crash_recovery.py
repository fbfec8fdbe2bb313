"""A SIGKILL at any point of an ingest leaves the branch at its previous indexed commit, and
the next run converges to exactly what a fresh ingest writes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gitrepo import commit_files, init_repo
from test_incremental import assert_equals_fresh_ingest

from branchgraph import api

pytestmark = [pytest.mark.neo4j, pytest.mark.postgres]


def generated_package(tag: str, modules: int, version: int) -> dict[str, str]:
    """Modules that import and call each other; ``tag`` keeps blobs out of other tests' caches."""
    files = {"pkg/__init__.py": f"# {tag}\n"}
    for i in range(modules):
        callee = (i * 7 + version) % modules
        files[f"pkg/m{i}.py"] = (
            f"# {tag} v{version if i % 3 == 0 else 0}\n"
            f"from pkg.m{callee} import work{callee if version == 0 or i % 5 else 0}\n\n\n"
            + "".join(
                f"def work{i if j == 0 else f'{i}_{j}'}(x):\n    return work{callee}(x) + {j + version * (i % 3 == 0)}\n\n\n"
                for j in range(6)
            )
            + f"class Thing{i}:\n    def run(self):\n        return work{i}(self.size())\n\n    def size(self):\n        return {i}\n"
        )
    return files


def run_ingest(repo_dir: Path, env: dict[str, str], kill_after: float | None, branch: str | None = None) -> int | None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "branchgraph",
            "ingest",
            str(repo_dir),
            "--quiet",
            *(["--branch", branch] if branch else []),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    if kill_after is None:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err.decode()
        return 0
    time.sleep(kill_after)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)  # the process and its parse workers
    proc.wait(timeout=60)
    return proc.returncode


def test_sigkill_at_random_points_then_rerun_converges(
    repo_dir: Path, config, graph_store, pg_store, neo4j_uri, pg_url
):
    env = {
        **os.environ,
        "BRANCHGRAPH_NEO4J_URI": neo4j_uri,
        "BRANCHGRAPH_DATABASE_URL": pg_url,
        "BRANCHGRAPH_EMBEDDER": "hashing",
    }
    rng = random.Random(20261130)
    repo = init_repo(repo_dir)
    first = commit_files(repo, generated_package(repo_dir.name, 250, 0))

    start = time.monotonic()
    run_ingest(repo_dir, env, None)
    duration = time.monotonic() - start
    graph_store.delete_branch(repo_dir.name, "main")
    pg_store.delete_branch(repo_dir.name, "main")

    # First ingest, killed at random points across its run, then completed.
    for share in sorted(rng.uniform(0.15, 0.95) for _ in range(3)):
        run_ingest(repo_dir, env, duration * share)
        states = api.status(repo_dir, config=config)
        # Never a half-recorded commit; a graph the crash left without a record is reported.
        assert all(s.indexed_commit == first or (s.indexed_commit == "" and s.problem) for s in states)
    run_ingest(repo_dir, env, None)
    assert api.status(repo_dir, config=config)[0].indexed_commit == first
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)

    # An update killed part-way: the branch stays at the old commit until a run completes.
    second = commit_files(repo, generated_package(repo_dir.name, 240, 1))
    for share in sorted(rng.uniform(0.1, 0.9) for _ in range(3)):
        run_ingest(repo_dir, env, duration * share * 0.6)
        assert api.status(repo_dir, config=config)[0].indexed_commit in (first, second)
    run_ingest(repo_dir, env, None)
    assert api.status(repo_dir, config=config)[0].indexed_commit == second
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)

    # A branch-off killed part-way (its base's copy runs while its own files are parsed): the
    # next run makes the branch read exactly as a fresh ingest of its commit.
    changed = generated_package(repo_dir.name, 240, 1)
    changed.update(
        {f"pkg/m{i}.py": changed[f"pkg/m{i}.py"] + f"\n\ndef extra{i}():\n    return work{i}(0)\n" for i in range(12)}
    )
    third = commit_files(repo, changed, branch="feature/extra", parents=[second.encode()])
    for share in sorted(rng.uniform(0.05, 0.5) for _ in range(2)):
        run_ingest(repo_dir, env, duration * share, "feature/extra")
        states = {s.branch: s for s in api.status(repo_dir, config=config)}
        assert states["main"].indexed_commit == second
        assert "feature/extra" not in states or states["feature/extra"].indexed_commit in ("", third)
    run_ingest(repo_dir, env, None, "feature/extra")
    assert {s.branch: s.indexed_commit for s in api.status(repo_dir, config=config)}["feature/extra"] == third
    assert_equals_fresh_ingest(repo_dir, "feature/extra", config, graph_store, pg_store)
    assert_equals_fresh_ingest(repo_dir, "main", config, graph_store, pg_store)
