"""Entry search: dense top-k from pgvector and lexical top-k from PostgreSQL full-text search
over identifier-split text (names, signature, docstring, source) ranked by BM25, fused with
reciprocal rank fusion; exact identifier matches are boosted. The first stage of ``context()`` and the ``search`` command.

Uses the stores and the embedder (low-level pieces); never the ingest pipeline.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from branchgraph.core.errors import EmbedderMismatch
from branchgraph.core.lexical import query_terms
from branchgraph.graph.protocols import NodeRow, ScoredRow, SymbolSpan
from branchgraph.retrieval.query import FileMentions, search_text, term_weight
from branchgraph.retrieval.session import IndexedBranch, RetrievalStores

# Reciprocal rank fusion constant (Cormack et al.): dampens the head of each list.
RRF_K = 60
# What each list's ranks count in the fusion, and the exact-name signal as a third list.
# Tuned on the tuning half of bench/real_tasks.py: the local model's vectors are far weaker
# than BM25 there (vector-only R@10 0.25 against 0.49), and context R@10 rose from 0.45 at
# equal weights to 0.51 at a quarter.
LIST_WEIGHTS = {"dense": 0.25, "lexical": 1.0}
EXACT_WEIGHT = 1.0
# How many candidates each list contributes before fusion, per result asked for.
CANDIDATES_PER_RESULT = 5
# A full-text term in more than this share of a branch's symbols, and more than this many, is
# left out of the query: each match costs about 25 us to rank, and such terms barely rank.
COMMON_TERM_SHARE = 0.01
COMMON_TERM_FLOOR = 500
# BM25's term-frequency saturation (the usual value, Robertson) and length normalisation. A
# symbol's document is its whole source, and the code a task changes is often long: on the
# tuning half of bench/real_tasks.py b 0.3-0.6 did better than the usual 0.75 (context
# recall@10 0.717 -> 0.727-0.731, file recall@5 0.838 -> 0.856-0.884); 0.45 is that plateau's middle.
BM25_K1 = 1.2
BM25_B = 0.45
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SYMBOL_LABELS = ("Class", "Function", "Method", "Interface")
MODES = ("hybrid", "dense", "lexical")


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
    lexical_score: float | None = None  # its BM25 score, None when full-text search missed it

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def of_row(
        cls,
        node_id: str,
        row: NodeRow,
        span: SymbolSpan | None,
        score: float,
        *,
        dense_rank: int | None = None,
        lexical_rank: int | None = None,
        exact: bool = False,
        lexical_score: float | None = None,
    ) -> SearchHit:
        """A hit on ``row`` at ``span`` (None: the graph has no span for it)."""
        return cls(
            id=node_id,
            kind=row.label,
            qualname=row.qualname,
            path=row.path,
            start_line=span.start_line if span else None,
            end_line=span.end_line if span else None,
            score=score,
            dense_rank=dense_rank,
            lexical_rank=lexical_rank,
            exact=exact,
            has_conflict=span.has_conflict if span else False,
            lexical_score=lexical_score,
        )


def search(
    query: str,
    branch: IndexedBranch,
    stores: RetrievalStores,
    *,
    k: int = 10,
    mode: str = "hybrid",
    query_vector: np.ndarray | None = None,
) -> list[SearchHit]:
    """The ``k`` best entry symbols of a branch for a natural-language or identifier query.

    ``mode`` is ``hybrid`` (the default), or ``dense`` / ``lexical`` alone, for measuring.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    embedder = stores.embedder
    if embedder is None:
        raise EmbedderMismatch("search needs an embedder; this configuration has BRANCHGRAPH_EMBEDDER=none")
    current = f"{embedder.model_id}/{embedder.dims}"
    if branch.embedder != current:
        raise EmbedderMismatch(
            f"{branch.branch!r} was embedded with {branch.embedder}, but the configured embedder is {current}; "
            "set BRANCHGRAPH_EMBEDDER to match, or re-ingest the branch with --full"
        )
    # Each list contributes a few times k, but never more than 100 beyond it: context() asks for
    # 110 hits, and 550 rows from each list made its search three times slower on django.
    depth = max(20, min(k * CANDIDATES_PER_RESULT, k + 100))
    rows_store = stores.rows
    dense: list[ScoredRow] = []
    lexical: list[ScoredRow] = []
    # The two lists are read on two connections at once: each is mostly a wait on the server
    # (django: 12-13 ms each at p50).
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="branchgraph-lexical") as pool:
        pending = pool.submit(_lexical, query, branch, stores, depth) if mode != "dense" else None
        if mode != "lexical":
            if query_vector is None:
                query_vector = embedder.embed([query])[0]
            dense = rows_store.dense_search(branch.repo, branch.branch, embedder.model_id, query_vector, depth)
        if pending is not None:
            lexical = pending.result()

    fused: dict[str, float] = defaultdict(float)
    ranks: dict[str, dict[str, int]] = defaultdict(dict)
    rows: dict[str, NodeRow] = {}
    bm25 = {node_id: score for node_id, score, _ in lexical}
    for source, hits in (("dense", dense), ("lexical", lexical)):
        weight = LIST_WEIGHTS[source]
        for rank, (node_id, _, row) in enumerate(hits, 1):
            fused[node_id] += weight / (RRF_K + rank)
            ranks[node_id][source] = rank
            rows[node_id] = row
    identifiers = {w.lower() for w in _IDENTIFIER.findall(query)}
    exact = {node_id for node_id, row in rows.items() if row.qualname.rsplit(".", 1)[-1].lower() in identifiers}
    for node_id in exact if mode == "hybrid" else ():
        # As if first in a third list: an identifier written in the query is a strong signal.
        fused[node_id] += EXACT_WEIGHT / (RRF_K + 1)
    best = sorted(fused, key=lambda i: (-fused[i], rows[i].qualname))[:k]
    return [
        SearchHit.of_row(
            node_id,
            rows[node_id],
            span,
            round(fused[node_id], 6),
            dense_rank=ranks[node_id].get("dense"),
            lexical_rank=ranks[node_id].get("lexical"),
            exact=node_id in exact,
            lexical_score=bm25.get(node_id),
        )
        for node_id, span in zip(best, _spans(stores, best, rows), strict=True)
    ]


