"""branchgraph's Python API. The CLI, the HTTP API, the MCP server and the git hooks are thin
adapters over these functions and ``Workspace``; nothing here knows about click, HTTP or
terminals. This is the only module (with ``stores``, which picks the backends) that wires
ingest and retrieval to the stores."""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from dulwich.graph import find_merge_base
from dulwich.repo import Repo

from branchgraph.core import git
from branchgraph.core.collector import collector_paused
from branchgraph.core.config import Config, cache_root, parse_age
from branchgraph.core.embed import Embedder, make_embedder
from branchgraph.core.errors import AmbiguousRepository, BranchNotIndexed, ConfigError, GitError, NotIndexed
from branchgraph.core.model import SymbolText
from branchgraph.doctor import Check, run_checks
from branchgraph.graph.embedded_postgres import embedded_postgres_status, stop_embedded_postgres
from branchgraph.graph.managed_neo4j import locked_jars, managed_server, start_managed_neo4j, stop_managed_neo4j
from branchgraph.graph.named_queries import NamedQuery, named_queries
from branchgraph.graph.neo4j_store import Neo4jGraphStore as GraphStore
from branchgraph.graph.pgstore import PgStore
from branchgraph.graph.protocols import (
    DEFAULT_QUERY_TIMEOUT_S,
    DEFAULT_ROW_LIMIT,
    READ_WAIT_S,
    BranchRecord,
    GraphReader,
    IndexState,
    PushState,
)
from branchgraph.impact.analysis import ImpactReport, analyze, definitions_by_qualname
from branchgraph.impact.branch_diff import BranchDiff, diff_branches
from branchgraph.impact.changes import (
    MODIFIED,
    ChangedSymbol,
    added_lines,
    changed_symbols,
    diff_files,
    worktree_files,
)
from branchgraph.impact.check import Finding, to_sarif, to_text, unresolved_in
from branchgraph.impact.render import diff_markdown, diff_mermaid, to_markdown, to_mermaid
from branchgraph.impact.state_memo import StateMemo, memo_for
from branchgraph.impact.state_memo import forget as forget_state
from branchgraph.impact.test_selection import read_test_files_ahead
from branchgraph.ingest import coverage as coverage_evidence
from branchgraph.ingest.coverage import CoverageImport
from branchgraph.ingest.on_the_fly import symbols_at
from branchgraph.ingest.pipeline import (
    IngestOptions,
    IngestStores,
    IngestSummary,
    Progress,
    ingest_branch,
)
from branchgraph.ingest.repo_keys import recorded_key, repo_key, repo_name_for
from branchgraph.retrieval.compare import ComparedContext, compare_contexts
from branchgraph.retrieval.context import (
    DEFAULT_BUDGET_TOKENS,
    DEFAULT_ENTRIES,
    ContextResult,
    Observer,
    build_context,
)
from branchgraph.retrieval.overlay import Overlay, overlay_context
from branchgraph.retrieval.ranking import PathRecency
from branchgraph.retrieval.search import SearchHit
from branchgraph.retrieval.search import search as search_entries
from branchgraph.retrieval.session import IndexedBranch, RetrievalStores
from branchgraph.retrieval.source import BranchSources, FileTextCache, Span
from branchgraph.stores import index_dir, open_graph_store, open_pg_store

# What a remote caller (HTTP, MCP) may ask for at most: past these an answer costs the
# server more than any agent can read (a 10^9 row limit once returned 300,000 rows).
MAX_BUDGET_TOKENS = 200_000
MAX_ENTRIES = 50
MAX_K = 200
MAX_DEPTH = 5
MAX_REMOTE_ROWS = 1_000
# A branch not indexed yet is answered by reading the files it changed; past this many, an
# answer would cost about what its ingest does.
MAX_OVERLAY_FILES = 300
# Overlays of unindexed branch heads a workspace keeps (a server answers several questions on one).
_OVERLAYS_KEPT = 16

# What the adapters need besides the functions below; they import nothing else.
__all__ = [
    "DEFAULT_BUDGET_TOKENS",
    "DEFAULT_ENTRIES",
    "DEFAULT_QUERY_TIMEOUT_S",
    "DEFAULT_ROW_LIMIT",
    "MAX_BUDGET_TOKENS",
    "MAX_DEPTH",
    "MAX_ENTRIES",
    "MAX_K",
    "MAX_REMOTE_ROWS",
    "BranchStatus",
    "Check",
    "ComparedContext",
    "Config",
    "ContextResult",
    "Finding",
    "Indexer",
    "IngestSummary",
    "NamedQuery",
    "Progress",
    "PrunedBranch",
    "SearchHit",
    "Workspace",
    "check",
    "compare",
    "context",
    "cypher",
    "diff",
    "diff_markdown",
    "diff_mermaid",
    "doctor",
    "git_hooks_dir",
    "impact",
    "ingest",
    "ingest_all",
    "list_queries",
    "parse_age",
    "prune",
    "run_named_query",
    "search",
    "services",
    "start_services",
    "status",
    "stop_services",
    "to_markdown",
    "to_mermaid",
    "to_sarif",
    "to_text",
]


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
    # Set when the two stores disagree (the graph lost the branch or some files, or holds a
    # branch PostgreSQL has no record of): the next ingest of the branch repairs it.
    problem: str | None = None
    # From the push log, for branches a git server reports by webhook (`serve`, `worker`).
    last_push_at: str | None = None
    indexed_after_push_s: float | None = None  # push-to-indexed time of the newest indexed push
    pending_pushes: int = 0  # pushes no ingest has covered yet
    pending_commits: int = 0
    waiting_s: float | None = None  # how long the oldest of them has waited

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _root_and_config(path: str | Path, config: Config | None) -> tuple[Path, Config]:
    root = git.repo_root(git.open_repo(path))
    return root, config or Config.load(root)


def git_hooks_dir(path: str | Path = ".") -> Path:
    """Where git looks for the hooks of the repository at or above ``path``."""
    return Path(git.open_repo(path).controldir()) / "hooks"


