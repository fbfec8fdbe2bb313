"""Ingest end to end against real Neo4j and PostgreSQL with pgvector."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from dulwich.repo import Repo
from expected_goshop import EDGES as GOSHOP_EDGES
from expected_goshop import FILES as GOSHOP_FILES
from expected_shop import EDGES, FILES, SYMBOLS, UNRESOLVED
from expected_webshop import EDGES as WEBSHOP_EDGES
from expected_webshop import FILES as WEBSHOP_FILES
from gitrepo import Symlink, commit_files, init_repo
from graph_view import sql, stored_edge_count, stored_edges
from test_resolve_python import resolve

from branchgraph import api
from branchgraph.core.embed.hashing import HashingEmbedder
from branchgraph.core.errors import GitError, ReadOnlyViolation
from branchgraph.ingest.pipeline import IngestOptions, IngestStores, ingest_branch

pytestmark = [pytest.mark.neo4j, pytest.mark.postgres]


def test_shop_graph_is_stored_exactly(shop_repo: Path, config, graph_store):
    summary = api.ingest(shop_repo, config=config)
    repo = shop_repo.name
    assert (summary.repo, summary.branch, summary.files) == (repo, "main", len(FILES))
    assert stored_edges(graph_store, repo, "main") == EDGES
    symbols = graph_store.read_query(
        "MATCH (n {repo: $repo, branch: 'main'}) WHERE n:Class OR n:Function OR n:Method "
        "RETURN labels(n)[0] AS label, n.qualname AS q, n.start_line AS s, n.end_line AS e, n.is_test AS t",
        {"repo": repo},
    )
    assert {(r["label"], r["q"]): (r["s"], r["e"], r["t"]) for r in symbols} == SYMBOLS
    unresolved = graph_store.read_query(
        "MATCH (u:Unresolved {repo: $repo, branch: 'main'}) RETURN u.raw AS raw, u.reason AS reason", {"repo": repo}
    )
    assert {r["raw"]: r["reason"] for r in unresolved} == UNRESOLVED
    raw = graph_store.read_query(
        "MATCH (:Method {repo: $repo, qualname: 'tests.tests_tax.TaxTests.test_rate'})-[r:CALLS]->(:Unresolved) "
        "RETURN r.raw AS raw, r.line AS line",
        {"repo": repo},
    )
    assert raw == [{"raw": "self.assertEqual", "line": 8}]


def test_typescript_monorepo_is_stored_exactly(webshop_repo: Path, config, graph_store):
    """Project files (package.json workspaces, tsconfig.json aliases) are read from the commit."""
    summary = api.ingest(webshop_repo, config=config)
    assert summary.files == len(WEBSHOP_FILES)
    assert stored_edges(graph_store, webshop_repo.name, "main") == WEBSHOP_EDGES


def test_go_module_is_stored_exactly(goshop_repo: Path, config, graph_store):
    """go.mod is read from the commit: the module path maps imports to package folders."""
    summary = api.ingest(goshop_repo, config=config)
    assert summary.files == len(GOSHOP_FILES)
    assert stored_edges(graph_store, goshop_repo.name, "main") == GOSHOP_EDGES


def test_summary_counts_match_the_store(shop_repo: Path, config, graph_store):
    summary = api.ingest(shop_repo, config=config)
    assert summary.nodes == {"Class": 6, "File": 10, "Function": 5, "Method": 14, "Unresolved": len(UNRESOLVED)}
    by_type: dict[str, int] = {}
    for _, edge_type, _, _ in EDGES:
        by_type[edge_type] = by_type.get(edge_type, 0) + 1
    assert summary.edges == by_type
    assert sum(summary.edges.values()) == stored_edge_count(graph_store, shop_repo.name, "main")
    dangling_unresolved = sum(1 for _, _, target, ok in EDGES if not ok and UNRESOLVED[target] == "unresolved")
    dangling_external = sum(1 for _, _, target, ok in EDGES if not ok and UNRESOLVED[target] == "external")
    assert summary.dangling == {"external": dangling_external, "unresolved": dangling_unresolved}
    resolved_refs = sum(1 for _, t, _, ok in EDGES if ok and t not in ("DEFINES", "TESTED_BY"))
    assert summary.unresolved_rate == round(dangling_unresolved / (resolved_refs + dangling_unresolved), 4)
    assert set(summary.seconds) == {"read", "parse", "resolve", "graph_write", "embed", "record", "total"}


def test_reingest_is_idempotent(shop_repo: Path, config, graph_store, pg_store):
    first = api.ingest(shop_repo, config=config)
    edges_before = stored_edges(graph_store, shop_repo.name, "main")
    count_before = stored_edge_count(graph_store, shop_repo.name, "main")
    second = api.ingest(shop_repo, config=config)
    assert stored_edges(graph_store, shop_repo.name, "main") == edges_before
    assert stored_edge_count(graph_store, shop_repo.name, "main") == count_before
    assert second.nodes == first.nodes
    # The same commit again: every file is the blob its record was made from, so nothing is
    # read from the parse cache, resolved or written; the counts come from the records.
    assert second.strategy == "update"
    assert second.work["files_written"] == 0 and second.work["files_parsed"] == 0
    assert second.work["parse_cache_hits"] == 0 and second.work["files_resolved"] == 0
    assert (second.files, second.edges, second.dangling) == (first.files, first.edges, first.dangling)
    assert second.unresolved_rate == first.unresolved_rate and second.parse_errors == first.parse_errors
    # --full rewrites every file, but nothing is embedded twice: texts are found by content key.
    assert sum(first.embeddings.values()) == len(SYMBOLS)
    full = api.ingest(shop_repo, config=config, full=True)
    assert full.work["files_written"] == len(FILES) and full.work["files_parsed"] == len(FILES)
    assert full.embeddings == {"computed": 0, "reused": len(SYMBOLS), "carried": 0}
    assert stored_edges(graph_store, shop_repo.name, "main") == edges_before
    assert stored_edge_count(graph_store, shop_repo.name, "main") == count_before
    assert pg_store.node_embedding_count(shop_repo.name, "main") == len(SYMBOLS)


def test_vectors_are_stored_and_joined_to_nodes(shop_repo: Path, config, graph_store, pg_store):
    api.ingest(shop_repo, config=config)
    rows = sql(
        pg_store,
        "SELECT n.node_id, n.qualname, e.dims, e.model, e.embedding FROM node_embeddings n "
        "JOIN embeddings e USING (content_key) WHERE n.repo = %s AND n.branch = 'main'",
        (shop_repo.name,),
    )
    assert len(rows) == len(SYMBOLS)
    assert {r[2] for r in rows} == {256} and {r[3] for r in rows} == {"feature-hashing-v1"}
    assert all(abs(float(np.linalg.norm(r[4].to_numpy())) - 1.0) < 1e-4 for r in rows)
    ids = graph_store.read_query(
        "MATCH (n {repo: $repo, branch: 'main'}) WHERE n:Class OR n:Function OR n:Method RETURN n.id AS id, n.qualname AS q",
        {"repo": shop_repo.name},
    )
    assert {(r["id"], r["q"]) for r in ids} == {(r[0], r[1]) for r in rows}


def test_branches_are_separate_and_rev_indexes_an_older_commit(repo_dir: Path, config, graph_store):
    repo = init_repo(repo_dir)
    first = commit_files(repo, {"app.py": "def old():\n    pass\n"})
    commit_files(repo, {"app.py": "def new():\n    pass\n"})
    api.ingest(repo_dir, config=config)
    api.ingest(repo_dir, branch="release", rev=first, config=config)
    names = graph_store.read_query(
        "MATCH (f:Function {repo: $repo}) RETURN f.branch AS branch, f.name AS name ORDER BY branch",
        {"repo": repo_dir.name},
    )
    assert names == [{"branch": "main", "name": "new"}, {"branch": "release", "name": "old"}]
    states = {s.branch: s for s in api.status(repo_dir, config=config)}
    assert states["main"].behind_commits == 0
    assert states["release"].head_commit is None  # no git branch of that name


def test_a_new_commit_replaces_deleted_files_and_symbols(repo_dir: Path, config, graph_store):
    repo = init_repo(repo_dir)
    commit_files(repo, {"a.py": "def f():\n    g()\n\ndef g():\n    pass\n", "b.py": "def h():\n    pass\n"})
    api.ingest(repo_dir, config=config)
    commit_files(repo, {"a.py": "def f():\n    g()\n"})
    summary = api.ingest(repo_dir, config=config)
    assert summary.files_deleted == 1
    rows = graph_store.read_query(
        "MATCH (n {repo: $repo, branch: 'main'}) RETURN labels(n)[0] AS label, coalesce(n.qualname, n.raw) AS name",
        {"repo": repo_dir.name},
    )
    assert sorted((r["label"], r["name"]) for r in rows) == [("File", "a"), ("Function", "a.f"), ("Unresolved", "g")]
    state = api.status(repo_dir, config=config)[0]
    assert state.indexed_commit == repo.refs[b"refs/heads/main"].decode()


def test_bad_files_are_counted_not_fatal(repo_dir: Path, config, graph_store):
    repo = init_repo(repo_dir)
    commit_files(
        repo,
        {
            "ok.py": "def fine():\n    pass\n",
            "broken.py": "def broken(:\n    pass\n\ndef after():\n    pass\n",
            "binary.py": b"\x00\x01\x02binary",
            "latin1.py": b"name = 'caf\xe9'\n",
            "huge.py": b"x = 1\n" * 200_000,
            "lfs.py": b"version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 1\n",
            "escape.py": Symlink("../../../etc/passwd"),
            "conflict.py": "def c():\n<<<<<<< HEAD\n    return 1\n=======\n    return 2\n>>>>>>> other\n",
            "README.md": "# not source\n",
        },
    )
    summary = api.ingest(repo_dir, config=config)
    assert summary.files == 3
    assert summary.skipped == {"binary": 1, "lfs_pointer": 1, "not_utf8": 1, "symlink": 1, "too_large": 1}
    assert summary.parse_errors > 0
    assert summary.conflict_files == ["conflict.py"]
    names = {
        r["n"]
        for r in graph_store.read_query("MATCH (f:Function {repo: $repo}) RETURN f.name AS n", {"repo": repo_dir.name})
    }
    assert {"fine", "after"} <= names
    flagged = graph_store.read_query(
        "MATCH (f:File {repo: $repo, path: 'conflict.py'}) RETURN f.has_conflict AS c", {"repo": repo_dir.name}
    )
    assert flagged == [{"c": True}]


def test_read_only_cypher_refuses_writes(shop_repo: Path, config):
    api.ingest(shop_repo, config=config)
    with pytest.raises(ReadOnlyViolation):
        api.cypher("MATCH (n {repo: $repo}) SET n.touched = true", {"repo": shop_repo.name}, config=config)
    with pytest.raises(ReadOnlyViolation):
        api.cypher("CREATE (:Function {repo: $repo})", {"repo": shop_repo.name}, config=config)
    rows = api.cypher(
        "MATCH (n {repo: $repo, touched: true}) RETURN count(n) AS n", {"repo": shop_repo.name}, config=config
    )
    assert rows == [{"n": 0}]


def test_cypher_row_limit(shop_repo: Path, config):
    api.ingest(shop_repo, config=config)
    rows = api.cypher("MATCH (n {repo: $repo}) RETURN n.id AS id", {"repo": shop_repo.name}, config=config, limit=3)
    assert len(rows) == 3


def test_unknown_branch_is_a_clear_error(shop_repo: Path, config):
    with pytest.raises(GitError, match="no branch named 'nope'"):
        api.ingest(shop_repo, branch="nope", config=config)


def test_embedded_postgres_default_lives_in_the_index_dir(shop_repo: Path, neo4j_uri, graph_store):
    from branchgraph.core.config import Config

    config = Config(neo4j_uri=neo4j_uri, embedder="hashing")
    summary = api.ingest(shop_repo, config=config)
    assert summary.embeddings["computed"] == len(SYMBOLS)
    assert (shop_repo / ".branchgraph" / "postgres" / "PG_VERSION").exists()
    assert (shop_repo / ".branchgraph" / ".gitignore").read_text() == "*\n"
    assert [s.branch for s in api.status(shop_repo, config=config)] == ["main"]


def test_a_crashed_first_ingest_converges_on_rerun(shop_repo: Path, shop_sources, config, graph_store, pg_store):
    # A first ingest that died mid-write: the run is open and only some files reached the graph.
    partial = [s for s in resolve(shop_sources, repo=shop_repo.name) if s.path.startswith("src/shop/billing")]
    pg_store.start_run(shop_repo.name, "main", "0" * 40)
    graph_store.write_new_branch(shop_repo.name, "main", partial)
    [state] = api.status(shop_repo, config=config)  # reported as a graph without a record, not as indexed
    assert state.indexed_commit == "" and "PostgreSQL has no record" in state.problem

    api.ingest(shop_repo, config=config)
    assert stored_edges(graph_store, shop_repo.name, "main") == EDGES
    assert pg_store.branch_is_new(shop_repo.name, "main") is False


def test_named_queries_answer_impact_questions(shop_repo: Path, config):
    api.ingest(shop_repo, config=config)
    base = {"repo": shop_repo.name, "branch": "main"}
    callers = api.run_named_query("callers", {**base, "qualname": "shop.billing.tax.rate"}, config=config)
    assert [(r["caller"], r["distance"]) for r in callers] == [
        ("shop.billing.tax.apply", 1),
        ("tests.tests_tax.TaxTests.test_rate", 1),
        ("shop.billing.invoice.Invoice.total", 2),
        ("tests.tests_tax.TaxTests.helper", 2),
        ("shop.billing.invoice.Invoice.render", 3),
        ("shop.payments.Payment.full", 3),
        ("tests.test_invoice.test_total", 3),  # invoice = make_invoice(); invoice.total()
    ]
    tests = api.run_named_query(
        "tests_for", {**base, "qualname": "shop.billing.invoice.Invoice.add_line"}, config=config
    )
    assert [r["test"] for r in tests] == ["tests.test_invoice.test_total", "tests.test_invoice.TestPayment.test_refund"]
    callees = api.run_named_query(
        "callees", {**base, "qualname": "shop.billing.invoice.Invoice.render", "depth": 1}, config=config
    )
    assert {r["callee"] for r in callees} == {
        "shop.billing.invoice.Invoice.total",
        "shop.core.base.BaseDocument.validate",
        "shop.core.money.format_money",
        "json.dumps",
    }
    dangling = api.run_named_query("dangling", base, config=config)
    assert {r["raw"] for r in dangling} == {raw for raw, reason in UNRESOLVED.items() if reason == "unresolved"}
    symbol = api.run_named_query("symbol", {**base, "name": "refund"}, config=config)
    assert [(r["qualname"], r["start_line"]) for r in symbol] == [("shop.payments.Payment.refund", 13)]
    # Inside a repository, `repo` and `branch` default to it and its checked-out branch.
    assert api.run_named_query("symbol", {"name": "refund"}, path=shop_repo, config=config) == symbol
    rows = api.cypher(
        "MATCH (m:Method {repo: $repo, branch: $branch, name: 'refund'}) RETURN m.qualname AS q",
        path=shop_repo,
        config=config,
    )
    assert rows == [{"q": "shop.payments.Payment.refund"}]


def test_named_query_parameters_are_checked():
    from branchgraph import UnknownQuery

    with pytest.raises(UnknownQuery, match="needs --param for qualname"):
        api.run_named_query("callers", {"repo": "r", "branch": "b"})
    with pytest.raises(UnknownQuery, match="no parameter nope"):
        api.run_named_query("callers", {"nope": 1})
    with pytest.raises(UnknownQuery, match="no named query"):
        api.run_named_query("nosuch", {})
    assert {q.name for q in api.list_queries()} == {
        "branch_files",
        "branch_tests",
        "callers",
        "callees",
        "check_dangling",
        "coverage_tests",
        "dangling",
        "expand",
        "file_edges",
        "file_symbols",
        "impact_step",
        "impact_tests",
        "impact_unknowns",
        "impact_upstream",
        "instance_sites",
        "library_subtypes",
        "symbol",
        "symbol_names",
        "symbols_named",
        "test_files_imports",
        "tests_for",
        "tests_walk_step",
    }


def test_a_bare_clone_is_indexed_from_its_object_store(shop_repo: Path, tmp_path: Path, config, graph_store):
    from dulwich import porcelain

    bare = tmp_path / f"{shop_repo.name}.git"
    porcelain.clone(str(shop_repo), str(bare), bare=True, checkout=False).close()
    summary = api.ingest(bare, config=config)
    assert summary.repo == shop_repo.name  # the .git suffix is not part of the name
    assert summary.files == len(FILES)
    assert stored_edges(graph_store, shop_repo.name, "main") == EDGES


def test_switching_the_embedder_re_embeds_every_symbol(shop_repo: Path, config, pg_store):
    import dataclasses

    api.ingest(shop_repo, config=config)
    switched = api.ingest(shop_repo, config=dataclasses.replace(config, embedding_dims=64))
    assert switched.work["files_written"] == 0  # the graph did not change
    assert sum(switched.embeddings.values()) == len(SYMBOLS)
    dims = sql(
        pg_store,
        "SELECT DISTINCT e.dims FROM node_embeddings n JOIN embeddings e USING (content_key) WHERE n.repo = %s",
        (shop_repo.name,),
    )
    assert dims == [(64,)]
    assert pg_store.branch_record(shop_repo.name, "main").embedder == "feature-hashing-v1/64"


def test_expand_gathers_callees_callers_types_bases_tests_and_the_enclosing_class(shop_repo: Path, config):
    api.ingest(shop_repo, config=config)
    base = {"repo": shop_repo.name, "branch": "main"}
    rows = api.run_named_query("expand", {**base, "qualnames": ["shop.payments.Payment.refund"]}, config=config)
    got = {(r["kind"], r["qualname"], r["distance"]) for r in rows}
    assert got == {
        ("callee", "shop.billing.invoice.Invoice.add_line", 1),
        ("callee", "shop.core.money.format_money", 1),
        ("callee", "shop.payments.Payment", 1),
        ("callee", "shop.billing.invoice.Line", 2),
        ("caller", "tests.test_invoice.TestPayment.test_refund", 1),
        ("type", "shop.billing.invoice.Invoice", 1),
        ("type", "shop.payments.Payment", 1),
        ("test", "tests.test_invoice.TestPayment.test_refund", 1),
        ("enclosing class", "shop.payments.Payment", 1),
    }
    invoice = api.run_named_query("expand", {**base, "qualnames": ["shop.billing.invoice.Invoice"]}, config=config)
    assert ("base", "shop.core.base.BaseDocument") in {(r["kind"], r["qualname"]) for r in invoice}
    capped = api.run_named_query(
        "expand", {**base, "qualnames": ["shop.payments.Payment.refund"], "limit": 3}, config=config
    )
    assert len(capped) == 3 and all(r["distance"] == 1 for r in capped)


class _EmbedderThatFails(HashingEmbedder):
    """The hashing embedder (same model id and size), except that computing vectors fails: a
    model crashing in the middle of an ingest."""

    def embed(self, texts):
        raise RuntimeError("the embedder crashed")


def test_an_embedder_failing_mid_ingest_leaves_the_vector_rows_as_they_were(
    shop_repo: Path, shop_sources, config, graph_store, pg_store
):
    """The node rows are written while the vectors are computed (on another connection); when
    computing fails they roll back, and a re-run brings them to the new commit."""
    api.ingest(shop_repo, config=config)
    rows = "SELECT node_id, content_key, lexical FROM node_embeddings WHERE repo = %s ORDER BY node_id"
    before = sql(pg_store, rows, (shop_repo.name,))
    changed = dict(shop_sources)
    changed["src/shop/payments.py"] += b"\n\ndef settle_refunds(batch):\n    return batch\n"
    commit_files(Repo(str(shop_repo)), changed, message="settle refunds")
    with pytest.raises(RuntimeError, match="the embedder crashed"):
        ingest_branch(shop_repo, IngestStores(graph_store, pg_store, _EmbedderThatFails()), IngestOptions())
    assert sql(pg_store, rows, (shop_repo.name,)) == before
    api.ingest(shop_repo, config=config)
    after = {row[0]: row for row in sql(pg_store, rows, (shop_repo.name,))}
    assert len(after) == len(before) + 1
    assert any("settle refunds" in row[2] for row in after.values())
