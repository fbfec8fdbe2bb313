"""branchgraph's Python API. The CLI (and later the HTTP and MCP servers) are thin adapters
over these functions; nothing here knows about click or terminals."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from branchgraph.config import Config
from branchgraph.graph.store import DEFAULT_QUERY_TIMEOUT_S, DEFAULT_ROW_LIMIT
from branchgraph.ingest import git
from branchgraph.ingest.embed import make_embedder
from branchgraph.ingest.pipeline import IngestSummary, Progress, ingest_branch, repo_name_for
from branchgraph.queries import NamedQuery, named_queries, named_query
from branchgraph.stores import open_graph_store, open_pg_store


@dataclass(frozen=True, slots=True)
class BranchStatus:
    """The index state of one branch."""

    repo: str
    branch: str
    indexed_commit: str
    indexed_at: str
    age_seconds: float
    head_commit: str | None  # None when the branch no longer exists in git
    behind_commits: int | None
    embedder: str
    counts: dict[str, Any]
    unresolved_rate: float | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _root_and_config(path: str | Path, config: Config | None) -> tuple[Path, Config]:
    root = git.repo_root(git.open_repo(path))
    return root, config or Config.load(root)


def ingest(
    path: str | Path = ".",
    *,
    branch: str | None = None,
    rev: str | None = None,
    base: str | None = None,
    full: bool = False,
    wait_for_lock: bool = True,
    config: Config | None = None,
    progress: Progress | None = None,
) -> IngestSummary:
    """Index a branch (or ``rev`` under the name ``branch``) of the repository at ``path``.

    An indexed branch is updated incrementally; a new one is cloned from the nearest indexed
    branch (or ``base``) when cheaper; ``full`` re-parses and rewrites every file. With
    ``wait_for_lock`` False, a concurrent ingest of the same branch raises ``IngestLocked``.
    """
    root, config = _root_and_config(path, config)
    embedder = make_embedder(
        config.embedder,
        openai_model=config.openai_model,
        dims=config.embedding_dims,
        api_key=config.openai_api_key,
        base_url=config.openai_base_url,
    )
    with open_graph_store(config) as graph, open_pg_store(config, root) as pg:
        return ingest_branch(
            root,
            graph,
            pg,
            embedder,
            branch=branch,
            rev=rev,
            base=base,
            full=full,
            wait_for_lock=wait_for_lock,
            max_file_bytes=config.max_file_bytes,
            progress=progress,
        )


def status(path: str | Path = ".", *, config: Config | None = None) -> list[BranchStatus]:
    """Every indexed branch of the repository: commit, age, lag behind the branch head, counts."""
    root, config = _root_and_config(path, config)
    repo = git.open_repo(root)
    now = datetime.now(timezone.utc)
    with open_pg_store(config, root) as pg:
        records = pg.branches(repo_name_for(root))
    out = []
    for r in records:
        head = git.branch_head(repo, r.branch)
        out.append(
            BranchStatus(
                repo=r.repo,
                branch=r.branch,
                indexed_commit=r.indexed_commit,
                indexed_at=r.indexed_at.isoformat(),
                age_seconds=round((now - r.indexed_at).total_seconds(), 1),
                head_commit=head,
                behind_commits=git.commits_between(repo, r.indexed_commit, head) if head else None,
                embedder=r.embedder,
                counts=r.counts,
                unresolved_rate=r.unresolved_rate,
            )
        )
    return out


def cypher(
    query: str,
    params: dict[str, Any] | None = None,
    *,
    config: Config | None = None,
    timeout_s: float = DEFAULT_QUERY_TIMEOUT_S,
    limit: int = DEFAULT_ROW_LIMIT,
) -> list[dict[str, Any]]:
    """Run a read-only Cypher query; a write is refused with ``ReadOnlyViolation``."""
    config = config or Config.load()
    with open_graph_store(config) as graph:
        return graph.read_query(query, params, timeout_s=timeout_s, limit=limit)


def list_queries() -> list[NamedQuery]:
    """The named queries shipped in ``cypher/``."""
    return list(named_queries().values())


def run_named_query(
    name: str,
    params: dict[str, Any] | None = None,
    *,
    config: Config | None = None,
    timeout_s: float = DEFAULT_QUERY_TIMEOUT_S,
    limit: int = DEFAULT_ROW_LIMIT,
) -> list[dict[str, Any]]:
    """Run a named query with its defaults filled in (read-only, like ``cypher``)."""
    query = named_query(name)
    return cypher(query.text, query.bind(params or {}), config=config, timeout_s=timeout_s, limit=limit)
