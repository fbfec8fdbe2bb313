"""The row writes that keep their cached plan (``CYPHER replan=skip``) must not depend on the
graph's counts: every node they read is found by a unique-id seek, even when the server plans
them on an empty graph. A scan or a non-unique index seek there would be kept, stale, for as
long as the plan stays cached."""

from __future__ import annotations

import itertools

import pytest

from branchgraph.core.model import NODE_LABELS, SYMBOL_LABELS
from branchgraph.graph import neo4j_writes

pytestmark = pytest.mark.neo4j

SOME_EDGE_TYPES = ("CALLS", "DEFINES", "TESTED_BY")  # the statement's shape does not depend on the type


def _kept_plan_statements() -> list[str]:
    statements = [neo4j_writes._create_nodes_query(label) for label in NODE_LABELS]
    statements += [neo4j_writes._merge_nodes_query(label) for label in NODE_LABELS]
    statements += [neo4j_writes._delete_nodes_query(label) for label in NODE_LABELS]
    statements += [
        neo4j_writes._create_edges_query(edge_type, source, target, lookup)
        for edge_type in SOME_EDGE_TYPES
        for source, target in itertools.product(NODE_LABELS, repeat=2)
        for lookup in ("MATCH", "MERGE")
    ]
    statements += [
        neo4j_writes._coverage_edges_query(source, test)
        for source, test in itertools.product(SYMBOL_LABELS, ("Function", "Method"))
    ]
    return statements


# An update's statements by file path: the File is found by its (repo, branch, path) index.
_FILE_PATH_STATEMENTS = (
    neo4j_writes._OWNED_NODES_QUERY,
    neo4j_writes._DELETE_OWNED_EDGES_QUERY,
    neo4j_writes._DELETE_FILES_QUERY,
)


def _operators(plan: dict) -> list[str]:
    return [plan["operatorType"].split("@")[0]] + [op for child in plan.get("children", []) for op in _operators(child)]


def test_every_kept_plan_statement_says_so():
    assert all(s.startswith(neo4j_writes.KEEP_PLAN) for s in _kept_plan_statements() + list(_FILE_PATH_STATEMENTS))


def test_kept_plan_statements_unwind_rows_from_a_map():
    # A list parameter's length is part of the plan cache's key; a map's contents are not.
    statements = _kept_plan_statements() + list(_FILE_PATH_STATEMENTS)
    assert all("UNWIND $batch.rows AS " in s and "$rows" not in s for s in statements)
    assert neo4j_writes.rows_parameter([1, 2]) == {"batch": {"rows": [1, 2]}}


def test_kept_plans_read_nodes_by_unique_id_only(graph_store):
    graph_store.ensure_schema()
    with graph_store._driver.session() as session:
        for statement in _kept_plan_statements():
            plan = session.run("EXPLAIN " + statement, batch={"rows": []}, repo="r", branch="b", run="x").consume().plan
            operators = _operators(plan)
            readers = [op for op in operators if "Scan" in op or "Seek" in op or op.startswith("Node")]
            if "MATCH" in statement or "MERGE" in statement:
                assert readers, (statement, operators)
            assert all(op.startswith("NodeUniqueIndexSeek") for op in readers), (statement, operators)


def test_kept_file_path_plans_seek_the_files_path_index(graph_store):
    graph_store.ensure_schema()
    with graph_store._driver.session() as session:
        for statement in _FILE_PATH_STATEMENTS:
            plan = session.run("EXPLAIN " + statement, batch={"rows": []}, repo="r", branch="b").consume().plan
            readers = [op for op in _operators(plan) if "Scan" in op or "Seek" in op or op.startswith("Node")]
            assert readers == ["NodeIndexSeek"], (statement, readers)
            assert "f:File(repo, branch, path)" in str(_details(plan)), statement


def _details(plan: dict) -> list[str]:
    own = [str(plan.get("args", {}).get("Details", ""))]
    return own + [d for child in plan.get("children", []) for d in _details(child)]
