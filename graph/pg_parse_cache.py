"""The parse cache in PostgreSQL: a parsed file by (git blob SHA, language, extractor
version), shared by every branch and repository."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from branchgraph.graph.pg_connection import PgConnection
from branchgraph.graph.protocols import ParseCache


class PgParseCache(PgConnection):
    """The ``ParseCache`` capability on PostgreSQL."""

    def cached_parses(self, blob_shas: Iterable[str], language: str, version: int) -> dict[str, bytes]:
        wanted = sorted(set(blob_shas))
        if not wanted:
            return {}
        with self._transaction() as cur:
            cur.execute(
                "SELECT blob_sha, parsed FROM parse_cache WHERE language = %s AND extractor_version = %s "
                "AND blob_sha = ANY(%s)",
                (language, version, wanted),
            )
            return {sha: bytes(parsed) for sha, parsed in cur.fetchall()}

    def put_parses(self, language: str, version: int, rows: Sequence[tuple[str, bytes]]) -> None:
        if not rows:
            return
        with self._transaction() as cur:
            cur.executemany(
                "INSERT INTO parse_cache (blob_sha, language, extractor_version, parsed) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                [(sha, language, version, data) for sha, data in rows],
            )


# mypy proves the backend implements its capability's protocol, signatures included.
_implements: type[ParseCache] = PgParseCache