def _key(root: Path, repo: Repo, pg: IndexState) -> str:
    """The key the repository at ``root`` is (or will be) stored under."""
    return repo_key(root, repo, pg.branches())


def _embedder(config: Config) -> Embedder | None:
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
    name: str | None = None,
    config: Config | None = None,
    progress: Progress | None = None,
) -> IngestSummary:
    """Index a branch (or ``rev`` under the name ``branch``) of the repository at ``path``.

    An indexed branch is updated incrementally; a new one is cloned from the nearest indexed
    branch (or ``base``) when cheaper; ``full`` re-parses and rewrites every file. With
    ``wait_for_lock`` False, a concurrent ingest of the same branch raises ``IngestLocked``.
    ``name`` is the key the repository is stored under (default: its folder's name).
    """
    root, config = _root_and_config(path, config)
    # Stores first: a dead database fails at once, before a model is loaded or built.
    options = IngestOptions(
        branch=branch,
        rev=rev,
        base=base,
        full=full,
        wait_for_lock=wait_for_lock,
        max_file_bytes=config.max_file_bytes,
        repo_name=name,
    )
    with open_pg_store(config, root) as pg, open_graph_store(config, root, progress) as graph:
        return ingest_branch(root, IngestStores(graph, pg, _embedder(config)), options, progress)


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
    heads = git.branch_refs(repo, remotes=remotes)
    summaries = []
    with open_pg_store(config, root) as pg, open_graph_store(config, root, progress) as graph:
        name = _key(root, repo, pg)
        stores = IngestStores(graph, pg, _embedder(config))
        pending = dict(heads)
        while pending:
            indexed = [r.indexed_commit for r in pg.branches(name) if git.commit_exists(repo, r.indexed_commit)]
            branch, commit = min(pending.items(), key=lambda item: _files_to_do(repo, item[1], indexed))
            del pending[branch]
            options = IngestOptions(
                branch=branch,
                rev=commit,
                repo_name=name,
                wait_for_lock=wait_for_lock,
                max_file_bytes=config.max_file_bytes,
            )
            summaries.append(ingest_branch(root, stores, options, progress))
    return summaries


def _files_to_do(repo: Repo, commit: str, indexed: list[str]) -> int:
    """Files an ingest of ``commit`` has to do: from scratch, or on the nearest indexed commit."""
    return min(git.diff_commits(repo, old, commit, detect_renames=False).count for old in [None, *indexed])


def status(path: str | Path = ".", *, config: Config | None = None) -> list[BranchStatus]:
    """Every indexed branch of the repository: commit, age, lag behind the branch head, counts."""
    root, config = _root_and_config(path, config)
    with open_pg_store(config, root) as pg, open_graph_store(config, root) as graph:
        return _statuses(root, graph, pg)


def _statuses(root: Path, graph: GraphReader, pg: PgStore) -> list[BranchStatus]:
    repo = git.open_repo(root)
    now = datetime.now(UTC)
    out = []
    name = _key(root, repo, pg)
    in_graph = graph.branch_file_counts(name)
    pushes = pg.push_states(name)
    for r in pg.branches(name):
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
                problem=_disagreement(r.branch, r.counts.get("files", 0), in_graph.pop(r.branch, 0)),
                **_push_fields(pushes.pop(r.branch, None), now),
            )
        )
    for branch, files in sorted(in_graph.items()):
        problem = (
            f"the graph holds {files} files of this branch but PostgreSQL has no record of it (an ingest "
            f"running or crashed, or a store restored apart): `branchgraph ingest --branch {branch}` repairs it"
        )
        out.append(_unrecorded(repo, name, branch, {"files": files}, problem, pushes.pop(branch, None), now))
    for branch, state in sorted(pushes.items()):  # pushed, not indexed yet
        out.append(_unrecorded(repo, name, branch, {}, None, state, now))
    return out


def _unrecorded(
    repo: Repo,
    name: str,
    branch: str,
    counts: dict[str, Any],
    problem: str | None,
    push: PushState | None,
    now: datetime,
) -> BranchStatus:
    """The status of a branch PostgreSQL has no record of."""
    return BranchStatus(
        repo=name,
        branch=branch,
        indexed_commit="",
        indexed_at="",
        age_seconds=0.0,
        head_commit=git.branch_head(repo, branch),
        behind_commits=None,
        embedder="",
        counts=counts,
        unresolved_rate=None,
        problem=problem,
        **_push_fields(push, now),
    )


def _push_fields(state: PushState | None, now: datetime) -> dict[str, Any]:
    if state is None:
        return {}
    return {
        "last_push_at": state.last_push_at.isoformat(),
        "indexed_after_push_s": None if state.last_lag_s is None else round(state.last_lag_s, 1),
        "pending_pushes": state.pending_pushes,
        "pending_commits": state.pending_commits,
        "waiting_s": None
        if state.oldest_pending_at is None
        else round((now - state.oldest_pending_at).total_seconds(), 1),
    }


def _disagreement(branch: str, recorded: int, stored: int) -> str | None:
    if recorded == stored:
        return None
    return (
        f"PostgreSQL records {recorded} files of this branch but the graph holds {stored} "
        f"(a store wiped or restored apart): `branchgraph ingest --branch {branch}` repairs it"
    )


class _OpenStores:
    """Both stores open and the embedder loaded on first use, for the objects that serve many
    calls (``Workspace``, ``Indexer``)."""

    def __init__(self, config: Config, anchor: Path):
        self.config = config
        # Stores first: a dead database fails at once, before a model is loaded. PostgreSQL
        # before Neo4j: a bad database URL fails in a second, before a managed Neo4j starts.
        self.pg = open_pg_store(config, anchor)
        try:
            self.graph = open_graph_store(config, anchor)
        except BaseException:
            self.pg.close()
            raise
        self._embedder: Embedder | None = None
        self._embedder_loaded = False
        self._embedder_lock = threading.Lock()

    def close(self) -> None:
        self.graph.close()
        self.pg.close()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def embedder(self) -> Embedder | None:
        with self._embedder_lock:  # concurrent first calls load the model once
            if not self._embedder_loaded:
                self._embedder = _embedder(self.config)
                self._embedder_loaded = True
        return self._embedder


