"""Open the stores a configuration names. The only place that picks backends."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from branchgraph.core.config import Config, cache_root
from branchgraph.core.errors import ConfigError
from branchgraph.graph.embedded_postgres import start_embedded_postgres
from branchgraph.graph.managed_neo4j import DownloadProgress, start_managed_neo4j
from branchgraph.graph.neo4j_store import Neo4jGraphStore
from branchgraph.graph.pgstore import PgStore


def open_graph_store(config: Config, repo_root: Path, progress: DownloadProgress | None = None) -> Neo4jGraphStore:
    return Neo4jGraphStore(
        neo4j_uri(config, repo_root, progress), config.neo4j_user, config.neo4j_password, config.neo4j_database
    )


def neo4j_uri(config: Config, repo_root: Path, progress: DownloadProgress | None = None) -> str:
    """The configured Neo4j, or the managed one in the index directory (started if need be)."""
    if config.neo4j_uri:
        return config.neo4j_uri
    home = index_dir(config, repo_root) / "neo4j"
    return start_managed_neo4j(home, cache_root(), progress).uri


def database_url(config: Config, repo_root: Path) -> str:
    """The configured PostgreSQL, or the embedded one in the index directory."""
    if config.database_url:
        return config.database_url
    return start_embedded_postgres(index_dir(config, repo_root) / "postgres")


def index_dir(config: Config, repo_root: Path) -> Path:
    """The index directory, created (and ignoring itself) on first use."""
    folder = config.index_dir_for(repo_root)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # The index directory ignores itself, so it never shows up in `git status`.
        ignore = folder / ".gitignore"
        if not ignore.exists():
            ignore.write_text("*\n")
    except OSError as exc:
        raise ConfigError(
            f"cannot use {folder} as the index directory ({exc.strerror or exc}); "
            "set BRANCHGRAPH_INDEX_DIR to a writable folder, or BRANCHGRAPH_DATABASE_URL to a PostgreSQL server"
        ) from exc
    return folder


def open_pg_store(config: Config, repo_root: Path) -> PgStore:
    return PgStore(database_url(config, repo_root))


def service_config(config: Config) -> Config:
    """A configuration for processes that serve many repositories (``serve --workspace``,
    ``worker``): both stores named, the private ones in the workspace's index directory when
    none is configured, so every such process on the machine shares them."""
    if config.workspace_dir is None:
        raise ConfigError("no workspace: pass --workspace DIR or set BRANCHGRAPH_WORKSPACE")
    workspace = Path(config.workspace_dir).resolve()
    workspace.mkdir(parents=True, exist_ok=True)
    return dataclasses.replace(
        config,
        workspace_dir=workspace,
        database_url=database_url(config, workspace),
        neo4j_uri=neo4j_uri(config, workspace),
    )
