"""Typed configuration, read from the environment and an optional ``branchgraph.toml`` only
at entry points (CLI, API constructors) and passed down from there."""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from branchgraph.core.errors import ConfigError
from branchgraph.core.files import DEFAULT_MAX_FILE_BYTES

INDEX_DIR_NAME = ".branchgraph"

# Environment variable -> field. Environment wins over branchgraph.toml.
_ENV = {
    "BRANCHGRAPH_NEO4J_URI": "neo4j_uri",
    "BRANCHGRAPH_NEO4J_USER": "neo4j_user",
    "BRANCHGRAPH_NEO4J_PASSWORD": "neo4j_password",
    "BRANCHGRAPH_NEO4J_DATABASE": "neo4j_database",
    "BRANCHGRAPH_DATABASE_URL": "database_url",
    "BRANCHGRAPH_EMBEDDER": "embedder",
    "BRANCHGRAPH_OPENAI_MODEL": "openai_model",
    "BRANCHGRAPH_EMBEDDING_DIMS": "embedding_dims",
    "BRANCHGRAPH_MAX_FILE_BYTES": "max_file_bytes",
    "BRANCHGRAPH_INDEX_DIR": "index_dir",
    "OPENAI_API_KEY": "openai_api_key",
    "OPENAI_BASE_URL": "openai_base_url",
}


@dataclass(frozen=True, slots=True)
class Config:
    """Where the stores are and how to embed. Nothing configured: a private Neo4j and a private
    PostgreSQL, both with their data in the index directory (``.branchgraph/`` of the repository)."""

    neo4j_uri: str | None = None  # None: the managed Neo4j
    neo4j_user: str | None = None
    neo4j_password: str | None = None
    neo4j_database: str | None = None
    database_url: str | None = None
    embedder: str = "local"
    openai_model: str = "text-embedding-3-small"
    embedding_dims: int | None = None
    openai_api_key: str | None = dataclasses.field(default=None, repr=False)
    openai_base_url: str | None = None
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    index_dir: Path | None = None

    @classmethod
    def load(cls, repo_root: Path | None = None, environ: Mapping[str, str] | None = None) -> Config:
        """Defaults, then ``<repo_root>/branchgraph.toml``, then the environment."""
        environ = os.environ if environ is None else environ
        values: dict[str, object] = {}
        if repo_root is not None and (repo_root / "branchgraph.toml").is_file():
            values.update(_read_toml(repo_root / "branchgraph.toml"))
        for var, field_name in _ENV.items():
            if environ.get(var):
                values[field_name] = environ[var]
        return cls(**_coerce(values))

    def index_dir_for(self, repo_root: Path) -> Path:
        return Path(self.index_dir) if self.index_dir else repo_root / INDEX_DIR_NAME


def cache_root() -> Path:
    """Where branchgraph keeps what it builds or downloads once per user (the local model, the
    managed Neo4j's jars): ``BRANCHGRAPH_CACHE_DIR``, else ``$XDG_CACHE_HOME/branchgraph``."""
    base = os.environ.get("BRANCHGRAPH_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache")), "branchgraph"
    )
    return Path(base)


def _read_toml(path: Path) -> dict[str, object]:
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    known = {f.name for f in dataclasses.fields(Config)} - {"openai_api_key"}
    unknown = set(data) - known
    if unknown:
        raise ConfigError(f"{path}: unknown settings {', '.join(sorted(unknown))}; known: {', '.join(sorted(known))}")
    return data


def _coerce(values: dict[str, object]) -> dict[str, Any]:
    out = dict(values)
    for name in ("embedding_dims", "max_file_bytes"):
        if name in out and out[name] is not None:
            try:
                out[name] = int(str(out[name]))
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"{name} must be a whole number, got {out[name]!r}") from exc
    if out.get("index_dir"):
        out["index_dir"] = Path(str(out["index_dir"]))
    return out
