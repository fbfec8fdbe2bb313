"""Entry search over the shop fixture: vector + full-text, fused, exact names boosted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from graph_view import sql

from branchgraph import EmbedderMismatch, api
from branchgraph.cli import cli
from branchgraph.core.errors import NotIndexed
from branchgraph.retrieval.query import FileMentions

pytestmark = [pytest.mark.neo4j, pytest.mark.postgres]


@pytest.fixture
def indexed_shop(shop_repo: Path, config) -> Path:
    api.ingest(shop_repo, config=config)
    return shop_repo


def test_an_identifier_in_the_query_ranks_its_symbol_first(indexed_shop, config):
    hits = api.search("where is refund implemented", repo=indexed_shop, config=config, k=5)
    assert hits[0].qualname == "shop.payments.Payment.refund"
    assert hits[0].exact and hits[0].lexical_rank is not None and hits[0].dense_rank is not None
    assert "tests.test_invoice.TestPayment.test_refund" in [h.qualname for h in hits]  # "refund" in its name
    assert (hits[0].start_line, hits[0].end_line) == (13, 16)


def test_identifier_parts_are_found_by_full_text(indexed_shop, config):
    hits = api.search("format money", repo=indexed_shop, config=config, k=3)
    assert hits[0].qualname == "shop.core.money.format_money"
    assert hits[0].lexical_rank is not None and not hits[0].exact
    whole = api.search("format_money", repo=indexed_shop, config=config, k=3)
    assert whole[0].qualname == "shop.core.money.format_money" and whole[0].exact


def test_hits_are_limited_and_carry_both_ranks(indexed_shop, config):
    hits = api.search("invoice total with tax", repo=indexed_shop, config=config, k=4)
    assert len(hits) == 4
    assert "shop.billing.invoice.Invoice.total" in [h.qualname for h in hits]
    assert all(h.dense_rank is not None or h.lexical_rank is not None for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_a_branch_embedded_by_another_model_is_refused(indexed_shop, config):
    import dataclasses

    with pytest.raises(EmbedderMismatch, match="feature-hashing-v1/256"):
        api.search("refund", repo=indexed_shop, config=dataclasses.replace(config, embedding_dims=64))


def test_an_unindexed_branch_is_a_clear_error(shop_repo, config):
    with pytest.raises(NotIndexed, match="is not indexed"):
        api.search("refund", repo=shop_repo, config=config)


def test_search_cli_json(indexed_shop, neo4j_uri, pg_url):
    env = {"BRANCHGRAPH_NEO4J_URI": neo4j_uri, "BRANCHGRAPH_DATABASE_URL": pg_url, "BRANCHGRAPH_EMBEDDER": "hashing"}
    result = CliRunner().invoke(cli, ["search", "refund", "--repo", str(indexed_shop), "-k", "2", "--json"], env=env)
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)
    assert len(hits) == 2 and hits[0]["qualname"] == "shop.payments.Payment.refund"
    human = CliRunner().invoke(cli, ["search", "refund", "--repo", str(indexed_shop)], env=env)
    first = human.output.splitlines()[0]
    assert "shop.payments.Payment.refund  src/shop/payments.py:13-16  (vector, text, name)" in first


def test_the_vector_index_scan_is_not_starved_by_other_branches(indexed_shop, config, pg_store):
    """3,000 vectors of another repository sit nearer the query than any of the shop's: a
    plain HNSW scan (ef_search 40) finds none of the shop's after the branch filter; the
    iterative scan walks on until k of them pass."""
    import numpy as np

    from branchgraph.core.embed import make_embedder
    from branchgraph.graph.pg_vectors import approximate_nearest_sql

    embedder = make_embedder("hashing")
    query = np.asarray(embedder.embed(["refund the invoice"])[0], dtype=np.float32)
    rng = np.random.default_rng(7)
    crowd = [(f"crowd-{i}", query + rng.normal(0, 0.01, query.shape).astype(np.float32)) for i in range(3000)]
    pg_store.put_embeddings(embedder.model_id, crowd)
    with pg_store.connection() as conn, conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO node_embeddings (repo, branch, node_id, label, path, qualname, content_key, lexical) "
            "VALUES ('crowd', 'main', %s, 'Function', 'c.py', %s, %s, '')",
            [(key, key, key) for key, _ in crowd],
        )
    pg_store.ensure_vector_index(embedder.model_id, embedder.dims)
    pg_store.refresh_statistics()
    repo = indexed_shop.name
    params = {"q": query, "model": embedder.model_id, "repo": repo, "branch": "main", "k": 10}
    try:
        # On a branch this small the planner would rather sort its few vectors; make it walk the
        # index as it does on a large one (django: HNSW scan + semi-join, 18 ms).
        sql(pg_store, "SET enable_sort = off")
        plan = "\n".join(r[0] for r in sql(pg_store, sql_explain(approximate_nearest_sql(embedder.dims)), params))
        assert "embeddings_hnsw" in plan
        sql(pg_store, "SET hnsw.iterative_scan = off")
        starved = sql(pg_store, approximate_nearest_sql(embedder.dims), params)
        assert len(starved) < 10  # the control: without iterative scans the filter starves it
        hits = pg_store.dense_search(repo, "main", embedder.model_id, query, 10, exact_fallback=False)
        assert len(hits) == 10 and all(row.path.startswith(("src/shop/", "tests/")) for _, _, row in hits)
    finally:
        sql(pg_store, "RESET enable_sort")
        sql(pg_store, "RESET hnsw.iterative_scan")
        sql(pg_store, "DELETE FROM node_embeddings WHERE repo = 'crowd'")
        sql(pg_store, "DELETE FROM embeddings WHERE content_key LIKE 'crowd-%%'")


def test_node_similarities_are_cosines_computed_by_the_server(pg_store):
    """The cosine of each node's vector to the query, as numpy computes it; a zero vector
    (no direction: pgvector's distance is NaN) is 0, and a node without a vector is absent."""
    import numpy as np

    rng = np.random.default_rng(11)
    query = rng.normal(size=16).astype(np.float32)
    vectors = {f"cosine-{i}": rng.normal(size=16).astype(np.float32) for i in range(5)}
    vectors["cosine-zero"] = np.zeros(16, dtype=np.float32)
    pg_store.put_embeddings("cosine-model", list(vectors.items()))
    with pg_store.connection() as conn, conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO node_embeddings (repo, branch, node_id, label, path, qualname, content_key, lexical) "
            "VALUES ('cosine', 'main', %s, 'Function', 'c.py', %s, %s, '')",
            [(key, key, key) for key in vectors],
        )
    try:
        ids = [*vectors, "no-such-node"]
        found = pg_store.node_similarities("cosine", "main", "cosine-model", query, ids)
        assert set(found) == set(vectors)
        for key, vector in vectors.items():
            norm = np.linalg.norm(vector) * np.linalg.norm(query)
            expected = float(vector @ query / norm) if norm else 0.0
            assert abs(found[key] - expected) < 1e-5, key
        assert pg_store.node_similarities("cosine", "other", "cosine-model", query, ids) == {}
    finally:
        sql(pg_store, "DELETE FROM node_embeddings WHERE repo = 'cosine'")
        sql(pg_store, "DELETE FROM embeddings WHERE content_key LIKE 'cosine-%%'")


