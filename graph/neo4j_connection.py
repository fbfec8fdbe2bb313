"""The Neo4j connection every Neo4j capability module builds on: the Bolt driver, sessions,
the read-only query gate, and driver errors translated into branchgraph's own at this
boundary."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import neo4j
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, ClientError, DriverError, Neo4jError, ServiceUnavailable

from branchgraph.core.errors import ConfigError, ReadOnlyViolation, StoreError, StoreUnavailable
from branchgraph.graph.protocols import DEFAULT_QUERY_TIMEOUT_S, DEFAULT_ROW_LIMIT

T = TypeVar("T")

# Distinct read-query texts whose planner verdict is remembered (ad-hoc Cypher is unbounded).
_VERIFIED_READS_KEPT = 256


# Plan operators a read-only query may not use, though the planner calls them reads: LOAD CSV
# reads any file the server can and fetches URLs; SHOW ... lists other sessions' queries and
# settings; TERMINATE TRANSACTIONS kills other sessions' work (an ingest's writes, found by an
# outside test). Judged by the plan, not by the query's text.
_REFUSED_OPERATORS = frozenset({"LoadCSV", "TerminateTransactions"})
_REFUSED_PREFIXES = ("Show", "Terminate")
# Bounds on what a caller may ask for (MCP and HTTP clients pass these through).
_MIN_TIMEOUT_S = 1.0
_MAX_TIMEOUT_S = 300.0
_MAX_ROWS = 100_000


def _refused_operators(plan: dict[str, Any] | None) -> list[str]:
    """Operators of an EXPLAIN plan that a read-only query must not use."""
    found: list[str] = []
    pending = [plan] if plan else []
    while pending:
        node = pending.pop()
        name = str(node.get("operatorType", "")).split("@", 1)[0]
        if name in _REFUSED_OPERATORS or name.startswith(_REFUSED_PREFIXES):
            found.append(name)
        pending.extend(node.get("children", []))
    return sorted(set(found))


_BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


class Neo4jConnection:
    """A driver for one Neo4j server (and database), verified on connect."""

    def __init__(self, uri: str, user: str | None = None, password: str | None = None, database: str | None = None):
        auth = (user, password or "") if user else None
        if uri.split("://", 1)[0].lower() not in _BOLT_SCHEMES:
            # The driver would take http:// for its HTTP query API, which needs packages
            # branchgraph does not install, and fail with an ImportError.
            raise ConfigError(
                f"BRANCHGRAPH_NEO4J_URI must be a Bolt URI ({', '.join(s + '://' for s in _BOLT_SCHEMES)}), got {uri!r}"
            )
        self.uri = uri
        self.database = database
        self._verified_reads: set[str] = set()
        try:
            # Planner notices ("relationship type does not exist" on an empty graph) are noise here.
            self._driver = GraphDatabase.driver(
                uri, auth=auth, connection_acquisition_timeout=20, notifications_min_severity="OFF"
            )
            self._driver.verify_connectivity()
        except AuthError as exc:
            raise StoreUnavailable(
                f"Neo4j at {uri} rejected the credentials (BRANCHGRAPH_NEO4J_USER/PASSWORD)"
            ) from exc
        except (ServiceUnavailable, DriverError, OSError, ValueError) as exc:
            raise StoreUnavailable(
                f"cannot reach Neo4j at {uri}: {exc}. Check BRANCHGRAPH_NEO4J_URI, or unset it and "
                "branchgraph runs a Neo4j of its own"
            ) from exc

    def close(self) -> None:
        self._driver.close()

    def server_agent(self) -> str:
        """What the server says it is (``Neo4j/5.26.0``): a round trip that proves it answers."""
        try:
            return str(self._driver.get_server_info().agent)
        except (neo4j.exceptions.ServiceUnavailable, OSError) as exc:
            raise StoreUnavailable(f"Neo4j does not answer: {exc}") from exc

    def __enter__(self) -> Neo4jConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def read_query(
        self,
        query: str,
        params: dict[str, Any] | None = None,
        *,
        timeout_s: float = DEFAULT_QUERY_TIMEOUT_S,
        limit: int = DEFAULT_ROW_LIMIT,
    ) -> list[dict[str, Any]]:
        params = params or {}

        def work(tx: neo4j.ManagedTransaction) -> list[dict[str, Any]]:
            # The planner's own verdict on the statement: anything but a pure read is refused
            # before it runs, which also covers procedures that write.
            # A query text once found to be a read stays one, so the verdict is remembered and
            # repeated queries (retrieval runs the same few) skip that round trip.
            if query not in self._verified_reads:
                summary = tx.run("EXPLAIN " + query, params).consume()
                if summary.query_type != "r":
                    raise ReadOnlyViolation(
                        f"only read queries are allowed; this query is of type {summary.query_type!r}"
                    )
                refused = _refused_operators(summary.plan)
                if refused:
                    raise ReadOnlyViolation(
                        f"this query reads outside the graph or administers the server ({', '.join(refused)}); "
                        "only graph reads are allowed"
                    )
                if len(self._verified_reads) < _VERIFIED_READS_KEPT:
                    self._verified_reads.add(query)
            result = tx.run(query, params)
            rows: list[dict[str, Any]] = []
            for record in result:
                if len(rows) >= limit:
                    break
                rows.append({key: _plain(value) for key, value in zip(record.keys(), record.values(), strict=True)})
            return rows

        # A zero or negative timeout would mean none at all.
        timed = neo4j.unit_of_work(timeout=min(max(timeout_s, _MIN_TIMEOUT_S), _MAX_TIMEOUT_S))(work)
        limit = max(0, min(limit, _MAX_ROWS))
        with self._session(read=True) as session:
            return self._run_translated(lambda: session.execute_read(timed))

    def _session(self, read: bool = False) -> neo4j.Session:
        mode = neo4j.READ_ACCESS if read else neo4j.WRITE_ACCESS
        return self._driver.session(database=self.database, default_access_mode=mode)

    def _autocommit(
        self, session: neo4j.Session, query: str, params: dict[str, Any] | None = None
    ) -> list[neo4j.Record]:
        """Run one auto-commit statement (schema changes and CALL ... IN TRANSACTIONS need one)."""
        return self._run_translated(lambda: list(session.run(query, params or {})))

    def _run_translated(self, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except ReadOnlyViolation:
            raise
        except ClientError as exc:
            if exc.code and "AccessMode" in exc.code:
                raise ReadOnlyViolation(f"only read queries are allowed: {exc.message}") from exc
            raise StoreError(f"Neo4j rejected the query: {exc.message}") from exc
        except ServiceUnavailable as exc:
            raise StoreUnavailable(f"lost the connection to Neo4j at {self.uri}: {exc}") from exc
        except (Neo4jError, DriverError) as exc:
            raise StoreError(f"Neo4j error: {exc}") from exc


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> Any:
    """Turn driver values (nodes, relationships, paths, temporals) into JSON-friendly ones."""
    if type(value) in _SCALARS:  # most values: skip the isinstance chain below
        return value
    if isinstance(value, neo4j.graph.Node):
        return {"labels": sorted(value.labels), **{k: _plain(v) for k, v in value.items()}}
    if isinstance(value, neo4j.graph.Relationship):
        return {"type": value.type, **{k: _plain(v) for k, v in value.items()}}
    if isinstance(value, neo4j.graph.Path):
        return {"nodes": [_plain(n) for n in value.nodes], "relationships": [_plain(r) for r in value.relationships]}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "iso_format"):
        return value.iso_format()
    return value
