"""Open the stores a configuration names. The only place that picks backends."""

from __future__ import annotations

from pathlib import Path

from branchgraph.core.config import Config
from branchgraph.core.errors import ConfigError
from branchgraph.graph.embedded_postgres import start_embedded_postgres
from branchgraph.graph.neo4j_store import Neo4jGraphStore
from branchgraph.graph.pgstore import PgStore


def open_graph_store(config: Config) -> Neo4jGraphStore:
    return Neo4jGraphStore(config.neo4j_uri, config.neo4j_user, config.neo4j_password, config.neo4j_database)


def database_url(config: Config, repo_root: Path) -> str:
    """The configured PostgreSQL, or the embedded one in the index directory."""
    if config.database_url:
        return config.database_url
    index_dir = config.index_dir_for(repo_root)
    try:
        index_dir.mkdir(parents=True, exist_ok=True)
        # The index directory ignores itself, so it never shows up in `git status`.
        ignore = index_dir / ".gitignore"
        if not ignore.exists():
            ignore.write_text("*\n")
    except OSError as exc:
        raise ConfigError(
            f"cannot use {index_dir} as the index directory ({exc.strerror or exc}); "
            "set BRANCHGRAPH_INDEX_DIR to a writable folder, or BRANCHGRAPH_DATABASE_URL to a PostgreSQL server"
        ) from exc
    return start_embedded_postgres(index_dir / "postgres")


def open_pg_store(config: Config, repo_root: Path) -> PgStore:
    return PgStore(database_url(config, repo_root))