def sql_explain(statement):
    from psycopg import sql as psql

    return psql.SQL("EXPLAIN ") + statement


def test_camel_snake_and_code_identifiers_are_found_by_parts_and_whole(repo_dir, config):
    from gitrepo import commit_files, init_repo

    commit_files(
        init_repo(repo_dir),
        {
            "conf.py": (
                "def parseConfigFile(path):\n    return open(path).read()\n\n\n"
                "def parse_config_file(path):\n    return parseConfigFile(path)\n\n\n"
                'def check_token(token):\n    """Raise ERR_AUTH_001 when the token has expired."""\n    return token\n\n\n'
                "def unrelated():\n    return 1\n"
            )
        },
    )
    api.ingest(repo_dir, config=config)

    def lexical(query: str) -> list[str]:
        return [h.qualname for h in api.search(query, repo=repo_dir, config=config, k=3, mode="lexical")]

    for query in ("parseConfigFile", "parse config file", "config file parsing", "parse_config_file"):
        assert set(lexical(query)[:2]) == {"conf.parseConfigFile", "conf.parse_config_file"}, query
    for query in ("ERR_AUTH_001", "err auth 001", "auth 001"):
        assert lexical(query)[0] == "conf.check_token", query
    whole = api.search("parseConfigFile", repo=repo_dir, config=config, k=2)
    assert whole[0].qualname == "conf.parseConfigFile" and whole[0].exact


