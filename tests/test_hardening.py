"""Hardening against hostile input and disagreeing stores (issue 16), against real Neo4j and
PostgreSQL: the bad-input corpus indexes with every skip counted, one bad path costs one item,
two repositories that share a folder name keep both graphs, and a graph that lost a branch or
some files is reported and rebuilt instead of taken for up to date."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from bad_input_corpus import BAD_INPUT_FILES, EXPECTED_INDEXED_FILES, EXPECTED_SKIPPED, EXPECTED_TEXT
from click.testing import CliRunner
from conftest import FIXTURES
from dulwich.repo import Repo
from gitrepo import commit_files, init_repo, read_tree

from branchgraph import AmbiguousRepository, api
from branchgraph.cli import cli

pytestmark = [pytest.mark.postgres]


def function_ids(graph_store, repo: str, names) -> dict[str, str]:
    rows = graph_store.read_query(
        "MATCH (f:Function {repo: $repo, branch: 'main'}) WHERE f.name IN $names RETURN f.name AS name, f.id AS id",
        {"repo": repo, "names": list(names)},
    )
    return {r["name"]: r["id"] for r in rows}


@pytest.mark.neo4j
def test_the_bad_input_corpus_indexes_with_every_skip_counted(repo_dir: Path, config, graph_store):
    commit_files(init_repo(repo_dir), BAD_INPUT_FILES)
    summary = api.ingest(repo_dir, config=config)
    assert summary.skipped == EXPECTED_SKIPPED
    assert summary.files == EXPECTED_INDEXED_FILES
    assert summary.conflict_files == ["conflict.py"]
    # Nothing of a skipped file reached the graph; the good files are all there.
    found = function_ids(graph_store, repo_dir.name, ["fine", "helper", "after_broken", "outside", "dotdot", "deep"])
    assert set(found) == {"fine", "helper", "after_broken"}
    # Lines after a form feed, U+2028 or CRLF endings are the lines tree-sitter counted.
    with api.Workspace(repo_dir, config=config) as ws:
        for name, node_id in function_ids(graph_store, repo_dir.name, EXPECTED_TEXT).items():
            assert ws.symbol(node_id)["text"] == EXPECTED_TEXT[name]
        result = ws.context("after_formfeed", budget_tokens=2000)
        shown = {item.qualname.rsplit(".", 1)[-1]: item.text for item in result.items}
        assert shown["after_formfeed"] == EXPECTED_TEXT["after_formfeed"]
    # A rerun converges without writing, and a full rerun gives the same counts.
    again = api.ingest(repo_dir, config=config)
    assert again.work["files_written"] == 0 and again.skipped == EXPECTED_SKIPPED
    full = api.ingest(repo_dir, full=True, config=config)
    assert (full.skipped, full.nodes) == (EXPECTED_SKIPPED, summary.nodes)


@pytest.mark.neo4j
def test_one_bad_working_tree_path_costs_one_item_not_the_answer(shop_repo: Path, config, tmp_path: Path):
    api.ingest(shop_repo, config=config)
    outside = tmp_path / "outside.py"
    outside.write_text("SECRET = 1\n")
    for path, data in read_tree(FIXTURES / "shop").items():
        (shop_repo / path).parent.mkdir(parents=True, exist_ok=True)
        (shop_repo / path).write_bytes(data)
    payments = shop_repo / "src/shop/payments.py"
    payments.unlink()
    payments.symlink_to(outside)  # the checked-out copy now points out of the repository
    result = api.context("where is refund implemented", repo=shop_repo, config=config)
    refund = next(i for i in result.items if i.qualname == "shop.payments.Payment.refund")
    assert "def refund" in refund.text  # the indexed blob, not the link
    assert not any("SECRET" in i.text for i in result.items)
    assert any("src/shop/payments.py: working-tree copy not read" in w for w in result.warnings)


@pytest.mark.neo4j
def test_two_repositories_with_one_folder_name_keep_both_graphs(tmp_path: Path, repo_dir: Path, config, graph_store):
    first, second = tmp_path / "one" / repo_dir.name, tmp_path / "two" / repo_dir.name
    commit_files(init_repo(first), {"first.py": "def only_in_first():\n    pass\n"})
    commit_files(init_repo(second), {"second.py": "def only_in_second():\n    pass\n"})
    one, two = api.ingest(first, config=config), api.ingest(second, config=config)
    assert one.repo == repo_dir.name and two.repo.startswith(repo_dir.name + "-")
    assert function_ids(graph_store, one.repo, ["only_in_first"]) and function_ids(
        graph_store, two.repo, ["only_in_second"]
    )
    # Re-ingesting either touches only its own graph, under the key it got.
    assert api.ingest(first, config=config).repo == one.repo
    assert api.ingest(second, config=config).work["files_written"] == 0
    assert function_ids(graph_store, one.repo, ["only_in_first"])
    assert [s.repo for s in api.status(second, config=config)] == [two.repo]
    with api.Workspace(first, config=config) as ws:
        with pytest.raises(AmbiguousRepository, match="names 2 indexed repositories"):
            ws.search("only", repo=repo_dir.name)
        assert ws.search("only_in_second", repo=two.repo)[0].qualname.endswith("only_in_second")
        assert ws.search("only_in_second", repo=str(second))[0].qualname.endswith("only_in_second")
    # A clone of the first (shared history) at another path is the same repository.
    clone = tmp_path / "three" / repo_dir.name
    shutil.copytree(first, clone)
    assert api.ingest(clone, config=config).repo == one.repo


@pytest.mark.neo4j
def test_a_graph_that_lost_the_branch_or_files_is_reported_and_rebuilt(shop_repo: Path, config, graph_store):
    first = api.ingest(shop_repo, config=config)
    name = first.repo
    graph_store._driver.execute_query(
        "MATCH (f:File {repo: $repo, branch: 'main', path: 'src/shop/payments.py'})-[:DEFINES*0..]->(n) "
        "DETACH DELETE n",
        repo=name,
    )
    [state] = api.status(shop_repo, config=config)
    assert state.problem and "the graph holds" in state.problem
    runner = CliRunner()
    shown = runner.invoke(
        cli,
        ["status", str(shop_repo)],
        env={"BRANCHGRAPH_NEO4J_URI": config.neo4j_uri, "BRANCHGRAPH_DATABASE_URL": config.database_url},
    )
    assert shown.exit_code == 1 and "INCONSISTENT" in shown.output
    repaired = api.ingest(shop_repo, config=config)
    assert repaired.strategy == "update" and repaired.work["files_written"] >= 1
    back = graph_store.read_query(
        "MATCH (:File {repo: $repo, branch: 'main', path: 'src/shop/payments.py'})-[:DEFINES*]->(m:Method) "
        "RETURN m.name AS name",
        {"repo": name},
    )
    assert "refund" in {r["name"] for r in back}
    assert api.status(shop_repo, config=config)[0].problem is None
    # The whole branch gone from the graph: a bulk rebuild, with every node back.
    graph_store.delete_branch(name, "main")
    assert api.status(shop_repo, config=config)[0].problem
    rebuilt = api.ingest(shop_repo, config=config)
    assert rebuilt.strategy == "bulk" and rebuilt.nodes == first.nodes
    assert api.status(shop_repo, config=config)[0].problem is None


def _postmaster_pid(data: Path) -> int | None:
    """The embedded server's pid while it runs, else None."""
    pid_file = data / "postmaster.pid"
    if not pid_file.exists():
        return None
    pid = int(pid_file.read_text().split("\n", 1)[0])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    return pid


