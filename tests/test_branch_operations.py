"""Branch-level operations: all branches, the ingest lock, prune, and git hooks."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from gitrepo import commit_files, init_repo

from branchgraph import IngestLocked, api
from branchgraph.cli import cli

pytestmark = [pytest.mark.neo4j, pytest.mark.postgres]

APP = {"app.py": "def f():\n    return g()\n\n\ndef g():\n    return 1\n", "README.md": "# app\n", "setup.cfg": "[x]\n"}


def branches_in_graph(graph_store, repo: str) -> set[str]:
    rows = graph_store.read_query("MATCH (f:File {repo: $repo}) RETURN DISTINCT f.branch AS b", {"repo": repo})
    return {r["b"] for r in rows}


def test_all_branches_cheapest_first(repo_dir: Path, config, graph_store):
    repo = init_repo(repo_dir)
    root = commit_files(repo, APP)
    commit_files(repo, {**APP, "b.py": "def b():\n    pass\n"}, branch="feature/b", parents=[root.encode()])
    commit_files(
        repo, {**APP, "c.py": "def c():\n    pass\n", "d.py": "x = 1\n"}, branch="feature/c", parents=[root.encode()]
    )
    summaries = api.ingest_all(repo_dir, config=config)
    assert [s.branch for s in summaries] == ["main", "feature/b", "feature/c"]
    assert [s.strategy for s in summaries] == ["bulk", "branch-off", "branch-off"]
    assert branches_in_graph(graph_store, repo_dir.name) == {"main", "feature/b", "feature/c"}


def test_a_second_ingest_of_the_branch_waits_or_exits(repo_dir: Path, config, pg_store):
    repo = init_repo(repo_dir)
    commit_files(repo, APP)
    with pg_store.ingest_lock(repo_dir.name, "main"):
        with pytest.raises(IngestLocked, match="another ingest"):
            api.ingest(repo_dir, config=config, wait_for_lock=False)
        finished = threading.Event()
        worker = threading.Thread(target=lambda: (api.ingest(repo_dir, config=config), finished.set()))
        worker.start()
        time.sleep(1.5)
        assert not finished.is_set()  # blocked behind the lock held here
    worker.join(timeout=120)
    assert finished.is_set()
    assert api.status(repo_dir, config=config)[0].behind_commits == 0


def test_prune_drops_deleted_and_stale_branches_but_keeps_caches(repo_dir: Path, config, graph_store, pg_store):
    repo = init_repo(repo_dir)
    root = commit_files(repo, APP)
    commit_files(repo, {**APP, "gone.py": "def gone():\n    pass\n"}, branch="gone", parents=[root.encode()])
    api.ingest_all(repo_dir, config=config)
    del repo.refs[b"refs/heads/gone"]

    dry = api.prune(repo_dir, deleted=True, dry_run=True, config=config)
    assert [(p.branch, p.reason, p.nodes_deleted) for p in dry] == [("gone", "deleted in git", 0)]
    assert branches_in_graph(graph_store, repo_dir.name) == {"main", "gone"}

    pruned = api.prune(repo_dir, deleted=True, config=config)
    assert [p.branch for p in pruned] == ["gone"] and pruned[0].nodes_deleted > 0
    assert branches_in_graph(graph_store, repo_dir.name) == {"main"}
    assert [s.branch for s in api.status(repo_dir, config=config)] == ["main"]
    # Shared caches stay: re-indexing parses nothing.
    assert api.prune(repo_dir, older_than=timedelta(days=7), config=config) == []
    assert [p.branch for p in api.prune(repo_dir, older_than=timedelta(seconds=0), config=config)] == ["main"]
    again = api.ingest(repo_dir, config=config)
    assert again.work["files_parsed"] == 0 and again.work["parse_cache_hits"] == 1


def test_prune_cli_needs_a_criterion_and_reads_ages(repo_dir: Path):
    init_repo(repo_dir)
    assert CliRunner().invoke(cli, ["prune", str(repo_dir)]).exit_code == 2
    assert CliRunner().invoke(cli, ["prune", str(repo_dir), "--older-than", "soon"]).exit_code == 2


def _git(repo_dir: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo_dir), *args], env=env, capture_output=True, text=True, timeout=60)


def test_hooks_update_the_index_in_the_background_and_never_break_git(repo_dir: Path, config, neo4j_uri, pg_url):
    env = {
        **os.environ,
        "BRANCHGRAPH_NEO4J_URI": neo4j_uri,
        "BRANCHGRAPH_DATABASE_URL": pg_url,
        "BRANCHGRAPH_EMBEDDER": "hashing",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    assert _git(repo_dir, "init", "-q", "-b", "main", env=env).returncode == 0
    hooks_dir = repo_dir / ".git" / "hooks"
    hooks_dir.mkdir(parents=True, exist_ok=True)
    (hooks_dir / "post-commit").write_text("#!/bin/sh\necho mine > .git/own-hook-ran\n")
    result = CliRunner().invoke(cli, ["hook", "install", str(repo_dir)])
    assert result.exit_code == 0, result.output
    (repo_dir / "app.py").write_text(APP["app.py"])
    _git(repo_dir, "add", "app.py", env=env)
    commit = _git(repo_dir, "commit", "-q", "-m", "first", env=env)
    assert commit.returncode == 0, commit.stderr
    head = _git(repo_dir, "rev-parse", "HEAD", env=env).stdout.strip()
    assert (repo_dir / ".git" / "own-hook-ran").exists()  # existing hook content kept

    deadline = time.monotonic() + 120
    indexed = None
    while time.monotonic() < deadline:
        states = api.status(repo_dir, config=config)
        indexed = states[0].indexed_commit if states else None
        if indexed == head:
            break
        time.sleep(0.5)
    assert indexed == head, (repo_dir / ".branchgraph" / "hook.log").read_text()

    # A failing branchgraph (no Neo4j) must not fail the commit.
    broken = {**env, "BRANCHGRAPH_NEO4J_URI": "bolt://127.0.0.1:1"}
    (repo_dir / "app.py").write_text(APP["app.py"] + "\n# more\n")
    _git(repo_dir, "add", "app.py", env=broken)
    assert _git(repo_dir, "commit", "-q", "-m", "second", env=broken).returncode == 0
    deadline = time.monotonic() + 60
    log = repo_dir / ".branchgraph" / "hook.log"
    while time.monotonic() < deadline and "cannot reach Neo4j" not in log.read_text():
        time.sleep(0.5)
    assert "cannot reach Neo4j" in log.read_text()

    result = CliRunner().invoke(cli, ["hook", "install", "--uninstall", str(repo_dir)])
    assert result.exit_code == 0
    assert (hooks_dir / "post-commit").read_text() == "#!/bin/sh\necho mine > .git/own-hook-ran\n"
    assert not (hooks_dir / "post-merge").exists()


def test_ingest_cli_reports_strategy_and_work_as_json(repo_dir: Path, neo4j_uri, pg_url):
    repo = init_repo(repo_dir)
    commit_files(repo, APP)
    env = {"BRANCHGRAPH_NEO4J_URI": neo4j_uri, "BRANCHGRAPH_DATABASE_URL": pg_url, "BRANCHGRAPH_EMBEDDER": "hashing"}
    first = json.loads(CliRunner().invoke(cli, ["ingest", str(repo_dir), "--json"], env=env).output)
    assert first["strategy"] == "bulk"
    assert first["work"]["files_parsed"] + first["work"]["parse_cache_hits"] == 1  # the cache spans repos
    again = json.loads(CliRunner().invoke(cli, ["ingest", str(repo_dir), "--json"], env=env).output)
    assert again["strategy"] == "update" and again["work"]["files_written"] == 0
    assert CliRunner().invoke(cli, ["ingest", str(repo_dir), "--remotes"], env=env).exit_code == 2
    both = CliRunner().invoke(cli, ["ingest", str(repo_dir), "--all-branches", "--json"], env=env)
    assert both.exit_code == 0 and [d["branch"] for d in json.loads(both.output)] == ["main"]


def test_a_branch_off_that_fails_while_its_base_is_copied_starts_anew_next_time(
    repo_dir: Path, config, graph_store, pg_store, monkeypatch
):
    from test_incremental import assert_equals_fresh_ingest

    from branchgraph.ingest import pipeline

    repo = init_repo(repo_dir)
    root = commit_files(repo, APP)
    commit_files(
        repo,
        {**APP, "b.py": "from app import f\n\n\ndef b():\n    return f()\n"},
        branch="feature/b",
        parents=[root.encode()],
    )
    api.ingest(repo_dir, config=config)

    copying = threading.Event()
    clone = pipeline._copying_base

    def copy_then_note(*args):
        copying.set()
        return clone(*args)

    def resolver_fails(*args, **kwargs):
        assert copying.is_set()  # the base's copy had begun before the branch's files were resolved
        raise RuntimeError("resolver failed")

    monkeypatch.setattr(pipeline, "_copying_base", copy_then_note)
    monkeypatch.setattr(pipeline, "resolve_update", resolver_fails)
    with pytest.raises(RuntimeError, match="resolver failed"):
        api.ingest(repo_dir, branch="feature/b", config=config)
    # The copy was unrecorded: reported as such, never as the branch indexed.
    states = {s.branch: s for s in api.status(repo_dir, config=config)}
    assert states["feature/b"].indexed_commit == "" and "no record" in states["feature/b"].problem
    monkeypatch.undo()

    again = api.ingest(repo_dir, branch="feature/b", config=config)
    assert again.strategy == "branch-off"
    assert_equals_fresh_ingest(repo_dir, "feature/b", config, graph_store, pg_store)
