"""Graph reads on Neo4j that retrieval and the API need: spans of entry symbols, the
structural expansion around them, class members, one symbol by id, and named queries.

Every read goes through the read-only gate of ``Neo4jConnection.read_query``; a query's
verdict is remembered, so the few texts retrieval repeats cost one round trip each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from branchgraph.graph.named_queries import named_query
from branchgraph.graph.neo4j_connection import Neo4jConnection
from branchgraph.graph.protocols import DEFAULT_QUERY_TIMEOUT_S, DEFAULT_ROW_LIMIT, GraphReader, SymbolSpan

# One symbol by id whatever its label: each branch of the union is an id-index seek.
_SYMBOL_BY_ID = (
    "CALL (id) { MATCH (n:Function {id: id}) RETURN n UNION MATCH (n:Method {id: id}) RETURN n "
    "UNION MATCH (n:Class {id: id}) RETURN n UNION MATCH (n:Interface {id: id}) RETURN n } "
)


class Neo4jGraphReads(Neo4jConnection):
    """The ``GraphReader`` capability on Neo4j."""

    def symbol_spans(self, ids: Sequence[str]) -> dict[str, SymbolSpan]:
        if not ids:
            return {}
        rows = self.read_query(
            "UNWIND $ids AS id "
            + _SYMBOL_BY_ID
            + "RETURN n.id AS id, n.start_line AS s, n.end_line AS e, coalesce(n.has_conflict, false) AS c",
            {"ids": list(ids)},
        )
        return {r["id"]: SymbolSpan(r["s"], r["e"], r["c"]) for r in rows}

    def expand(self, repo: str, branch: str, qualnames: Sequence[str]) -> list[dict[str, Any]]:
        return self.named_query("expand", {"repo": repo, "branch": branch, "qualnames": sorted(set(qualnames))})

    def class_members(self, ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        if not ids:
            return {}
        rows = self.read_query(
            "UNWIND $ids AS id MATCH (c:Class {id: id}) "
            "RETURN c.id AS id, [(c)-[:DEFINES]->(m) | {start_line: m.start_line, end_line: m.end_line, "
            "signature: m.signature, name: m.name}] AS members",
            {"ids": list(ids)},
        )
        return {row["id"]: row["members"] for row in rows}

    def symbol(self, repo: str, branch: str, node_id: str) -> dict[str, Any] | None:
        rows = self.read_query(
            "WITH $id AS id " + _SYMBOL_BY_ID + "WITH n WHERE n.repo = $repo AND n.branch = $branch "
            "RETURN n.id AS id, labels(n)[0] AS kind, n.qualname AS qualname, n.path AS path, "
            "n.start_line AS start_line, n.end_line AS end_line, n.signature AS signature, "
            "n.docstring AS docstring, coalesce(n.has_conflict, false) AS has_conflict",
            {"id": node_id, "repo": repo, "branch": branch},
        )
        return dict(rows[0]) if rows else None

    def branch_file_counts(self, repo: str) -> dict[str, int]:
        rows = self.read_query(
            "MATCH (f:File {repo: $repo}) WHERE f.path IS NOT NULL RETURN f.branch AS branch, count(*) AS files",
            {"repo": repo},
        )
        return {r["branch"]: r["files"] for r in rows}

    def named_query(
        self,
        name: str,
        params: dict[str, Any],
        *,
        timeout_s: float = DEFAULT_QUERY_TIMEOUT_S,
        limit: int = DEFAULT_ROW_LIMIT,
    ) -> list[dict[str, Any]]:
        query = named_query(name)
        return self.read_query(query.text, query.bind(params), timeout_s=timeout_s, limit=limit)


# mypy proves the backend implements its capability's protocol, signatures included.
_implements: type[GraphReader] = Neo4jGraphReads