def test_a_killed_process_does_not_keep_the_embedded_postgres_running():
    # Not under pytest's tmp_path: run as root, the server runs as another user, which must
    # reach the data directory (the session's server lives in a mkdtemp folder too).
    base = Path(tempfile.mkdtemp(prefix="branchgraph-pg-"))
    data = base / "pgdata"
    start = (
        "import os, sys; from branchgraph.graph.embedded_postgres import start_embedded_postgres as s; s(sys.argv[1]);"
    )
    try:
        killed = subprocess.run([sys.executable, "-c", start + "os.kill(os.getpid(), 9)", str(data)], timeout=120)
        assert killed.returncode == -signal.SIGKILL
        assert _postmaster_pid(data) is not None  # the killed process never released its handle
        subprocess.run([sys.executable, "-c", start, str(data)], check=True, timeout=120)
        assert _postmaster_pid(data) is None  # the last live user exited: the server stopped
    finally:
        pid = _postmaster_pid(data)
        if pid is not None:
            os.kill(pid, signal.SIGTERM)
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.neo4j
def test_answers_read_while_an_ingest_writes_come_from_one_commit(repo_dir: Path, config):
    from branchgraph.core import git

    repo = init_repo(repo_dir)
    commit_files(repo, {f"pkg/m{i}.py": f"def total_{i}():\n    return {i}\n" for i in range(60)})
    api.ingest(repo_dir, config=config)
    # The next commit moves every function down three lines and adds files only it has.
    moved = {f"pkg/m{i}.py": f"# moved\n\n\ndef total_{i}():\n    return {i} + 1\n" for i in range(60)}
    added = {f"pkg/new{i}.py": f"def total_new_{i}():\n    return {i}\n" for i in range(60)}
    commit_files(repo, {**moved, **added})
    results = []
    with api.Workspace(repo_dir, config=config) as ws:
        writer = threading.Thread(target=api.ingest, args=(repo_dir,), kwargs={"config": config})
        writer.start()
        while writer.is_alive():
            results.append(ws.context("the total functions", budget_tokens=1500))
        writer.join()
        results.append(ws.context("the total functions", budget_tokens=1500))
    dulwich_repo = git.open_repo(repo_dir)
    commits = {r.indexed_commit for r in results}
    assert len(commits) == 2, "the reads should straddle the update"
    for result in results:
        tree = {
            f.path: f.blob_sha for f in git.tree_files(dulwich_repo, git._commit(dulwich_repo, result.indexed_commit))
        }
        for item in result.items:
            assert item.path in tree, f"{item.path} is not in {result.indexed_commit[:12]}"
            lines = git.read_blob(dulwich_repo, tree[item.path]).decode().split("\n")
            assert item.text == "\n".join(lines[item.start_line - 1 : item.end_line]), item.qualname


