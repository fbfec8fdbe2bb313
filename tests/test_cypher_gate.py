"""The read-only Cypher gate refuses, by the planner's view of a query, what reads outside the
graph or administers the server, and bounds what a caller may ask for (real Neo4j)."""

from __future__ import annotations

import pytest
from local_http import serving

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


# ----- generated queries (Hypothesis) -------------------------------------------------------

_READS = [
    "MATCH (n:Function) WITH n LIMIT 3",
    "WITH 1 AS x",
    "UNWIND [1, 2] AS x",
    "OPTIONAL MATCH (n:Sentinel) WITH n",
]
# {url} is an address a test server counts requests on; {file} a file whose text must never come back.
_HARMFUL = [
    "CREATE (:Sentinel {made: true})",
    "MERGE (:Sentinel {made: true})",
    "MATCH (s:Sentinel) SET s.made = true",
    "MATCH (s:Sentinel) REMOVE s:Sentinel",
    "MATCH (s:Sentinel) DETACH DELETE s",
    "MATCH (s:Sentinel) DELETE s",
    "FOREACH (i IN [1] | CREATE (:Sentinel {made: true}))",
    "CALL () { CREATE (:Sentinel {made: true}) }",
    "CALL db.createLabel('Made')",
    "CALL db.createProperty('made')",
    "LOAD CSV FROM '{file}' AS row RETURN row",
    "LOAD CSV FROM '{url}' AS row RETURN row",
    "LOAD CSV WITH HEADERS FROM '{url}' AS row RETURN row",
    "CALL dbms.setConfigValue('db.logs.query.enabled', 'OFF')",
    "CALL db.clearQueryCaches()",
    "SHOW TRANSACTIONS",
    "SHOW SETTINGS",
    "SHOW PROCEDURES",
    "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
    "CREATE INDEX made IF NOT EXISTS FOR (n:Sentinel) ON (n.made)",
    "DROP INDEX made IF EXISTS",
]
_SPELLINGS = [str, str.lower, str.upper, lambda q: q.replace(" ", "\n  "), lambda q: "/* read only */ " + q]


@pytest.fixture(scope="module")
def counting_server():
    """An HTTP server on loopback that counts the requests it gets."""
    with serving(b"a,b\n1,2\n") as (base, hits):
        yield base + "/", hits


def test_generated_writes_file_reads_requests_and_admin_commands_never_succeed(
    graph_store, counting_server, tmp_path_factory
):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    url, hits = counting_server
    secret = tmp_path_factory.mktemp("gate") / "secret.csv"
    secret.write_text("name\nsecret-3f9c1a\n")
    graph_store._driver.execute_query("MATCH (s:Sentinel) DETACH DELETE s")
    graph_store._driver.execute_query("CREATE (:Sentinel {made: false})")
    before = graph_store._driver.execute_query("CALL db.labels() YIELD label RETURN collect(label) AS l").records[0][
        "l"
    ]

    @settings(
        max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(
        prefix=st.sampled_from(["", *_READS]),
        harmful=st.sampled_from(_HARMFUL),
        spelling=st.sampled_from(_SPELLINGS),
        tail=st.sampled_from(["", " RETURN 1 AS one"]),
    )
    def attempt(prefix, harmful, spelling, tail):
        clause = harmful.replace("{file}", secret.as_uri()).replace("{url}", url)
        query = spelling(f"{prefix} {clause}{tail if 'RETURN' not in clause else ''}".strip())
        try:
            rows = graph_store.read_query(query)
        except Exception as exc:  # refused by the gate, or a syntax error: either way nothing ran
            assert not isinstance(exc, AssertionError)
            return
        assert "secret-3f9c1a" not in repr(rows), query
        pytest.fail(f"a harmful query ran: {query!r} -> {rows!r}")

    try:
        attempt()
    finally:
        sentinel = graph_store._driver.execute_query("MATCH (s:Sentinel) RETURN s.made AS made").records
        labels = graph_store._driver.execute_query("CALL db.labels() YIELD label RETURN collect(label) AS l").records[
            0
        ]["l"]
        indexes = graph_store._driver.execute_query("SHOW INDEXES YIELD name WHERE name = 'made' RETURN name").records
        graph_store._driver.execute_query("MATCH (s:Sentinel) DETACH DELETE s")
    assert [r["made"] for r in sentinel] == [False], "the graph was changed"
    assert set(labels) <= set(before) | {"Sentinel"} and "Made" not in labels
    assert not indexes and not hits, f"requests reached the network: {hits}"
    # The gate is not a wall: the same generated spellings of reads pass.
    for spelling in _SPELLINGS:
        read = spelling("RETURN 'CREATE (n) LOAD CSV' AS text")
        assert [list(row.values()) for row in graph_store.read_query(read)] == [[read.split("'")[1]]]