class Workspace(_OpenStores):
    """Open stores and a loaded embedder, kept for many queries: the HTTP and MCP servers and
    the benchmarks hold one; the module-level functions open one per call.

    It serves the repository at ``path`` and any other repository the index knows (by path
    or name); a path the index has never seen is refused, so no request can make it read
    files outside an indexed repository.
    """

    def __init__(self, path: str | Path | None = ".", *, config: Config | None = None):
        # No path: a server of a worker workspace (``serve --workspace``), with no repository of
        # its own; every request names one among the indexed ones.
        self.root: Path | None
        if path is None:
            self.root, self.config = None, config or Config.load()
            anchor = Path(self.config.workspace_dir or ".")
        else:
            self.root, self.config = _root_and_config(path, config)
            anchor = self.root
        super().__init__(self.config, anchor)
        self._anchor = anchor
        self._recency = PathRecency(self.pg)
        self._file_texts = FileTextCache()
        self.read_wait_s = READ_WAIT_S
        # Opened once per thread (a pack file reader seeks, so threads must not share one);
        # dulwich re-reads refs on every lookup, so a kept Repo still sees new commits.
        self._git_repos = threading.local()
        # Every thread's, so that closing the workspace closes their pack files (left to the
        # garbage collector, dulwich's finalisers fail noisily at interpreter exit).
        self._opened_repos: list[Repo] = []
        self._opened_lock = threading.Lock()
        # Keys of repositories indexed before: they never change, so a request need not list
        # every branch record to find its repository's key.
        self._recorded_keys: dict[Path, str] = {}
        # Set by a service (``serve --workspace``): fetch a repository's mirror when a branch
        # asked for is unknown, and enqueue the ingest of a branch asked for and not indexed
        # (returns what to tell the caller).
        self.on_unknown_branch: Callable[[str], None] | None = None
        self.on_unindexed: Callable[[str, str], str | None] | None = None
        self._overlays: dict[tuple[object, ...], tuple[Overlay, str | None]] = {}
        self._overlays_lock = threading.Lock()

    def __enter__(self) -> Workspace:
        return self

    @property
    def managed_graph_dir(self) -> Path | None:
        """Where the managed Neo4j keeps its data, when branchgraph runs it (/metrics sizes it);
        asked at each scrape, not at start-up: most workspaces never serve /metrics."""
        managed = self.config.index_dir_for(self._anchor) / "neo4j"
        return managed if managed_server(managed) is not None else None

    @property
    def _stores(self) -> RetrievalStores:
        return RetrievalStores(self.graph, self.pg, self.embedder)

    def _git(self, root: Path) -> Repo:
        repos: dict[Path, Repo] = self._git_repos.__dict__.setdefault("by_root", {})
        if root not in repos:
            repos[root] = git.open_repo(root)
            with self._opened_lock:
                self._opened_repos.append(repos[root])
        return repos[root]

    def close(self) -> None:
        with self._opened_lock:
            opened, self._opened_repos = self._opened_repos, []
        for repo in opened:
            repo.close()
        super().close()

    def _key(self, root: Path) -> str:
        """The key the repository at ``root`` is stored under."""
        if root in self._recorded_keys:
            return self._recorded_keys[root]
        records = self.pg.branches()
        recorded = recorded_key(root, records)
        if recorded is not None:
            self._recorded_keys[root] = recorded
        return recorded or repo_key(root, self._git(root), records)

    def repositories(self) -> dict[str, Path]:
        """Indexed repository key -> its path."""
        records = self.pg.branches()
        known = {r.repo: Path(r.repo_path) for r in records}
        if self.root is not None:
            known.setdefault(repo_key(self.root, self._git(self.root), records), self.root)
        return known

    def resolve_repo(self, repo: str | None) -> Path:
        """The root of an indexed repository named by key, folder name or path (None: the
        workspace's). A folder name two indexed repositories share is refused as ambiguous."""
        if repo is None and self.root is not None:
            return self.root
        known = self.repositories()
        if repo is None:
            if len(known) == 1:
                return next(iter(known.values()))
            raise NotIndexed(
                "no repository is indexed here yet" if not known else "this server holds several repositories: name one"
            )
        named = sorted(key for key, root in known.items() if repo_name_for(root) == repo or key == repo)
        if len(named) > 1:
            raise AmbiguousRepository(
                f"{repo!r} names {len(named)} indexed repositories ({', '.join(named)}); pass a key or a path"
            )
        if named:
            return known[named[0]]
        candidate = Path(repo).expanduser().resolve()
        for root in known.values():
            if candidate == root.resolve():
                return root
        # The names of the other indexed repositories are not the caller's to learn (the HTTP
        # and MCP servers pass this message on).
        raise NotIndexed(f"{repo!r} is not an indexed repository")

    @contextlib.contextmanager
    def reading(self, repo: str | None = None, branch: str | None = None) -> Iterator[_BranchSession]:
        """An indexed branch held still for one answer: an ingest's writes to it wait until the
        answer is read, and one running already is waited for (up to ``read_wait_s``; past that
        the session says the answer may mix two commits)."""
        root = self.resolve_repo(repo)
        git_repo = self._git(root)
        branch = branch or git.current_branch(git_repo)
        name = self._key(root)
        with self.pg.reading(name, branch, self.read_wait_s) as still:
            record = self.pg.branch_record(name, branch)
            if record is None and git.branch_head(git_repo, branch) is None and self.on_unknown_branch is not None:
                self.on_unknown_branch(name)  # a mirror may not have fetched a branch just pushed
            if record is None and git.branch_head(git_repo, branch) is None:
                raise NotIndexed(f"{name} has no branch {branch!r}, in git or in the index")
            if record is None:
                raise BranchNotIndexed(
                    f"{name}@{branch} is not indexed; run `branchgraph ingest --branch {branch}` first",
                    root,
                    name,
                    branch,
                )
            yield _BranchSession(root, git_repo, name, branch, record, still)

    def search(
        self, query: str, *, repo: str | None = None, branch: str | None = None, k: int = 10, mode: str = "hybrid"
    ) -> list[SearchHit]:
        with self.reading(repo, branch) as s:
            return search_entries(query, s.indexed(), self._stores, k=k, mode=mode)

    def context(
        self,
        query: str,
        *,
        repo: str | None = None,
        branch: str | None = None,
        budget_tokens: int = DEFAULT_BUDGET_TOKENS,
        entries: int = DEFAULT_ENTRIES,
        observe: Observer | None = None,
    ) -> ContextResult:
        """See ``context``; ``observe`` is called with every ranked candidate and its
        learned-ranker features (``bench/fit_ranker.py`` fits the model from them). A branch
        git has and the index does not is answered from its nearest indexed base, overlaid
        with the files it changed (``retrieval/overlay.py``)."""
        try:
            return self._context(query, repo, branch, budget_tokens, entries, observe)
        except BranchNotIndexed as missing:
            return self._overlay_context(query, repo, missing, budget_tokens, entries)

    def _context(
        self,
        query: str,
        repo: str | None,
        branch: str | None,
        budget_tokens: int,
        entries: int,
        observe: Observer | None,
    ) -> ContextResult:
        with self.reading(repo, branch) as s:
            sources = BranchSources(s.repo, s.root, s.name, s.branch, self.pg, self._file_texts)
            result = build_context(
                query,
                s.indexed(with_lag=True),
                self._stores,
                sources,
                self._recency,
                budget_tokens=budget_tokens,
                entries=entries,
                observe=observe,
            )
        if not s.still:
            result.warnings.append(
                f"an ingest kept writing {s.name}@{s.branch} for over {self.read_wait_s:g} s while this was read: "
                f"items may come from its new commit as well as {s.record.indexed_commit[:12]}"
            )
        return result

    def _overlay_context(
        self, query: str, repo: str | None, missing: BranchNotIndexed, budget_tokens: int, entries: int
    ) -> ContextResult:
        overlay, queued = self._overlay(missing)
        answer = self._context(query, repo, overlay.base_branch, budget_tokens, entries, None)
        result = overlay_context(query, answer, overlay, self.embedder, budget_tokens)
        result.warnings.append(queued or f"run `branchgraph ingest --branch {missing.branch}` to index it")
        return result

    def _overlay(self, missing: BranchNotIndexed) -> tuple[Overlay, str | None]:
        """The branch as its nearest indexed base overlaid with the files it changed; and what
        the service said about queueing its ingest (None: no service). Kept per branch head
        and indexed bases: a comparison asks for it again, and must not queue twice."""
        git_repo = self._git(Path(str(missing.root)))
        head = git.branch_head(git_repo, missing.branch)
        bases = [r for r in self.pg.branches(missing.name) if git.commit_exists(git_repo, r.indexed_commit)]
        if head is None or not bases:
            raise missing
        key = (missing.name, missing.branch, head, tuple(sorted((r.branch, r.indexed_commit) for r in bases)))
        with self._overlays_lock:
            known = self._overlays.get(key)
        if known is None:
            known = self._new_overlay(git_repo, missing, head, bases)
            with self._overlays_lock:
                if len(self._overlays) >= _OVERLAYS_KEPT:
                    self._overlays.pop(next(iter(self._overlays)))
                self._overlays[key] = known
        return known

    def _new_overlay(
        self, git_repo: Repo, missing: BranchNotIndexed, head: str, bases: list[BranchRecord]
    ) -> tuple[Overlay, str | None]:
        # The nearest base by a count without rename detection (cheap); renames for it only.
        base = min(
            bases,
            key=lambda r: (git.diff_commits(git_repo, r.indexed_commit, head, detect_renames=False).count, r.branch),
        )
        diff = git.diff_commits(git_repo, base.indexed_commit, head)
        changed = {*diff.added, *diff.modified, *diff.renamed.values()}
        queued = self.on_unindexed(missing.name, missing.branch) if self.on_unindexed else None
        if len(changed) > MAX_OVERLAY_FILES:
            raise NotIndexed(
                f"{missing.name}@{missing.branch} is not indexed and changed {len(changed)} files since "
                f"{base.branch}, more than {MAX_OVERLAY_FILES} to read on the fly; "
                + (queued or f"run `branchgraph ingest --branch {missing.branch}`")
            )
        symbols = symbols_at(git_repo, head, changed, missing.name, missing.branch, self.config.max_file_bytes)
        hidden = frozenset({*changed, *diff.deleted, *diff.renamed})
        return Overlay(missing.branch, head, base.branch, base.indexed_commit, hidden, symbols), queued

    def compare(
        self,
        query: str,
        *,
        compare: str,
        repo: str | None = None,
        branch: str | None = None,
        budget_tokens: int = DEFAULT_BUDGET_TOKENS,
        entries: int = DEFAULT_ENTRIES,
    ) -> ComparedContext:
        """``context`` on ``branch`` (HEAD) with each item beside its version on ``compare``
        (BASE) where they differ, and what only one of them has."""
        head = self.context(query, repo=repo, branch=branch, budget_tokens=budget_tokens, entries=entries)
        base = self.context(query, repo=repo, branch=compare, budget_tokens=budget_tokens, entries=entries)
        return compare_contexts(head, base, self._lookup(repo, head.branch), self._lookup(repo, compare))

    def _lookup(self, repo: str | None, branch: str) -> Callable[[Sequence[str]], dict[str, SymbolText]]:
        """Symbols of a branch by qualified name, with their text (an unindexed branch: its
        base's, with the files it changed read from git)."""

        def indexed(qualnames: Sequence[str], on: str) -> dict[str, SymbolText]:
            if not qualnames:
                return {}
            with self.reading(repo, on) as s:
                rows = self.graph.named_query(
                    "symbols_named", {"repo": s.name, "branch": s.branch, "qualnames": list(qualnames)}
                )
                out: dict[str, SymbolText] = {}
                for qualname, definitions in definitions_by_qualname(rows).items():
                    for r in definitions:  # the implementation before its stub
                        found = self._symbol(s, r["id"])  # its text as indexed, relocated if the file drifted
                        if found is not None:
                            out[qualname] = SymbolText(
                                r["id"], r["kind"], qualname, r["path"],
                                found["start_line"], found["end_line"], found["text"] or "",
                            )  # fmt: skip
                            break
                return out

        def lookup(qualnames: Sequence[str]) -> dict[str, SymbolText]:
            try:
                return indexed(qualnames, branch)
            except BranchNotIndexed as missing:
                overlay, _ = self._overlay(missing)
            mine = {s.qualname: s for s in overlay.symbols if s.qualname in set(qualnames)}
            inherited = indexed([q for q in qualnames if q not in mine], overlay.base_branch)
            return {**{q: v for q, v in inherited.items() if v.path not in overlay.hidden}, **mine}

        return lookup

    def named(
        self,
        name: str,
        params: dict[str, Any],
        *,
        repo: str | None = None,
        branch: str | None = None,
        limit: int = DEFAULT_ROW_LIMIT,
    ) -> list[dict[str, Any]]:
        """A named query on an indexed branch (``repo`` and ``branch`` filled in)."""
        with self.reading(repo, branch) as s:
            return self.graph.named_query(name, {**params, "repo": s.name, "branch": s.branch}, limit=limit)

    def cypher(
        self, query: str, params: dict[str, Any] | None = None, *, limit: int = DEFAULT_ROW_LIMIT
    ) -> list[dict[str, Any]]:
        """A read-only Cypher query (``ReadOnlyViolation`` for anything that writes)."""
        return self.graph.read_query(query, params or {}, limit=limit)

    def symbol(self, node_id: str, *, repo: str | None = None, branch: str | None = None) -> dict[str, Any] | None:
        """One symbol by id with its text as indexed (or relocated, when its file drifted)."""
        with self.reading(repo, branch) as s:
            return self._symbol(s, node_id)

    def _symbol(self, s: _BranchSession, node_id: str) -> dict[str, Any] | None:
        row = self.graph.symbol(s.name, s.branch, node_id)
        if row is None:
            return None
        sources = BranchSources(s.repo, s.root, s.name, s.branch, self.pg, self._file_texts)
        source = sources.file(row["path"])
        span = Span(row["start_line"], row["end_line"])
        row["stale"] = bool(source and source.drifted)
        if source is not None and source.drifted:
            relocated = source.relocate(row["qualname"], span)
            if relocated is None:
                source = sources.indexed_copy(row["path"])
            else:
                span = relocated
        row.update(start_line=span.start_line, end_line=span.end_line, text=source.text(span) if source else None)
        row["warnings"] = sources.warnings
        return row

    def impact(
        self,
        *,
        repo: str | None = None,
        branch: str | None = None,
        symbols: list[str] | None = None,
        diff: str | None = None,
        staged: bool = False,
        worktree: bool = False,
        depth: int = 3,
    ) -> ImpactReport:
        """See ``impact``."""
        if sum(bool(x) for x in (symbols, diff, staged, worktree)) != 1:
            raise ValueError("name the change one way: symbols, diff, staged or worktree")
        if not 1 <= depth <= IMPACT_MAX_DEPTH:
            raise ValueError(f"depth must be between 1 and {IMPACT_MAX_DEPTH}; got {depth}")
        with self.reading(repo, branch) as s, collector_paused():
            memo = s.memo()
            read_test_files_ahead(self.graph, s.name, s.branch, memo)
            if symbols:
                changes = _named_changes(self, s, symbols)
            elif diff:
                base, head = _diff_range(s.repo, diff)
                changes = changed_symbols(diff_files(s.repo, base, head), self.pg)
            else:
                changes = changed_symbols(worktree_files(s.repo, s.root, staged=staged), self.pg)
            indexed = git.commit_object(s.repo, s.record.indexed_commit)
            return analyze(
                self.graph,
                s.name,
                s.branch,
                s.record.indexed_commit,
                changes,
                depth,
                memo,
                lambda path: git.blob_at(s.repo, indexed, path),
            )

    def check(
        self,
        *,
        repo: str | None = None,
        branch: str | None = None,
        diff: str | None = None,
        files: list[str] | None = None,
    ) -> list[Finding]:
        """See ``check``."""
        if bool(diff) == bool(files):
            raise ValueError("check a diff or some files (one of the two)")
        with self.reading(repo, branch) as s:
            lines: dict[str, set[int] | None]
            if diff:
                base, head = _diff_range(s.repo, diff)
                if head != s.record.indexed_commit:
                    raise NotIndexed(
                        f"{s.name}@{s.branch} is indexed at {s.record.indexed_commit[:12]}, not at the diff's head "
                        f"{head[:12]}: ingest it there first (`branchgraph ingest --branch {s.branch} --rev {head[:12]}`)"
                    )
                lines = dict(added_lines(diff_files(s.repo, base, head)))
            else:
                lines = {_repo_relative(s.root, f): None for f in files or []}
            return unresolved_in(self.graph, s.name, s.branch, lines)

    def import_coverage(
        self,
        report: str | Path,
        *,
        repo: str | None = None,
        branch: str | None = None,
        progress: Progress | None = None,
    ) -> CoverageImport:
        """See ``import_coverage``."""
        lines = coverage_evidence.read_report(Path(report))
        return self._import_coverage(str(report), lines, repo, branch, progress)

    def _import_coverage(
        self,
        report: str,
        lines: dict[str, dict[int, list[str]]],
        repo: str | None,
        branch: str | None,
        progress: Progress | None = None,
    ) -> CoverageImport:
        root = self.resolve_repo(repo)
        name, branch = self._key(root), branch or git.current_branch(self._git(root))
        # No ingest of the branch runs meanwhile; readers wait only for the write itself.
        with self.pg.ingest_lock(name, branch):
            with self.reading(repo, branch) as s:
                pass  # the branch is indexed (else a clear error)
            with self.pg.writing(name, branch):
                done = coverage_evidence.import_coverage(
                    self.graph,
                    self.graph,
                    name,
                    branch,
                    s.root,
                    report,
                    lines,
                    (lambda written, total: progress(COVERAGE_STAGE, written, total)) if progress else None,
                )
                # The record names the evidence, so that every process's kept impact reads
                # (``memo``) start again, as after an ingest.
                self.pg.record_branch(replace(s.record, counts={**s.record.counts, _COVERAGE_RUN: done.run}))
        forget_state(name, branch)
        return done

    def diff(self, base: str, head: str, *, repo: str | None = None) -> BranchDiff:
        """See ``diff``."""
        with self.reading(repo, base) as b, self.reading(repo, head) as h:
            return diff_branches(self.graph, b.name, b.branch, h.branch, h.memo())

    def status(self, repo: str | None = None) -> list[BranchStatus]:
        return _statuses(self.resolve_repo(repo), self.graph, self.pg)


