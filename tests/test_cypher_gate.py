"""The read-only Cypher gate refuses, by the planner's view of a query, what reads outside the
graph or administers the server, and bounds what a caller may ask for (real Neo4j)."""

from __future__ import annotations

import pytest

from branchgraph import ReadOnlyViolation
from branchgraph.graph import neo4j_connection

pytestmark = pytest.mark.neo4j


@pytest.mark.parametrize(
    ("query", "params"),
    [
        ("LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row", {}),
        ("LOAD CSV FROM $url AS row RETURN row", {"url": "http://127.0.0.1:9/"}),
        ("SHOW TRANSACTIONS", {}),
        ("TERMINATE TRANSACTIONS 'neo4j-transaction-1'", {}),
        ("SHOW SETTINGS", {}),
        ("MATCH (n) WITH count(n) AS c LOAD CSV FROM 'file:///etc/hostname' AS row RETURN c, row", {}),
        ("CREATE (n:Function {name: 'x'})", {}),
    ],
)
def test_file_reads_requests_admin_commands_and_writes_are_refused(graph_store, query, params):
    with pytest.raises(ReadOnlyViolation):
        graph_store.read_query(query, params)


def test_graph_reads_and_read_procedures_pass(graph_store):
    assert graph_store.read_query("RETURN 1 AS one") == [{"one": 1}]
    assert isinstance(graph_store.read_query("CALL db.labels() YIELD label RETURN label"), list)


def test_a_caller_cannot_lift_the_row_cap(graph_store):
    rows = graph_store.read_query(
        "UNWIND range(1, $n) AS x RETURN x", {"n": neo4j_connection._MAX_ROWS + 5}, limit=10**9
    )
    assert len(rows) == neo4j_connection._MAX_ROWS


def test_a_zero_timeout_does_not_switch_the_timeout_off(graph_store):
    from branchgraph import StoreError

    with pytest.raises(StoreError, match="timeout"):
        graph_store.read_query(
            "UNWIND range(1, 200000000) AS x WITH x WHERE x % 7 = 3 RETURN count(*) AS n", timeout_s=0
        )
