"""Full-text search in PostgreSQL over each node row's identifier-split text (``core.lexical``:
names, signature, docstring and source), so identifiers are found by their parts and whole,
ranked by BM25 with the weights retrieval passes in."""

from __future__ import annotations

from collections.abc import Sequence

from branchgraph.graph.pg_connection import ROW_COLUMNS, PgConnection
from branchgraph.graph.protocols import FullTextIndex, NodeRow, ScoredRow, TermStats

# BM25 in SQL: each matching row's term frequencies come from its tsvector's positions
# (capped by PostgreSQL at 256 a lexeme), the weights (IDF) and parameters from the caller.
# Only the query's lexemes are unnested: ``setweight`` marks them (every stored lexeme has the
# default weight D) and ``ts_filter`` keeps the marked, where unnesting a function's whole
# vector to join it with a few terms took two thirds of the time (django: p50 18 -> 6 ms).
_BM25 = (
    "WITH q AS (SELECT to_tsquery('simple', %(query)s) AS query), "
    "w AS (SELECT * FROM unnest(%(terms)s::text[], %(idfs)s::float8[]) AS w(term, idf)), "
    "docs AS (SELECT n.node_id, n.qualname, coalesce(n.lexical_len, %(avg)s) AS len, n.lexical_tsv AS tsv "
    "  FROM node_embeddings n, q WHERE n.repo = %(repo)s AND n.branch = %(branch)s AND n.lexical_tsv @@ q.query), "
    "scored AS (SELECT d.node_id, d.qualname, "
    "  sum(w.idf * t.f * (%(k1)s + 1) / (t.f + %(k1)s * (1 - %(b)s + %(b)s * d.len / %(avg)s))) AS score "
    "  FROM docs d, LATERAL (SELECT u.lexeme, greatest(cardinality(u.positions), 1) AS f "
    "    FROM unnest(ts_filter(setweight(d.tsv, 'A', %(terms)s::text[]), '{a}')) u) t "
    "  JOIN w ON w.term = t.lexeme GROUP BY d.node_id, d.qualname), "
    # Only the k best go back to the table for their row's columns, not every match.
    "best AS (SELECT * FROM scored ORDER BY score DESC, qualname, node_id LIMIT %(k)s) "
    f"SELECT s.node_id, s.score, {ROW_COLUMNS} FROM best s JOIN node_embeddings n "
    "  ON n.repo = %(repo)s AND n.branch = %(branch)s AND n.node_id = s.node_id "
    "ORDER BY s.score DESC, n.qualname, n.node_id"
)
# Branches whose term statistics are kept in memory (a server answers for a few at a time).
_STATS_KEPT = 32