# Symbols of the files a question names, as further candidates (``context()``); a file that
# large is named for a few of them, which the ranking picks.
NAMED_FILE_SYMBOLS = 80


def named_file_hits(mentions: FileMentions, branch: IndexedBranch, stores: RetrievalStores) -> list[SearchHit]:
    """The symbols of the files the question names (``in fields.py``, ``the validate module``),
    unscored: search may have missed them, since naming the file is what says where."""
    if not mentions:
        return []
    rows = stores.rows.rows_in_files(
        branch.repo, branch.branch, mentions.paths, mentions.module_patterns(), _SYMBOL_LABELS, NAMED_FILE_SYMBOLS
    )
    by_id = dict(rows)
    ids = list(by_id)
    return [
        SearchHit.of_row(node_id, row, span, 0.0)
        for (node_id, row), span in zip(rows, _spans(stores, ids, by_id), strict=True)
    ]


def _lexical(query: str, branch: IndexedBranch, stores: RetrievalStores, depth: int) -> list[ScoredRow]:
    """Full-text search ranked by BM25: each query term weighs its inverse document frequency
    on the branch. Terms in more than ``COMMON_TERM_SHARE`` of the branch's rows (and more than
    ``COMMON_TERM_FLOOR``) are left out unless nothing else is left: they barely rank, and
    scoring their thousands of matches dominated query time."""
    # Commit-message phrasing cleaned from the query (retrieval/query.py): +0.01 R@10 on the
    # tuning half of bench/real_tasks.py.
    terms = query_terms(search_text(query))
    rows_store, at = stores.rows, (branch.repo, branch.branch, branch.indexed_commit)
    documents = rows_store.term_stats(*at, []).documents
    common = int(max(COMMON_TERM_FLOOR, documents * COMMON_TERM_SHARE))
    # A common term is only learnt to be common: counting it stops there (django: the
    # counting took 8 ms of a question at the median, 25 ms at p90).
    stats = rows_store.term_stats(*at, terms, count_up_to=common)
    df = stats.document_frequency
    kept = [t for t in terms if 0 < df.get(t, 0) <= common]
    if not kept:  # nothing but common terms: they rank, by their full counts
        df = rows_store.term_stats(*at, terms).document_frequency
        kept = [t for t in terms if df.get(t, 0) > 0]
    weights = [(t, bm25_idf(stats.documents, df[t]) * term_weight(t)) for t in kept]
    return rows_store.lexical_search(
        branch.repo, branch.branch, weights, depth, average_length=stats.average_length, k1=BM25_K1, b=BM25_B
    )


def bm25_idf(documents: int, frequency: int) -> float:
    """Okapi BM25's inverse document frequency (the +1 form: never negative)."""
    return math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5))


def _spans(stores: RetrievalStores, ids: list[str], rows: dict[str, NodeRow]) -> list[SymbolSpan | None]:
    """Each hit's span and conflict flag: from its node row, or, for rows written before
    PostgreSQL kept spans, from the graph (one round trip for all of them)."""
    legacy = [i for i in ids if rows[i].start_line is None and rows[i].label in _SYMBOL_LABELS]
    from_graph = stores.graph.symbol_spans(legacy) if legacy else {}
    out: list[SymbolSpan | None] = []
    for i in ids:
        row = rows[i]
        if row.start_line is not None and row.end_line is not None:
            out.append(SymbolSpan(row.start_line, row.end_line, bool(row.has_conflict)))
        else:
            out.append(from_graph.get(i))
    return out
