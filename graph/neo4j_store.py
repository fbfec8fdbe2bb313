"""The Neo4j store: both Neo4j capabilities (``neo4j_writes.py``, ``neo4j_reads.py``) over one
driver, for callers that need both."""

from __future__ import annotations

from branchgraph.graph.neo4j_reads import Neo4jGraphReads
from branchgraph.graph.neo4j_writes import Neo4jGraphWrites


class Neo4jGraphStore(Neo4jGraphWrites, Neo4jGraphReads):
    """``GraphWriter`` and ``GraphReader`` on a Neo4j server."""

    def __enter__(self) -> Neo4jGraphStore:
        return self