def test_rows_from_before_spans_were_kept_take_them_from_the_graph(indexed_shop, config, pg_store):
    # A store upgraded in place holds NULL spans until its files are written again.
    sql(
        pg_store,
        "UPDATE node_embeddings SET start_line = NULL, end_line = NULL, has_conflict = NULL WHERE repo = %s",
        (indexed_shop.name,),
    )
    hits = api.search("where is refund implemented", repo=indexed_shop, config=config, k=3)
    assert hits[0].qualname == "shop.payments.Payment.refund" and (hits[0].start_line, hits[0].end_line) == (13, 16)
    assert hits[0].has_conflict is False


def test_full_text_reaches_words_only_a_body_holds_and_rare_words_outrank_common_ones(repo_dir, config):
    from gitrepo import commit_files, init_repo

    helpers = "".join(f"def helper_{i}(value):\n    return value.strip() + '{i}'\n\n\n" for i in range(12))
    commit_files(
        init_repo(repo_dir),
        {
            "settings.py": (
                "import os\n\n\n"
                "def load_settings():\n    return {'timeout': int(os.environ.get('APP_REQUEST_TIMEOUT', '30'))}\n\n\n"
                "def describe(value):\n    return 'settings value ' + value.strip()\n\n\n"
            ),
            "helpers.py": helpers,
            "models.py": (
                "class Account:\n    '''A customer account.'''\n\n    kind = 'account'\n\n"
                "    def close(self):\n        return self.balance_overdraft_limit_exceeded()\n"
            ),
        },
    )
    api.ingest(repo_dir, config=config)

    def lexical(query: str) -> list[str]:
        return [h.qualname for h in api.search(query, repo=repo_dir, config=config, k=3, mode="lexical")]

    # The variable name is written only in the function's body.
    assert lexical("APP_REQUEST_TIMEOUT")[0] == "settings.load_settings"
    assert lexical("request timeout from the environment")[0] == "settings.load_settings"
    # "strip" is in 13 functions, "settings" in two: BM25's IDF puts the rare word first.
    assert lexical("strip settings value")[0] == "settings.describe"
    # A class's document holds its own lines, not its methods' bodies.
    assert lexical("overdraft limit exceeded")[0] == "models.Account.close"


def test_term_counts_stop_where_a_term_is_common_and_only_common_terms_are_counted_in_full(
    repo_dir, config, pg_store, monkeypatch
):
    from gitrepo import commit_files, init_repo

    from branchgraph.retrieval import search as search_module

    helpers = "".join(f"def helper_{i}(value):\n    return value.strip() + '{i}'\n\n\n" for i in range(12))
    commit_files(init_repo(repo_dir), {"helpers.py": helpers, "other.py": "def lonely():\n    return 'rare'\n"})
    summary = api.ingest(repo_dir, config=config)
    record = pg_store.branch_record(summary.repo, "main")
    at = (summary.repo, "main", record.indexed_commit)

    stats = pg_store.term_stats(*at, ["strip", "rare", "absent"], count_up_to=5)
    assert stats.more_than == {"strip": 5}  # in 12 rows: counting stopped past 5
    assert stats.document_frequency == {"rare": 1, "absent": 0}
    assert pg_store.term_stats(*at, ["strip"], count_up_to=3).more_than == {"strip": 5}  # known: not counted again
    exact = pg_store.term_stats(*at, ["strip"])
    assert exact.document_frequency["strip"] == 12 and "strip" not in exact.more_than

    # In search: with 5 rows as "common", the common term is left out beside a rare one, and a
    # question of common terms alone is ranked by them, counted in full.
    monkeypatch.setattr(search_module, "COMMON_TERM_FLOOR", 5)
    monkeypatch.setattr(search_module, "COMMON_TERM_SHARE", 0.0)

    def lexical(query: str) -> list[str]:
        return [h.qualname for h in api.search(query, repo=repo_dir, config=config, k=20, mode="lexical")]

    assert lexical("strip rare") == ["other.lonely"]
    assert len(lexical("strip value")) == 12


