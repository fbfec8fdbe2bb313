"""Full-text search in PostgreSQL over each node row's identifier-split text
(``core.lexical``), so identifiers are found by their parts and whole."""

from __future__ import annotations

from collections.abc import Sequence

from branchgraph.graph.pg_connection import ROW_COLUMNS, PgConnection, scalar
from branchgraph.graph.protocols import FullTextIndex, NodeRow, ScoredRow

# How full-text matches are ranked. ts_rank (term frequency) costs half of ts_rank_cd (cover
# density) per match: 13 vs 26 ms a django question.
LEXICAL_RANK = "ts_rank(n.lexical_tsv, q.query)"


class PgFullText(PgConnection):
    """The ``FullTextIndex`` capability on PostgreSQL."""

    def __init__(self, url: str):
        super().__init__(url)
        self._common_terms: dict[tuple[str, str, str, float, int], frozenset[str]] = {}

    def lexical_search(self, repo: str, branch: str, terms: Sequence[str], k: int) -> list[ScoredRow]:
        """(node id, rank, node row) of the branch's nodes whose identifier-split text matches
        any term, best first (more and rarer matching terms rank higher)."""
        if not terms:
            return []
        with self._transaction() as cur:
            cur.execute(
                "WITH q AS (SELECT to_tsquery('simple', %s) AS query) "
                f"SELECT n.node_id, {LEXICAL_RANK} AS rank, {ROW_COLUMNS} FROM node_embeddings n, q "
                "WHERE n.repo = %s AND n.branch = %s AND n.lexical_tsv @@ q.query "
                "ORDER BY rank DESC, n.qualname LIMIT %s",
                (" | ".join(terms), repo, branch, k),
            )
            return [(row[0], float(row[1]), NodeRow(*row[2:])) for row in cur.fetchall()]

    def common_terms(self, repo: str, branch: str, indexed_commit: str, share: float, floor: int) -> frozenset[str]:
        """Full-text terms found in more than ``share`` of a branch's rows and more than
        ``floor`` rows (``py``, ``self``, ``test`` on most code bases), computed once per
        indexed commit (0.12 s on django). Such a term says little about a symbol, and ranking
        its thousands of matches dominated query time (660 ms for one django question)."""
        key = (repo, branch, indexed_commit, share, floor)
        if key not in self._common_terms:
            with self._transaction() as cur:
                cur.execute("SELECT count(*) FROM node_embeddings WHERE repo = %s AND branch = %s", (repo, branch))
                rows = scalar(cur)
                cur.execute(
                    "SELECT word FROM ts_stat(format("
                    "'SELECT lexical_tsv FROM node_embeddings WHERE repo = %%L AND branch = %%L', %s::text, %s::text)) "
                    "WHERE ndoc > %s",
                    (repo, branch, max(floor, int(rows * share))),
                )
                self._common_terms[key] = frozenset(word for (word,) in cur.fetchall())
        return self._common_terms[key]


# mypy proves the backend implements its capability's protocol, signatures included.
_implements: type[FullTextIndex] = PgFullText
