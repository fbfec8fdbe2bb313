"""Typed configuration, read from the environment and an optional ``branchgraph.toml`` only
at entry points (CLI, API constructors) and passed down from there."""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
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
    "BRANCHGRAPH_WORKSPACE": "workspace_dir",
    "BRANCHGRAPH_REMOTES": "remotes",
    "BRANCHGRAPH_RETENTION": "retention",
    "BRANCHGRAPH_WEBHOOK_SECRET": "webhook_secret",
    "BRANCHGRAPH_GITLAB_TOKEN": "gitlab_token",
}
# Secrets come from the environment only: a configuration file is read by more people and
# tools than a process's environment, and is often committed.
_SECRETS = frozenset({"openai_api_key", "webhook_secret", "gitlab_token"})
# A configuration file for a process that serves no one repository (`serve --workspace`,
# `worker`): read before the repository's own branchgraph.toml and the environment.
CONFIG_FILE_ENV = "BRANCHGRAPH_CONFIG"


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
    # Indexing as a service (`serve --workspace`, `worker`): where workers keep their mirrors,
    # the remotes they fetch (store key -> URL), how long an untouched branch is kept, and
    # what authenticates the git server's webhooks.
    workspace_dir: Path | None = None
    remotes: Mapping[str, str] = dataclasses.field(default_factory=dict)
    retention: str | None = None  # "7d": branches not indexed for that long are dropped
    webhook_secret: str | None = dataclasses.field(default=None, repr=False)
    gitlab_token: str | None = dataclasses.field(default=None, repr=False)

    @classmethod
    def load(cls, repo_root: Path | None = None, environ: Mapping[str, str] | None = None) -> Config:
        """Defaults, then ``<repo_root>/branchgraph.toml``, then the environment."""
        environ = os.environ if environ is None else environ
        values: dict[str, object] = {}
        if environ.get(CONFIG_FILE_ENV):
            values.update(_read_toml(Path(environ[CONFIG_FILE_ENV])))
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
    known = {f.name for f in dataclasses.fields(Config)} - _SECRETS
    secrets = set(data) & _SECRETS
    if secrets:
        raise ConfigError(
            f"{path}: {', '.join(sorted(secrets))} must not be kept in a file; set "
            + ", ".join(var for var, name in _ENV.items() if name in secrets)
            + " in the environment instead"
        )
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
    for name in ("index_dir", "workspace_dir"):
        if out.get(name):
            out[name] = Path(str(out[name]))
    if "remotes" in out:
        out["remotes"] = _remotes(out["remotes"])
    if out.get("retention"):
        parse_age(str(out["retention"]))  # refused now, not at the first periodic run
    return out


def _remotes(value: object) -> dict[str, str]:
    """Store key -> git URL, from a TOML table or ``name=url,name=url`` in the environment."""
    if isinstance(value, str):
        pairs = [item.split("=", 1) for item in value.split(",") if item.strip()]
        if any(len(pair) != 2 for pair in pairs):
            raise ConfigError(f"remotes must be name=url pairs separated by commas; got {value!r}")
        value = {name.strip(): url.strip() for name, url in pairs}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ConfigError(f"remotes must map repository names to git URLs; got {value!r}")
    for name in value:
        if not name or "/" in name or name.startswith("."):
            raise ConfigError(f"remote name {name!r} must be a plain name (it names the mirror folder and the index)")
    return dict(value)


_AGE_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_age(text: str) -> timedelta:
    """``30m``, ``12h``, ``7d``, ``2w`` as a duration."""
    number, unit = text[:-1], text[-1:]
    if unit not in _AGE_UNITS or not number.isdigit():
        raise ConfigError(f"expected a number and a unit (m, h, d, w), e.g. 7d; got {text!r}")
    return timedelta(seconds=int(number) * _AGE_UNITS[unit])
