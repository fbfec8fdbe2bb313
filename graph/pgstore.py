"""The PostgreSQL store: every PostgreSQL capability (vectors, full text, parse cache, index
state) over one connection. Each capability is its own module (``pg_*.py``); this class only
puts them together for callers that need several."""

from __future__ import annotations

from branchgraph.graph.pg_fulltext import PgFullText
from branchgraph.graph.pg_index_state import PgIndexState
from branchgraph.graph.pg_parse_cache import PgParseCache
from branchgraph.graph.pg_pushes import PgPushes
from branchgraph.graph.pg_vectors import PgVectors


class PgStore(PgVectors, PgFullText, PgParseCache, PgIndexState, PgPushes):
    """``VectorStore``, ``FullTextIndex``, ``ParseCache``, ``IndexState`` and ``PushLog`` on one PostgreSQL."""

    def __enter__(self) -> PgStore:
        return self
