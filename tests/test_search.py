"""Entry search over the shop fixture: vector + full-text, fused, exact names boosted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from branchgraph import api
from branchgraph.cli import cli
from branchgraph.errors import NotIndexed
from branchgraph.retrieval.search import EmbedderMismatch

pytestmark = [pytest.mark.neo4j, pytest.mark.postgres]


@pytest.fixture
def indexed_shop(shop_repo: Path, config) -> Path:
    api.ingest(shop_repo, config=config)
    return shop_repo


def test_an_identifier_in_the_query_ranks_its_symbol_first(indexed_shop, config):
    hits = api.search("where is refund implemented", path=indexed_shop, config=config, k=5)
    assert hits[0].qualname == "shop.payments.Payment.refund"
    assert hits[0].exact and hits[0].lexical_rank is not None and hits[0].dense_rank is not None
    assert "tests.test_invoice.TestPayment.test_refund" in [h.qualname for h in hits]  # "refund" in its name
    assert (hits[0].start_line, hits[0].end_line) == (13, 16)


def test_identifier_parts_are_found_by_full_text(indexed_shop, config):
    hits = api.search("format money", path=indexed_shop, config=config, k=3)
    assert hits[0].qualname == "shop.core.money.format_money"
    assert hits[0].lexical_rank is not None and not hits[0].exact
    whole = api.search("format_money", path=indexed_shop, config=config, k=3)
    assert whole[0].qualname == "shop.core.money.format_money" and whole[0].exact


def test_hits_are_limited_and_carry_both_ranks(indexed_shop, config):
    hits = api.search("invoice total with tax", path=indexed_shop, config=config, k=4)
    assert len(hits) == 4
    assert "shop.billing.invoice.Invoice.total" in [h.qualname for h in hits]
    assert all(h.dense_rank is not None or h.lexical_rank is not None for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_a_branch_embedded_by_another_model_is_refused(indexed_shop, config):
    import dataclasses

    with pytest.raises(EmbedderMismatch, match="feature-hashing-v1/256"):
        api.search("refund", path=indexed_shop, config=dataclasses.replace(config, embedding_dims=64))


def test_an_unindexed_branch_is_a_clear_error(shop_repo, config):
    with pytest.raises(NotIndexed, match="is not indexed"):
        api.search("refund", path=shop_repo, config=config)


def test_search_cli_json(indexed_shop, neo4j_uri, pg_url):
    env = {"BRANCHGRAPH_NEO4J_URI": neo4j_uri, "BRANCHGRAPH_DATABASE_URL": pg_url, "BRANCHGRAPH_EMBEDDER": "hashing"}
    result = CliRunner().invoke(cli, ["search", "refund", "--repo", str(indexed_shop), "-k", "2", "--json"], env=env)
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)
    assert len(hits) == 2 and hits[0]["qualname"] == "shop.payments.Payment.refund"
    human = CliRunner().invoke(cli, ["search", "refund", "--repo", str(indexed_shop)], env=env)
    first = human.output.splitlines()[0]
    assert "shop.payments.Payment.refund  src/shop/payments.py:13-16  (vector, text, name)" in first
