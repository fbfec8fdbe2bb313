"""Entry search: dense top-k from pgvector and lexical top-k from PostgreSQL full-text search
over identifier-split text, fused with reciprocal rank fusion; exact identifier matches are
boosted. The first stage of ``context()`` and the ``search`` command.

Uses the stores and the embedder (low-level pieces); never the ingest pipeline.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any

from branchgraph.errors import BranchgraphError
from branchgraph.graph.lexical import query_terms
from branchgraph.graph.pgstore import PgStore
from branchgraph.graph.store import GraphStore

# Reciprocal rank fusion constant (Cormack et al.): dampens the head of each list.
RRF_K = 60
# How many candidates each list contributes before fusion, per result asked for.
CANDIDATES_PER_RESULT = 5
# A full-text term in more than this share of a branch's symbols, and more than this many, is
# left out of the query: each match costs about 25 us to rank, and such terms barely rank.
COMMON_TERM_SHARE = 0.01
COMMON_TERM_FLOOR = 500
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SYMBOL_LABELS = ("Class", "Function", "Method", "Interface")
MODES = ("hybrid", "dense", "lexical")


class EmbedderMismatch(BranchgraphError):
    """The query would be embedded by another model than the branch's vectors."""


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One entry symbol: where it is and why it ranks where it does."""

    id: str
    kind: str
    qualname: str
    path: str
    start_line: int | None
    end_line: int | None
    score: float
    dense_rank: int | None  # 1-based rank in the vector list, None when absent
    lexical_rank: int | None
    exact: bool  # its name is an identifier of the query (boosted in hybrid mode)
    has_conflict: bool = False  # its text holds unresolved merge-conflict markers

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def search(
    query: str,
    *,
    repo: str,
    branch: str,
    pg: PgStore,
    graph: GraphStore,
    embedder,
    embedder_of_branch: str,
    k: int = 10,
    mode: str = "hybrid",
    query_vector=None,
    indexed_commit: str | None = None,
) -> list[SearchHit]:
    """The ``k`` best entry symbols of a branch for a natural-language or identifier query.

    ``mode`` is ``hybrid`` (the default), or ``dense`` / ``lexical`` alone, for measuring.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    if embedder is None:
        raise EmbedderMismatch("search needs an embedder; this configuration has BRANCHGRAPH_EMBEDDER=none")
    current = f"{embedder.model_id}/{embedder.dims}"
    if embedder_of_branch != current:
        raise EmbedderMismatch(
            f"{branch!r} was embedded with {embedder_of_branch}, but the configured embedder is {current}; "
            "set BRANCHGRAPH_EMBEDDER to match, or re-ingest the branch with --full"
        )
    depth = max(k * CANDIDATES_PER_RESULT, 20)
    if query_vector is None and mode != "lexical":
        query_vector = embedder.embed([query])[0]
    dense = pg.dense_search(repo, branch, embedder.model_id, query_vector, depth) if mode != "lexical" else []
    terms = query_terms(query)
    if indexed_commit is not None and mode != "dense":
        common = pg.common_terms(repo, branch, indexed_commit, COMMON_TERM_SHARE, COMMON_TERM_FLOOR)
        # Keep the query's rarest terms when every one of them is common.
        terms = [t for t in terms if t not in common] or terms
    lexical = pg.lexical_search(repo, branch, terms, depth) if mode != "dense" else []

    fused: dict[str, float] = defaultdict(float)
    ranks: dict[str, dict[str, int]] = defaultdict(dict)
    rows = {}
    for source, hits in (("dense", dense), ("lexical", lexical)):
        for rank, (node_id, _, row) in enumerate(hits, 1):
            fused[node_id] += 1.0 / (RRF_K + rank)
            ranks[node_id][source] = rank
            rows[node_id] = row
    identifiers = {w.lower() for w in _IDENTIFIER.findall(query)}
    exact = {node_id for node_id, row in rows.items() if row.qualname.rsplit(".", 1)[-1].lower() in identifiers}
    for node_id in exact if mode == "hybrid" else ():
        # As if first in a third list: an identifier written in the query is a strong signal.
        fused[node_id] += 1.0 / (RRF_K + 1)
    best = [node_id for node_id in sorted(fused, key=lambda i: (-fused[i], rows[i].qualname if i in rows else i)) if node_id in rows][:k]
    # Rows written before PostgreSQL kept spans ask the graph for them.
    spans = _spans(graph, {i: rows[i].label for i in best if rows[i].start_line is None})
    spans.update({i: (rows[i].start_line, rows[i].end_line, bool(rows[i].has_conflict)) for i in best if rows[i].start_line is not None})
    missing = (None, None, False)
    return [
        SearchHit(
            id=node_id,
            kind=rows[node_id].label,
            qualname=rows[node_id].qualname,
            path=rows[node_id].path,
            start_line=spans.get(node_id, missing)[0],
            end_line=spans.get(node_id, missing)[1],
            score=round(fused[node_id], 6),
            dense_rank=ranks[node_id].get("dense"),
            lexical_rank=ranks[node_id].get("lexical"),
            exact=node_id in exact,
            has_conflict=spans.get(node_id, missing)[2],
        )
        for node_id in best
    ]


def _spans(graph: GraphStore, labels: dict[str, str]) -> dict[str, tuple[int, int, bool]]:
    """Line spans and conflict flags from the graph (spans change with edits that keep the
    embedding), in one round trip: each branch of the union is an id-index seek."""
    ids = [node_id for node_id, label in labels.items() if label in _SYMBOL_LABELS]
    if not ids:
        return {}
    rows = graph.read_query(
        "UNWIND $ids AS id CALL (id) { MATCH (n:Function {id: id}) RETURN n UNION MATCH (n:Method {id: id}) RETURN n "
        "UNION MATCH (n:Class {id: id}) RETURN n UNION MATCH (n:Interface {id: id}) RETURN n } "
        "RETURN n.id AS id, n.start_line AS s, n.end_line AS e, coalesce(n.has_conflict, false) AS c",
        {"ids": ids},
    )
    return {r["id"]: (r["s"], r["e"], r["c"]) for r in rows}