def test_the_files_a_question_names_give_their_symbols_in_source_order(indexed_shop, pg_store):
    def named(paths=(), modules=(), labels=("Function", "Method", "Class")):
        patterns = FileMentions((), tuple(modules)).module_patterns()
        rows = pg_store.rows_in_files(indexed_shop.name, "main", paths, patterns, labels, 50)
        found = [(row.path, row.qualname) for _, row in rows]
        # The ranking's feature says the same of each file as the query did.
        assert all(FileMentions(tuple(paths), tuple(modules)).name(path) for path, _ in found)
        return found

    tax = [("src/shop/billing/tax.py", "shop.billing.tax.rate"), ("src/shop/billing/tax.py", "shop.billing.tax.apply")]
    assert named(paths=["billing/tax.py"]) == tax == named(paths=["src/shop/billing/tax.py"]) == named(modules=["tax"])
    assert named(paths=["ax.py"]) == [] and named(modules=["ta"]) == []  # whole path parts only
    billing = named(modules=["billing"])  # a package: every file under its folder
    assert {path for path, _ in billing} == {"src/shop/billing/invoice.py", "src/shop/billing/tax.py"}
    assert named(modules=["billing/tax"]) == tax and named(modules=["shop/tax"]) == []  # folders in order
    assert named(paths=["billing/invoice.py"], labels=("Class",)) == [
        ("src/shop/billing/invoice.py", "shop.billing.invoice.Line"),
        ("src/shop/billing/invoice.py", "shop.billing.invoice.Invoice"),
    ]
    assert named() == []


def test_a_branch_off_searches_its_base_words_and_its_own(repo_dir, config, pg_store):
    from gitrepo import commit_files, init_repo

    repo = init_repo(repo_dir)
    files = {
        "billing.py": "def settle_invoice(invoice):\n    return invoice.total_overdue_amount()\n",
        "audit.py": "def record_event(event):\n    return event.append_journal_entry()\n",
    }
    commit_files(repo, files)
    commit_files(
        repo,
        {**files, "audit.py": "def record_event(event):\n    return event.forward_to_ledger_archive()\n"},
        branch="feature/ledger",
    )
    summaries = api.ingest_all(repo_dir, config=config)
    assert [s.strategy for s in summaries] == ["bulk", "branch-off"]

    def lexical(query: str, branch: str) -> list[str]:
        return [h.qualname for h in api.search(query, repo=repo_dir, branch=branch, config=config, k=3, mode="lexical")]

    # Copied from main with the rows: the unchanged file's words are found on the new branch.
    assert lexical("total overdue amount", "feature/ledger")[:1] == ["billing.settle_invoice"]
    # The changed function's document is its own on each branch.
    assert lexical("ledger archive", "feature/ledger")[:1] == ["audit.record_event"]
    assert lexical("ledger archive", "main") == []
    assert lexical("journal entry", "main")[:1] == ["audit.record_event"]
    assert lexical("journal entry", "feature/ledger") == []
    missing = sql(
        pg_store,
        "SELECT count(*) FROM node_embeddings WHERE repo = %s AND lexical_tsv IS DISTINCT FROM to_tsvector('simple', lexical)",
        (repo_dir.name,),
    )
    assert missing == [(0,)]


def test_a_store_whose_lexical_vectors_were_generated_is_upgraded_in_place(pg_url):
    """Stores made before 2026-12-05 computed lexical_tsv as a generated column; opening one
    turns it into a plain column and keeps its values."""
    import uuid

    import psycopg

    from branchgraph.graph.pgstore import PgStore

    schema = f"upgrade_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("CREATE EXTENSION IF NOT EXISTS vector")
        admin.execute(f"CREATE SCHEMA {schema}")
    scoped = psycopg.conninfo.make_conninfo(pg_url, options=f"-c search_path={schema},public")
    try:
        with psycopg.connect(scoped, autocommit=True) as old:
            old.execute(
                "CREATE TABLE embeddings (content_key text PRIMARY KEY, model text, dims int, embedding vector)"
            )
            old.execute(
                "CREATE TABLE node_embeddings (repo text, branch text, node_id text, label text, path text, "
                "qualname text, content_key text REFERENCES embeddings (content_key), lexical text NOT NULL, "
                "lexical_tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', lexical)) STORED, "
                "PRIMARY KEY (repo, branch, node_id))"
            )
            old.execute("CREATE TABLE branchgraph_schema (version text PRIMARY KEY)")
            old.execute("INSERT INTO branchgraph_schema VALUES ('an older release')")
            old.execute("INSERT INTO embeddings VALUES ('k', 'm', 2, '[1,0]')")
            old.execute(
                "INSERT INTO node_embeddings VALUES ('r', 'main', 'n1', 'Function', 'a.py', 'a.f', 'k', 'overdue invoice')"
            )
        store = PgStore(scoped)
        try:
            rows = sql(
                store,
                "SELECT a.attgenerated, n.lexical_tsv::text FROM node_embeddings n, pg_attribute a "
                "WHERE a.attrelid = 'node_embeddings'::regclass AND a.attname = 'lexical_tsv'",
            )
            assert rows == [("", "'invoice':2 'overdue':1")]  # a plain column now, its value kept
        finally:
            store.close()
    finally:
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")