class Indexer(_OpenStores):
    """Open stores and a loaded embedder kept for many ingests: a worker holds one and runs
    its jobs on it, from several threads at once (the stores pool their connections)."""

    def __init__(self, config: Config, root: Path):
        self.root = root
        super().__init__(config, root)

    def __enter__(self) -> Indexer:
        return self

    def ingest(self, path: Path, *, branch: str, name: str, progress: Progress | None = None) -> IngestSummary:
        """Index the tip of ``branch`` of the repository at ``path`` under the key ``name``."""
        options = IngestOptions(branch=branch, repo_name=name, max_file_bytes=self.config.max_file_bytes)
        return ingest_branch(path, IngestStores(self.graph, self.pg, self.embedder), options, progress)

    def drop(self, name: str, branch: str) -> int:
        """Drop one branch of the repository stored as ``name``; the graph nodes deleted."""
        return drop_branch_with(self.graph, self.pg, name, branch)

    def prune(self, path: Path, name: str, *, older_than: timedelta, keep: Collection[str]) -> list[PrunedBranch]:
        return prune_with(self.graph, self.pg, path, older_than=older_than, deleted=True, keep=keep, name=name)


# The branch record's entry naming the coverage evidence imported last (``import_coverage``).
_COVERAGE_RUN = "coverage_run"
COVERAGE_STAGE = "coverage"  # the stage ``import_coverage``'s progress names


