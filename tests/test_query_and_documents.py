"""Pure functions of retrieval and ingest: commit-message queries, symbol documents and the
learned ranker's shipped model."""

from __future__ import annotations

import numpy as np

from branchgraph.ingest.documents import symbol_document
from branchgraph.retrieval.learned import FEATURES, shipped_ranker
from branchgraph.retrieval.query import search_text, term_weight


def test_commit_phrasing_is_cleaned_from_queries():
    assert search_text("fix(cli): load .env files in order (#5123)") == "load .env files in order"
    assert search_text("refactor: stop shadowing the register() name argument") == (
        "stop shadowing the register() name argument"
    )
    assert search_text("Allow X to Y\n\nCloses #12\nCo-authored-by: A <a@b.c>") == "Allow X to Y"
    assert search_text("see https://example.invalid/issue for why parse_url fails") == "see for why parse_url fails"
    assert search_text("where is refund implemented") == "where is refund implemented"
    assert term_weight("fix") < term_weight("refund") == 1.0


def test_a_class_document_leaves_out_its_members_bodies():
    lines = [
        "class Account:",
        "    '''A customer account.'''",
        "    kind = 'account'",
        "    def close(self):",
        "        return self.overdraft()",
    ]
    document = symbol_document(
        "bank.Account", "bank.py", "class Account", "A customer account.", lines, (1, 5), [(4, 5)]
    )
    assert "close" in document.split() and "overdraft" not in document.split() and "kind" in document.split()
    method = symbol_document("bank.Account.close", "bank.py", "def close(self)", "", lines, (4, 5))
    assert "overdraft" in method.split()


def test_the_shipped_ranker_matches_the_features_and_prefers_strong_text_matches():
    ranker = shipped_ranker()
    assert ranker is not None, "retrieval/ranker.json is missing or fitted for other features"
    assert ranker.weights.shape == (len(FEATURES),)
    weak, strong = np.zeros((2, len(FEATURES)))
    strong[FEATURES.index("bm25")] = 1.0
    strong[FEATURES.index("bm25_rank")] = 1.0
    low, high = ranker.probabilities(np.vstack([weak, strong]))
    assert high > low


def test_a_dotted_name_in_a_question_names_a_function_through_its_package_or_a_method_through_its_class():
    from branchgraph.retrieval.query import dotted_names, names_symbol

    dotted = dotted_names("What does requests.get do, and Flask.run? (v1.2)")
    assert dotted == [["requests", "get"], ["Flask", "run"]]
    assert names_symbol(dotted, "Function", "requests.api.get")
    assert names_symbol(dotted, "Method", "flask.app.Flask.run")
    assert not names_symbol(dotted, "Method", "requests.sessions.Session.get")
    assert not names_symbol(dotted, "Function", "flask.cli.run")