def test_a_dropped_postgresql_connection_is_replaced_not_kept_broken(pg_url):
    from branchgraph import StoreUnavailable
    from branchgraph.graph.pgstore import PgStore

    def kill_connections(store) -> None:
        with store.connection() as conn:
            pid = conn.info.backend_pid
        with PgStore(pg_url) as other, other.connection() as conn:
            conn.execute("SELECT pg_terminate_backend(%s)", (pid,))

    with PgStore(pg_url) as store:
        store.branches()
        # What a server restart does to a long-lived process's connection.
        kill_connections(store)
        time.sleep(1.2)  # idle long enough to be probed before use
        assert isinstance(store.branches(), list)
        # Used again at once: the running statement may fail, the next one reconnects.
        kill_connections(store)
        failures = 0
        for _ in range(2):
            try:
                store.branches()
            except StoreUnavailable:
                failures += 1
        assert failures <= 1 and isinstance(store.branches(), list)


def test_a_postgresql_limit_is_an_error_of_the_statement_not_a_lost_connection(pg_url):
    from branchgraph import StoreError, StoreUnavailable
    from branchgraph.graph.pgstore import PgStore

    with PgStore(pg_url) as store:
        with pytest.raises(StoreError, match="refused the operation") as refused, store._transaction() as cur:
            # An incompressible key past the b-tree row limit (what a ~3 KB path once hit).
            cur.execute(
                "INSERT INTO file_states (repo, branch, path, blob_sha) VALUES ('limit-test', 'main', %s, 'x')",
                ("".join(f"{(i * 2654435761) % 4294967296:08x}" for i in range(400)),),
            )
        assert not isinstance(refused.value, StoreUnavailable)
        assert isinstance(store.branches(), list)  # and the store goes on working


@pytest.mark.neo4j
def test_a_script_that_closes_its_workspace_exits_without_noise(shop_repo: Path, config):
    # The workspace's git repositories are closed with it: left to the garbage collector at
    # interpreter exit, dulwich's finalisers print "Exception ignored" tracebacks.
    api.ingest(shop_repo, config=config)
    files = read_tree(FIXTURES / "shop")
    files["src/shop/payments.py"] = files["src/shop/payments.py"] + b"\n\ndef audit():\n    return None\n"
    commit_files(Repo(str(shop_repo)), files, message="audit")
    subprocess.run(["git", "-C", str(shop_repo), "repack", "-a", "-d", "-q"], check=True)  # objects in a pack
    api.ingest(shop_repo, config=config)
    script = (
        "import sys\nfrom pathlib import Path\nfrom branchgraph import api\nfrom branchgraph.core.config import Config\n"
        "config = Config(neo4j_uri=sys.argv[2], database_url=sys.argv[3], embedder='hashing')\n"
        "with api.Workspace(Path(sys.argv[1]), config=config) as ws:\n"
        "    assert ws.impact(diff='HEAD').changed\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(shop_repo), config.neo4j_uri, config.database_url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Exception ignored" not in done.stderr, done.stderr