@dataclass
class _BranchSession:
    root: Path
    repo: Repo
    name: str
    branch: str
    record: BranchRecord
    still: bool = True  # False: an ingest was writing the branch while it was read

    def memo(self) -> StateMemo:
        """What impact analysis read of the branch in this indexed state (its commit, and when it
        was indexed), kept until the branch is indexed again (``impact/state_memo.py``)."""
        state = f"{self.record.indexed_commit} {self.record.indexed_at.isoformat()}"
        return memo_for(self.name, self.branch, f"{state} {self.record.counts.get(_COVERAGE_RUN, '')}")

    def indexed(self, with_lag: bool = False) -> IndexedBranch:
        """The branch as retrieval sees it; ``with_lag`` counts the commits the branch head is
        ahead of the index (a history walk, so only where the answer reports it)."""
        behind = None
        if with_lag:
            head = git.branch_head(self.repo, self.branch)
            behind = git.commits_between(self.repo, self.record.indexed_commit, head) if head else None
        return IndexedBranch(self.name, self.branch, self.record.indexed_commit, self.record.embedder, behind)


def search(
    query: str,
    repo: str | Path = ".",
    *,
    branch: str | None = None,
    k: int = 10,
    mode: str = "hybrid",
    config: Config | None = None,
) -> list[SearchHit]:
    """The ``k`` best entry symbols of a branch for ``query``: vector and full-text search
    fused with reciprocal rank fusion, exact identifier matches boosted."""
    with Workspace(repo, config=config) as ws:
        return ws.search(query, branch=branch, k=k, mode=mode)


