"""The stores' capabilities, one protocol each, and the records that cross them.

Ingest writes through ``GraphWriter``, ``VectorStore``, ``ParseCache`` and ``IndexState``;
retrieval and the API read through ``GraphReader``, ``VectorStore``, ``FullTextIndex`` and
``IndexState``. Neither sees a query language: Cypher lives with the Neo4j backend
(``neo4j_*.py`` and ``cypher/``), SQL with the PostgreSQL backend (``pg_*.py`` and
``schema/``). A new backend is one module per capability; ``tests/test_store_protocols.py``
says which protocols each backend passes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

import numpy as np

from branchgraph.core.model import FileSubgraph

# (done, total) rows of a bulk write, for a progress bar.
RowProgress = Callable[[int, int], None]

DEFAULT_QUERY_TIMEOUT_S = 30.0
DEFAULT_ROW_LIMIT = 10_000
# How long an answer waits for an ingest's writes to the branch to finish before it is read
# anyway (and says so): an update's write phase is seconds; a full rewrite can take longer.
READ_WAIT_S = 10.0


# ----- records --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NodeEmbeddingRow:
    """A symbol's row beside the graph: its vector's content key and its full-text text."""

    node_id: str
    label: str
    path: str
    qualname: str
    content_key: str
    lexical: str
    symbol_hash: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    has_conflict: bool | None = None


@dataclass(frozen=True, slots=True)
class NodeRow:
    """What entry search needs of a node without asking the graph."""

    label: str
    path: str
    qualname: str
    start_line: int | None  # None on rows written before spans were kept here
    end_line: int | None
    has_conflict: bool | None


@dataclass(frozen=True, slots=True)
class SymbolSpan:
    """A symbol's current line span and conflict flag, as the graph holds them."""

    start_line: int
    end_line: int
    has_conflict: bool


@dataclass(frozen=True, slots=True)
class FileState:
    """What the stores hold for one file of a branch: the blob and subgraph fingerprint (None:
    a rewrite began and may not have finished), what resolving it read (None: not logged)
    and the rest of its resolution record (``ingest.incremental.FileRecord``)."""

    path: str
    blob_sha: str
    fingerprint: str | None
    reads: list[str] | None = None
    resolution: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class BranchRecord:
    """An indexed branch: the commit its graph and vectors describe, and what it holds."""

    repo: str
    branch: str
    repo_path: str
    indexed_commit: str
    indexed_at: datetime
    embedder: str
    counts: dict[str, Any]
    unresolved_rate: float | None
    base_branch: str | None = None
    rename_map: dict[str, str] = field(default_factory=dict)
    conflict_files: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class TermStats:
    """What BM25 needs to know of a branch's full-text documents."""

    documents: int
    average_length: float  # tokens per document
    document_frequency: dict[str, int]  # term -> documents holding it (the terms asked about)
    # term -> a count it is known to exceed: counting stopped there (``count_up_to``)
    more_than: dict[str, int] = field(default_factory=dict)


# (node id, score, row): what vector and full-text search return, best first.
ScoredRow = tuple[str, float, NodeRow]


# ----- graph ------------------------------------------------------------------------------


@runtime_checkable
class GraphWriter(Protocol):
    """Persistence of per-branch code graphs."""

    def ensure_schema(self) -> None:
        """Create constraints and indexes (idempotent)."""

    def replace_files(
        self, repo: str, branch: str, subgraphs: Sequence[FileSubgraph], progress: RowProgress | None = None
    ) -> dict[str, int]:
        """Replace each file's subgraph; every file is written whole in one transaction
        (``progress`` hears files written, files in all). Returns ``nodes_deleted`` and
        ``edges_deleted``."""

    def has_branch(self, repo: str, branch: str) -> bool:
        """Whether any file of the branch is stored."""

    def write_new_branch(
        self, repo: str, branch: str, subgraphs: Sequence[FileSubgraph], progress: RowProgress | None = None
    ) -> None:
        """Bulk-write a branch the store holds nothing of (faster than replacing files);
        ``progress`` hears (rows written, rows in all) as chunks land."""

    def clone_branch(self, repo: str, source: str, target: str) -> None:
        """Copy a branch to a new, empty one inside the store (ids rebranched)."""

    def replace_coverage(
        self,
        repo: str,
        branch: str,
        rows: dict[tuple[str, str], list[dict[str, Any]]],
        run: str,
        progress: RowProgress | None = None,
    ) -> int:
        """Replace the branch's coverage-evidenced ``TESTED_BY`` edges by ``rows``, written under the
        import's ``run`` id (``progress`` hears edges written, edges in all); return how many of
        the earlier ones went."""

    def delete_branch(self, repo: str, branch: str) -> int:
        """Delete every node and edge of a branch; return how many nodes went."""

    def files_except(self, repo: str, branch: str, keep_paths: Iterable[str]) -> list[str]:
        """Paths of the branch's stored files that are not in ``keep_paths``."""

    def delete_files(self, repo: str, branch: str, paths: Sequence[str]) -> dict[str, int]:
        """Delete the subgraphs of these files, with every edge into them; return counts."""

    def prune_unresolved(self, repo: str, branch: str) -> int:
        """Delete ``Unresolved`` nodes of the branch that no edge points at any more."""

    def close(self) -> None:
        """Release connections."""


