"""What a retrieval call works against: one indexed branch, and the stores and embedder that
answer for it. Built by the API per request and passed down whole, instead of a dozen
parameters."""

from __future__ import annotations

from dataclasses import dataclass

from branchgraph.core.embed import Embedder
from branchgraph.graph.protocols import GraphReader, RetrievalSource


@dataclass(frozen=True, slots=True)
class IndexedBranch:
    """A branch as the index holds it."""

    repo: str  # the repository's name in the stores
    branch: str
    indexed_commit: str
    embedder: str  # "<model id>/<dims>" its vectors were made with
    behind_commits: int | None = None  # commits the branch head is ahead of the index


@dataclass(frozen=True, slots=True)
class RetrievalStores:
    """The graph for structure, PostgreSQL for vectors, full text and index state, and the
    embedder for queries (None: graph-only configuration)."""

    graph: GraphReader
    rows: RetrievalSource
    embedder: Embedder | None