def context(
    query: str,
    repo: str | Path = ".",
    *,
    branch: str | None = None,
    budget_tokens: int = DEFAULT_BUDGET_TOKENS,
    entries: int = DEFAULT_ENTRIES,
    config: Config | None = None,
) -> ContextResult:
    """What to read to answer ``query`` on a branch: entry symbols, what they call, who calls
    them, their types, bases and tests, as the code is on that branch, within
    ``budget_tokens`` (estimated at 4 characters a token)."""
    with Workspace(repo, config=config) as ws:
        return ws.context(query, branch=branch, budget_tokens=budget_tokens, entries=entries)


def compare(
    query: str,
    repo: str | Path = ".",
    *,
    compare: str,
    branch: str | None = None,
    budget_tokens: int = DEFAULT_BUDGET_TOKENS,
    entries: int = DEFAULT_ENTRIES,
    config: Config | None = None,
) -> ComparedContext:
    """``context`` on ``branch`` beside ``compare``: each item with its version on the other
    branch where they differ, and "only on HEAD" / "only on BASE"."""
    with Workspace(repo, config=config) as ws:
        return ws.compare(query, compare=compare, branch=branch, budget_tokens=budget_tokens, entries=entries)


def cypher(
    query: str,
    params: dict[str, Any] | None = None,
    *,
    path: str | Path = ".",
    config: Config | None = None,
    timeout_s: float = DEFAULT_QUERY_TIMEOUT_S,
    limit: int = DEFAULT_ROW_LIMIT,
) -> list[dict[str, Any]]:
    """Run a read-only Cypher query; a write is refused with ``ReadOnlyViolation``. ``path``
    says which repository's index directory holds the managed Neo4j (when none is configured);
    a ``$repo`` or ``$branch`` the query uses and ``params`` leave out is that repository's key
    and its checked-out branch."""
    root, config = _root_and_config(path, config)
    wanted = set(_QUERY_PARAMETER.findall(query)) & set(_REPOSITORY_DEFAULTS)
    params = _with_repository_defaults(dict(params or {}), wanted, root, config)
    with open_graph_store(config, root) as graph:
        return graph.read_query(query, params, timeout_s=timeout_s, limit=limit)


