"""branchgraph's Python API. The CLI (and later the HTTP and MCP servers) are thin adapters
over these functions; nothing here knows about click or terminals."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from branchgraph.config import Config
from branchgraph.errors import NotIndexed
from branchgraph.graph.store import DEFAULT_QUERY_TIMEOUT_S, DEFAULT_ROW_LIMIT
from branchgraph.ingest import git
from branchgraph.ingest.embed import make_embedder
from branchgraph.ingest.pipeline import IngestSummary, Progress, ingest_branch, repo_name_for
from branchgraph.queries import NamedQuery, named_queries, named_query
from branchgraph.retrieval.search import SearchHit
from branchgraph.retrieval.search import search as search_entries
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


def _embedder(config: Config):
    return make_embedder(
        config.embedder,
        openai_model=config.openai_model,
        dims=config.embedding_dims,
        api_key=config.openai_api_key,
        base_url=config.openai_base_url,
    )


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
    # Stores first: a dead database fails at once, before a model is loaded or built.
    with open_graph_store(config) as graph, open_pg_store(config, root) as pg:
        return ingest_branch(
            root,
            graph,
            pg,
            _embedder(config),
            branch=branch,
            rev=rev,
            base=base,
            full=full,
            wait_for_lock=wait_for_lock,
            max_file_bytes=config.max_file_bytes,
            progress=progress,
        )


def ingest_all(
    path: str | Path = ".",
    *,
    remotes: bool = False,
    wait_for_lock: bool = True,
    config: Config | None = None,
    progress: Progress | None = None,
) -> list[IngestSummary]:
    """Index every local branch (and remote-tracking ones with ``remotes``), cheapest first:
    the branch whose commit differs least from an indexed commit goes first, so later ones
    can branch off it."""
    root, config = _root_and_config(path, config)
    repo = git.open_repo(root)
    name = repo_name_for(root)
    heads = git.branch_refs(repo, remotes=remotes)
    summaries = []
    with open_graph_store(config) as graph, open_pg_store(config, root) as pg:
        embedder = _embedder(config)
        pending = dict(heads)
        while pending:
            indexed = [r.indexed_commit for r in pg.branches(name) if git.commit_exists(repo, r.indexed_commit)]
            branch, commit = min(pending.items(), key=lambda item: _files_to_do(repo, item[1], indexed))
            del pending[branch]
            summaries.append(
                ingest_branch(
                    root,
                    graph,
                    pg,
                    embedder,
                    branch=branch,
                    rev=commit,
                    wait_for_lock=wait_for_lock,
                    max_file_bytes=config.max_file_bytes,
                    progress=progress,
                )
            )
    return summaries


def _files_to_do(repo, commit: str, indexed: list[str]) -> int:
    """Files an ingest of ``commit`` has to do: from scratch, or on the nearest indexed commit."""
    return min(git.diff_commits(repo, old, commit, detect_renames=False).count for old in [None, *indexed])


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


def search(
    query: str,
    *,
    path: str | Path = ".",
    branch: str | None = None,
    k: int = 10,
    mode: str = "hybrid",
    config: Config | None = None,
) -> list[SearchHit]:
    """The ``k`` best entry symbols of a branch for ``query``: vector and full-text search
    fused with reciprocal rank fusion, exact identifier matches boosted."""
    root, config = _root_and_config(path, config)
    branch = branch or git.current_branch(git.open_repo(root))
    name = repo_name_for(root)
    with open_graph_store(config) as graph, open_pg_store(config, root) as pg:
        record = pg.branch_record(name, branch)
        if record is None:
            raise NotIndexed(f"{name}@{branch} is not indexed; run `branchgraph ingest --branch {branch}` first")
        return search_entries(
            query, repo=name, branch=branch, pg=pg, graph=graph, embedder=_embedder(config), embedder_of_branch=record.embedder, k=k, mode=mode
        )


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


@dataclass(frozen=True, slots=True)
class PrunedBranch:
    branch: str
    reason: str  # "deleted in git" or "untouched for N days"
    nodes_deleted: int  # 0 on a dry run

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def prune(
    path: str | Path = ".",
    *,
    older_than: timedelta | None = None,
    deleted: bool = False,
    dry_run: bool = False,
    config: Config | None = None,
) -> list[PrunedBranch]:
    """Drop indexed branches that git no longer has (``deleted``) or that were not indexed for
    longer than ``older_than``. Shared caches (parsed blobs, embeddings) stay."""
    if older_than is None and not deleted:
        raise ValueError("prune needs a criterion: older_than, deleted, or both")
    root, config = _root_and_config(path, config)
    repo = git.open_repo(root)
    name = repo_name_for(root)
    in_git = set(git.branch_refs(repo, remotes=True))
    now = datetime.now(timezone.utc)
    pruned = []
    with open_graph_store(config) as graph, open_pg_store(config, root) as pg:
        for record in pg.branches(name):
            if deleted and record.branch not in in_git:
                reason = "deleted in git"
            elif older_than is not None and now - record.indexed_at > older_than:
                reason = f"untouched for {(now - record.indexed_at).days} days"
            else:
                continue
            nodes = 0
            if not dry_run:
                with pg.ingest_lock(name, record.branch):
                    nodes = graph.delete_branch(name, record.branch)
                    pg.delete_branch(name, record.branch)
            pruned.append(PrunedBranch(record.branch, reason, nodes))
    return pruned