@runtime_checkable
class GraphReader(Protocol):
    """The graph reads retrieval and the API need, plus user queries (read-only)."""

    def symbol_spans(self, ids: Sequence[str]) -> dict[str, SymbolSpan]:
        """Current spans and conflict flags of symbols by id (ids that are no symbol are absent)."""

    def expand(self, repo: str, branch: str, qualnames: Sequence[str]) -> list[dict[str, Any]]:
        """The structural neighbourhood of entry symbols (the named query ``expand``): rows of
        ``entry_id``, ``entry``, ``kind``, ``distance``, ``via``, ``id``, ``label``,
        ``qualname``, ``path``, ``start_line``, ``end_line``, ``has_conflict``, ``members``."""

    def class_members(self, ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """Class id -> its direct members (``name``, ``signature``, ``start_line``, ``end_line``)."""

    def symbol(self, repo: str, branch: str, node_id: str) -> dict[str, Any] | None:
        """One symbol of a branch by id: kind, qualname, path, span, signature, docstring."""

    def branch_file_counts(self, repo: str) -> dict[str, int]:
        """Branch -> how many files the graph holds of it, for every branch of ``repo`` stored
        (status compares them with what the index state recorded)."""

    def named_query(
        self,
        name: str,
        params: dict[str, Any],
        *,
        timeout_s: float = DEFAULT_QUERY_TIMEOUT_S,
        limit: int = DEFAULT_ROW_LIMIT,
    ) -> list[dict[str, Any]]:
        """A named, documented query with its defaults filled in (read-only)."""

    def read_query(
        self,
        query: str,
        params: dict[str, Any] | None = None,
        *,
        timeout_s: float = DEFAULT_QUERY_TIMEOUT_S,
        limit: int = DEFAULT_ROW_LIMIT,
    ) -> list[dict[str, Any]]:
        """Run a user's read-only query; writes are refused with ``ReadOnlyViolation``."""

    def close(self) -> None:
        """Release connections."""


# ----- vectors, full text, caches, state ---------------------------------------------------


@runtime_checkable
class VectorStore(Protocol):
    """Embeddings keyed by content, and each branch's node rows joined to the graph by id."""

    def missing_content_keys(self, keys: Iterable[str]) -> set[str]: ...

    def put_embeddings(self, model: str, rows: Sequence[tuple[str, np.ndarray]]) -> None: ...

    def carry_vectors(
        self, repo: str, branch: str, model: str, moves: Sequence[tuple[str, str, str, str]]
    ) -> set[str]: ...

    def ensure_vector_index(self, model: str, dims: int) -> None: ...

    def replace_node_embeddings(
        self,
        repo: str,
        branch: str,
        rows: Sequence[NodeEmbeddingRow],
        paths: Sequence[str] | None = None,
        before_commit: Callable[[], None] | None = None,
    ) -> None: ...

    def refresh_statistics(self) -> None: ...

    def dense_search(
        self, repo: str, branch: str, model: str, query: np.ndarray, k: int, exact_fallback: bool = True
    ) -> list[ScoredRow]: ...

    def node_similarities(
        self, repo: str, branch: str, model: str, query: np.ndarray, ids: Sequence[str]
    ) -> dict[str, float]: ...

    def node_embedding_count(self, repo: str, branch: str) -> int: ...

    def branch_sizes(self) -> dict[tuple[str, str], tuple[int, int]]: ...


@runtime_checkable
class FullTextIndex(Protocol):
    """Full-text search over the identifier-split text of each branch's node rows."""

    def term_stats(
        self, repo: str, branch: str, indexed_commit: str, terms: Sequence[str], count_up_to: int | None = None
    ) -> TermStats: ...

    def lexical_search(
        self,
        repo: str,
        branch: str,
        weights: Sequence[tuple[str, float]],
        k: int,
        *,
        average_length: float,
        k1: float = 1.2,
        b: float = 0.75,
    ) -> list[ScoredRow]: ...

    def rows_in_files(
        self, repo: str, branch: str, paths: Sequence[str], patterns: Sequence[str], labels: Sequence[str], k: int
    ) -> list[tuple[str, NodeRow]]: ...


@runtime_checkable
class ParseCache(Protocol):
    """Parsed files by git blob SHA, language and extractor version, shared by all branches."""

    def cached_parses(self, blob_shas: Iterable[str], language: str, version: int) -> dict[str, bytes]: ...

    def put_parses(self, language: str, version: int, rows: Sequence[tuple[str, bytes]]) -> None: ...


@runtime_checkable
class IndexState(Protocol):
    """What each branch's index holds: file states, runs, branch records, the ingest lock."""

    def file_states(self, repo: str, branch: str) -> dict[str, tuple[str, str | None]]: ...

    def file_blobs(self, repo: str, branch: str, paths: Sequence[str]) -> dict[str, str]: ...

    def mark_files_dirty(self, repo: str, branch: str, paths: Sequence[str]) -> None: ...

    def set_file_states(
        self, repo: str, branch: str, states: Sequence[FileState], removed: Sequence[str] = ()
    ) -> None: ...

    def file_resolutions(self, repo: str, branch: str) -> list[FileState]: ...

    def update_resolutions(self, repo: str, branch: str, resolutions: Mapping[str, dict[str, Any]]) -> None: ...

    def dependents(self, repo: str, branch: str, keys: Collection[str]) -> set[str]: ...

    def clone_branch(self, repo: str, source: str, target: str, target_prefix: str, prefix_len: int) -> None: ...

    def delete_branch(self, repo: str, branch: str) -> None: ...

    def branch_is_new(self, repo: str, branch: str) -> bool: ...

    def start_run(self, repo: str, branch: str, commit: str) -> None: ...

    def record_branch(self, record: BranchRecord) -> None: ...

    def branch_record(self, repo: str, branch: str) -> BranchRecord | None: ...

    def branches(self, repo: str | None = None) -> list[BranchRecord]: ...

    def path_changes(self, repo: str, commit: str, depth: int) -> list[list[str]] | None: ...

    def put_path_changes(self, repo: str, commit: str, depth: int, changes: Sequence[Sequence[str]]) -> None: ...

    def tree_listing(self, repo: str, commit: str) -> bytes | None:
        """The tracked files of an indexed commit, as ``core.git.encode_listing`` stored them."""

    def put_tree_listing(self, repo: str, commit: str, listing: bytes) -> None:
        """Keep a commit's listing; ``record_branch`` drops those of commits no branch is at."""

    def ingest_lock(
        self, repo: str, branch: str, wait: bool = True, poll_s: float = 0.5
    ) -> AbstractContextManager[None]: ...

    def writing(self, repo: str, branch: str) -> AbstractContextManager[None]:
        """Exclusive while an ingest changes what readers of the branch see."""

    def reading(self, repo: str, branch: str, wait_s: float = READ_WAIT_S) -> AbstractContextManager[bool]:
        """Shared for one answer; yields False when an ingest kept writing past ``wait_s``."""


@dataclass(frozen=True, slots=True)
class PushState:
    """What the push log knows of one branch."""

    last_push_at: datetime
    last_lag_s: float | None  # push-to-indexed seconds of the newest indexed push
    pending_pushes: int  # pushes no ingest has covered yet
    pending_commits: int
    oldest_pending_at: datetime | None


@runtime_checkable
class PushLog(Protocol):
    """The pushes a git server reported, the ingests that covered them, replay protection."""

    def claim_delivery(self, delivery: str) -> bool: ...

    def record_push(self, repo: str, branch: str, after_commit: str, commits: int, pushed_at: datetime) -> None: ...

    def mark_pushes_indexed(
        self, repo: str, branch: str, indexed_commit: str, fetched_at: datetime, indexed_at: datetime
    ) -> list[float]: ...

    def push_lags(self, since: datetime) -> list[float]: ...

    def push_states(self, repo: str) -> dict[str, PushState]: ...

    def pushed_repos(self) -> list[str]: ...

    def forget_pushes(self, repo: str, branches: Sequence[str] | None = None) -> None: ...

    def expire_service_log(self, before: datetime) -> None: ...


class IngestTarget(VectorStore, ParseCache, IndexState, Protocol):
    """Everything ingest keeps beside the graph (one PostgreSQL serves all three)."""


class RetrievalSource(VectorStore, FullTextIndex, ParseCache, IndexState, Protocol):
    """Everything retrieval reads beside the graph."""