_QUERY_PARAMETER = re.compile(r"\$(\w+)")
# Parameters a query may leave out when run inside a repository: they default to the key it is
# indexed under and its checked-out branch, as the other commands' do.
_REPOSITORY_DEFAULTS = ("repo", "branch")


def _with_repository_defaults(params: dict[str, Any], wanted: set[str], root: Path, config: Config) -> dict[str, Any]:
    """``params`` with ``repo`` and ``branch`` filled in from the repository at ``root`` where
    ``wanted`` and not given. On a detached HEAD the branch stays missing (the query says so)."""
    missing = wanted - set(params)
    if not missing:
        return params
    repo = git.open_repo(root)
    filled = dict(params)
    if "repo" in missing:
        with open_pg_store(config, root) as pg:
            filled["repo"] = _key(root, repo, pg)
    if "branch" in missing:
        with contextlib.suppress(GitError):
            filled["branch"] = git.current_branch(repo)
    return filled


def list_queries() -> list[NamedQuery]:
    """The named queries shipped in ``cypher/``."""
    return list(named_queries().values())


def run_named_query(
    name: str,
    params: dict[str, Any] | None = None,
    *,
    path: str | Path = ".",
    config: Config | None = None,
    timeout_s: float = DEFAULT_QUERY_TIMEOUT_S,
    limit: int = DEFAULT_ROW_LIMIT,
) -> list[dict[str, Any]]:
    """Run a named query with its defaults filled in (read-only, like ``cypher``): ``repo``
    and ``branch`` are the repository at ``path`` and its checked-out branch unless given."""
    root, config = _root_and_config(path, config)
    query = named_queries().get(name)
    declared = {p.name for p in query.params} if query is not None else set()
    # A parameter the query does not take is refused as it is (by ``bind``), before any default.
    wanted = declared & set(_REPOSITORY_DEFAULTS) if set(params or {}) <= declared else set()
    params = _with_repository_defaults(dict(params or {}), wanted, root, config)
    with open_graph_store(config, root) as graph:
        return graph.named_query(name, params, timeout_s=timeout_s, limit=limit)


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
    keep: Collection[str] = (),
    config: Config | None = None,
) -> list[PrunedBranch]:
    """Drop indexed branches that git no longer has (``deleted``) or that were not indexed for
    longer than ``older_than`` (never those in ``keep``). Shared caches (parsed blobs,
    embeddings) stay."""
    _prune_criterion(older_than, deleted)
    root, config = _root_and_config(path, config)
    with open_pg_store(config, root) as pg, open_graph_store(config, root) as graph:
        return prune_with(graph, pg, root, older_than=older_than, deleted=deleted, dry_run=dry_run, keep=keep)


def prune_with(
    graph: GraphStore,
    pg: PgStore,
    root: Path,
    *,
    older_than: timedelta | None = None,
    deleted: bool = False,
    dry_run: bool = False,
    keep: Collection[str] = (),
    name: str | None = None,
) -> list[PrunedBranch]:
    """``prune`` on open stores (a worker's retention job keeps them open)."""
    _prune_criterion(older_than, deleted)
    repo = git.open_repo(root)
    in_git = set(git.branch_refs(repo, remotes=True))
    now = datetime.now(UTC)
    pruned = []
    name = name or _key(root, repo, pg)
    for record in pg.branches(name):
        if record.branch in keep:
            continue
        if deleted and record.branch not in in_git:
            reason = "deleted in git"
        elif older_than is not None and now - record.indexed_at > older_than:
            reason = f"untouched for {(now - record.indexed_at).days} days"
        else:
            continue
        nodes = 0 if dry_run else drop_branch_with(graph, pg, name, record.branch)
        pruned.append(PrunedBranch(record.branch, reason, nodes))
    return pruned


def _prune_criterion(older_than: timedelta | None, deleted: bool) -> None:
    if older_than is None and not deleted:
        raise ValueError("prune needs a criterion: older_than, deleted, or both")


def drop_branch_with(graph: GraphStore, pg: PgStore, name: str, branch: str) -> int:
    """Drop one branch from both stores (under its ingest lock, so no ingest is cut in half);
    the number of graph nodes deleted."""
    with pg.ingest_lock(name, branch):
        nodes = graph.delete_branch(name, branch)
        pg.delete_branch(name, branch)
        pg.forget_pushes(name, [branch])
    return nodes


# ----- the private servers -------------------------------------------------------------------


def _private_dir(path: str | Path, config: Config | None, create: bool = False) -> tuple[Path, Config]:
    """The index directory holding the private servers of the repository at ``path`` (or
    ``BRANCHGRAPH_INDEX_DIR``, which needs no repository); ``create`` makes it on first use."""
    config = config or Config.load()
    root = Path(path)
    if not config.index_dir:
        root, config = _root_and_config(path, config)
    return (index_dir(config, root) if create else config.index_dir_for(root)), config


def services(path: str | Path = ".", *, config: Config | None = None) -> list[dict[str, Any]]:
    """The private servers of an index directory: the managed Neo4j and the embedded
    PostgreSQL, each with ``running`` and, while it runs, version, address, pid, memory. A
    server configured by URL instead is listed as ``configured``."""
    folder, config = _private_dir(path, config)
    out: list[dict[str, Any]] = []
    if config.neo4j_uri:
        out.append({"service": "neo4j", "configured": True, "uri": config.neo4j_uri})
    else:
        neo4j = managed_server(folder / "neo4j")
        version, jars = locked_jars()
        idle = {"service": "neo4j", "version": version, "data_dir": str(folder / "neo4j")}
        out.append({"running": True, **neo4j.to_dict()} if neo4j else {"running": False, **idle})
        out[-1]["download_mb"] = round(sum(j.size for j in jars) / 1e6, 1)
    if config.database_url:
        out.append({"service": "postgresql", "configured": True})
    else:
        postgres = embedded_postgres_status(folder / "postgres")
        out.append(
            {"running": True, **postgres}
            if postgres
            else {"service": "postgresql", "running": False, "data_dir": str(folder / "postgres")}
        )
    return out