class PgFullText(PgConnection):
    """The ``FullTextIndex`` capability on PostgreSQL."""

    def __init__(self, url: str):
        super().__init__(url)
        self._stats: dict[tuple[str, str, str], TermStats] = {}

    def term_stats(
        self, repo: str, branch: str, indexed_commit: str, terms: Sequence[str], count_up_to: int | None = None
    ) -> TermStats:
        """Row count, average document length and the document frequency of each term, for
        the branch at its indexed commit. Kept in memory per commit: a term's frequency is
        counted once (through the GIN index), however many queries use it. With
        ``count_up_to``, counting a term stops past that many rows, and the term goes to
        ``more_than`` instead: every matching row is visited to be counted, and a term in
        thousands of them costs milliseconds to learn only that it is common."""
        key = (repo, branch, indexed_commit)
        stats = self._stats.get(key)
        counted = stats.document_frequency if stats else {}
        common = stats.more_than if stats else {}  # already known to be past ``count_up_to``?
        missing = sorted(
            {t for t in terms if t not in counted and (count_up_to is None or common.get(t, -1) < count_up_to)}
        )
        if stats is not None and not missing:
            return stats
        with self._transaction() as cur:
            if stats is None:
                if len(self._stats) >= _STATS_KEPT:
                    self._stats.clear()
                cur.execute(
                    "SELECT count(*), coalesce(avg(lexical_len), 1) FROM node_embeddings WHERE repo = %s AND branch = %s",
                    (repo, branch),
                )
                row = cur.fetchone()
                documents, average = (int(row[0]), float(row[1])) if row else (0, 1.0)
                stats = self._stats[key] = TermStats(documents, max(average, 1.0), {})
            if missing:
                limit = None if count_up_to is None else count_up_to + 1  # LIMIT NULL: all of them
                cur.execute(
                    "SELECT t.term, (SELECT count(*) FROM (SELECT 1 FROM node_embeddings n "
                    "WHERE n.repo = %s AND n.branch = %s AND n.lexical_tsv @@ to_tsquery('simple', quote_literal(t.term)) "
                    "LIMIT %s) AS found) FROM unnest(%s::text[]) AS t(term)",
                    (repo, branch, limit, missing),
                )
                for term, count in cur.fetchall():
                    if limit is not None and count >= limit:
                        stats.more_than[term] = max(stats.more_than.get(term, 0), limit - 1)
                    else:
                        stats.document_frequency[term] = int(count)
                        stats.more_than.pop(term, None)
        return stats

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
    ) -> list[ScoredRow]:
        """(node id, BM25 score, node row) of the branch's rows that hold any of the weighted
        terms, best first: per term ``weight * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avg))``."""
        if not weights:
            return []
        terms = [term for term, _ in weights]
        params = {
            "query": " | ".join(f"'{term}'" for term in terms),
            "terms": terms,
            "idfs": [float(weight) for _, weight in weights],
            "avg": float(average_length),
            "k1": float(k1),
            "b": float(b),
            "repo": repo,
            "branch": branch,
            "k": k,
        }
        with self._transaction() as cur:
            cur.execute(_BM25, params)
            return [(row[0], float(row[1]), NodeRow(*row[2:])) for row in cur.fetchall()]

    def rows_in_files(
        self, repo: str, branch: str, paths: Sequence[str], patterns: Sequence[str], labels: Sequence[str], k: int
    ) -> list[tuple[str, NodeRow]]:
        """(node id, node row) of the symbols with these labels in the files named by a path
        (or its trailing part: ``fields.py`` is ``src/marshmallow/fields.py``) or matching one
        of the module ``patterns`` (regular expressions: ``FileMentions.module_patterns``), in source order."""
        if not paths and not patterns:
            return []
        with self._transaction() as cur:
            cur.execute(
                # The branch's file list is matched (a few thousand rows), then the rows of the
                # files found are read by index: on django 1.0-1.5 ms, where matching every
                # node row's path took 3-21 ms.
                "WITH named AS (SELECT f.path FROM file_states f WHERE f.repo = %(repo)s AND f.branch = %(branch)s"
                "  AND (f.path = ANY(%(paths)s::text[]) OR f.path ~ ANY(%(modules)s::text[])"
                "       OR EXISTS (SELECT 1 FROM unnest(%(paths)s::text[]) AS p(path)"
                "                  WHERE right(f.path, length(p.path) + 1) = '/' || p.path))) "
                f"SELECT n.node_id, {ROW_COLUMNS} FROM node_embeddings n "
                "WHERE n.repo = %(repo)s AND n.branch = %(branch)s AND n.path IN (SELECT path FROM named)"
                "  AND n.label = ANY(%(labels)s) "
                "ORDER BY n.path, n.start_line NULLS LAST, n.node_id LIMIT %(k)s",
                {
                    "repo": repo,
                    "branch": branch,
                    "labels": list(labels),
                    "paths": list(paths),
                    "modules": list(patterns),
                    "k": k,
                },
            )
            return [(row[0], NodeRow(*row[1:])) for row in cur.fetchall()]


# mypy proves the backend implements its capability's protocol, signatures included.
_implements: type[FullTextIndex] = PgFullText