def start_services(
    path: str | Path = ".", *, config: Config | None = None, progress: Progress | None = None
) -> dict[str, Any]:
    """Start (or find running) the managed Neo4j of an index directory; its status. The
    embedded PostgreSQL starts with each command that needs it and stops after the last."""
    folder, config = _private_dir(path, config, create=True)
    if config.neo4j_uri:
        raise ConfigError(f"BRANCHGRAPH_NEO4J_URI is set ({config.neo4j_uri}): there is no managed Neo4j to start")
    return start_managed_neo4j(folder / "neo4j", cache_root(), progress).to_dict()


def stop_services(path: str | Path = ".", *, config: Config | None = None) -> list[str]:
    """Stop the private servers of an index directory; the names of those that ran."""
    folder, _ = _private_dir(path, config)
    stopped = []
    if stop_managed_neo4j(folder / "neo4j"):
        stopped.append("neo4j")
    if stop_embedded_postgres(folder / "postgres"):
        stopped.append("postgresql")
    return stopped


def doctor(path: str | Path = ".", *, config: Config | None = None) -> list[Check]:
    """Check every part a command needs (Python, repository, index directory, Java, Neo4j,
    PostgreSQL, embedder); each failed check says what fixes it."""
    return run_checks(path, config)


# ----- impact --------------------------------------------------------------------------------

IMPACT_MAX_DEPTH = 5


def impact(
    path: str | Path = ".",
    *,
    branch: str | None = None,
    symbols: list[str] | None = None,
    diff: str | None = None,
    staged: bool = False,
    worktree: bool = False,
    depth: int = 3,
    config: Config | None = None,
) -> ImpactReport:
    """What a change affects on an indexed branch: give the changed ``symbols`` (qualified
    names), or a ``diff`` (``A..B``, ``A...B`` from their merge base, or one commit ``R``
    against its parent), or the ``staged`` or ``worktree`` changes against HEAD. Users are
    followed up to ``depth`` hops (1 to 5) through CALLS and INHERITS_FROM."""
    with Workspace(path, config=config) as ws:
        return ws.impact(branch=branch, symbols=symbols, diff=diff, staged=staged, worktree=worktree, depth=depth)


def _named_changes(ws: Workspace, s: _BranchSession, qualnames: list[str]) -> list[ChangedSymbol]:
    rows = ws.graph.named_query("symbols_named", {"repo": s.name, "branch": s.branch, "qualnames": qualnames})
    found = definitions_by_qualname(rows)
    unknown = [q for q in qualnames if q not in found]
    if unknown:
        raise NotIndexed(f"no symbol {', '.join(map(repr, unknown))} on {s.name}@{s.branch}")
    return [
        ChangedSymbol(r["qualname"], r["kind"], r["path"], r["start_line"], r["end_line"], MODIFIED, r["name"])
        for r in (found[q][0] for q in qualnames)
    ]


def _diff_range(repo: Repo, spec: str) -> tuple[str, str]:
    """(base, head) commit ids of ``A..B``, ``A...B`` (base: their merge base) or ``R`` (R^..R)."""
    if "..." in spec:
        a, b = (git.commit_object(repo, part or "HEAD") for part in spec.split("...", 1))
        bases = find_merge_base(repo, [a.id, b.id])
        if not bases:
            raise GitError(f"{spec!r}: the two sides share no history")
        return bases[0].decode("ascii"), b.id.decode("ascii")
    if ".." in spec:
        a, b = (git.commit_object(repo, part or "HEAD") for part in spec.split("..", 1))
        return a.id.decode("ascii"), b.id.decode("ascii")
    head = git.commit_object(repo, spec)
    if not head.parents:
        raise GitError(f"{spec!r} is a root commit: give a range (A..B)")
    return head.parents[0].decode("ascii"), head.id.decode("ascii")


def check(
    path: str | Path = ".",
    *,
    branch: str | None = None,
    diff: str | None = None,
    files: list[str] | None = None,
    config: Config | None = None,
) -> list[Finding]:
    """The validation gate: references in the new or changed lines of a ``diff`` (the branch
    must be indexed at its head), or in whole ``files``, that resolve to nothing on the branch
    (external ones are fine), each with the nearest names the branch defines."""
    with Workspace(path, config=config) as ws:
        return ws.check(branch=branch, diff=diff, files=files)


def _repo_relative(root: Path, file: str) -> str:
    """A file named from here (or absolutely) or from the repository root, as a repository path."""
    given = Path(file)
    if not given.is_absolute() and not given.exists():
        return given.as_posix()  # already relative to the root
    resolved = given.resolve()
    if not resolved.is_relative_to(root):
        raise ValueError(f"{file} is not inside the repository at {root}")
    return resolved.relative_to(root).as_posix()


def import_coverage(
    report: str | Path,
    path: str | Path = ".",
    *,
    branch: str | None = None,
    config: Config | None = None,
    progress: Progress | None = None,
) -> CoverageImport:
    """Coverage a test run measured, as evidence of which tests run which code: a coverage.py
    JSON report with contexts (``coverage json --show-contexts`` after a run with
    ``dynamic_context = test_function``, or pytest-cov's ``--cov-context=test``) replaces the
    branch's ``TESTED_BY {evidence: 'coverage'}`` edges; ``impact`` and ``tests_for`` then
    select the tests it saw run a changed function beside the static ones."""
    lines = coverage_evidence.read_report(Path(report))  # a bad report is told before any store opens
    with Workspace(path, config=config) as ws:
        return ws._import_coverage(str(report), lines, None, branch, progress)


def diff(base: str, head: str, path: str | Path = ".", *, config: Config | None = None) -> BranchDiff:
    """The graph-to-graph diff of two indexed branches of the repository at ``path``."""
    with Workspace(path, config=config) as ws:
        return ws.diff(base, head)
