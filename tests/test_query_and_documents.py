"""Pure functions of retrieval and ingest: commit-message queries, symbol documents, the
learned ranker's shipped model and the token budget."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from branchgraph.core.lexical import query_terms
from branchgraph.ingest.documents import symbol_document
from branchgraph.retrieval import budget
from branchgraph.retrieval.assemble import Candidate
from branchgraph.retrieval.learned import FEATURES, feature_matrix, shipped_ranker
from branchgraph.retrieval.query import FileMentions, Words, content_terms, search_text, shared_share, term_weight
from branchgraph.retrieval.ranking import PathHistory, demote_copies_of_candidates
from branchgraph.retrieval.search import SearchHit
from branchgraph.retrieval.source import Span


def test_commit_phrasing_is_cleaned_from_queries():
    # The type of change names no code; its scope does (the module the commit touches).
    assert search_text("fix(cli): load .env files in order (#5123)") == "cli load .env files in order"
    assert search_text(":wrench: fix(utils/body)!: reuse formData") == "utils body reuse formData"
    assert search_text("🐛 fix: await the response") == "await the response"
    assert search_text("refactor: stop shadowing the register() name argument") == (
        "stop shadowing the register() name argument"
    )
    assert search_text("Allow X to Y\n\nCloses #12\nCo-authored-by: A <a@b.c>") == "Allow X to Y"
    assert search_text("see https://example.invalid/issue for why parse_url fails") == "see for why parse_url fails"
    assert search_text("where is refund implemented") == "where is refund implemented"
    assert term_weight("fix") < term_weight("refund") == 1.0


def test_hyphenated_words_are_also_searched_as_one_identifier():
    terms = query_terms("Keep the comma under --skip-magic-trailing-comma when an f-string follows (3-4)")
    assert {"skipmagictrailingcomma", "fstring", "skip", "magic", "string"} <= set(terms)
    assert "34" not in terms


def test_files_a_question_names_by_path_or_module():
    mentions = FileMentions.of("Type hints for marshmallow/decorators.py and ./src/attr/_funcs.py, see v1.2.3")
    assert mentions.paths == ("marshmallow/decorators.py", "src/attr/_funcs.py")
    assert mentions.name("src/marshmallow/decorators.py") and mentions.name("src/attr/_funcs.py")
    assert not mentions.name("src/marshmallow/fields.py") and not mentions.name("src/xmarshmallow/decorators.py")
    module = FileMentions.of("Improve types in the validate module; the `cli` package")
    assert module.modules == ("validate", "cli")
    assert module.name("src/marshmallow/validate.py") and module.name("src/tool/cli/main.py")
    assert not module.name("src/marshmallow/validators.py")
    assert not FileMentions.of("move it to the new module") and not FileMentions.of("version 3.5 of foo.bar")
    scoped = FileMentions.of("feat(jwt, trie-router,utils/body): a realm\n\nfix(cli): not the subject")
    assert scoped.modules == ("jwt", "trie-router", "utils/body")
    assert scoped.name("src/middleware/jwt/index.ts") and scoped.name("src/router/trie-router/node.ts")
    assert scoped.name("src/utils/body.ts") and not scoped.name("src/body.ts") and not scoped.name("src/cli.ts")
    assert not FileMentions.of("fix(1.2): a") and not FileMentions.of("fix: a")
    # A subject that starts with its area names it too, and a private module answers to its name.
    area = FileMentions.of("net/http, callers: avoid a copy")
    assert area.modules == ("net/http", "callers")
    assert area.name("src/net/http/server.go") and area.name("src/pluggy/_callers.py")
    assert not area.name("src/pluggy/x_callers.py") and not FileMentions.of("Fix: a").modules
    assert FileMentions.of("the _private module").name("_private.py")
    assert not FileMentions.of("the _private module").name("__private.py")


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


def test_a_copy_of_a_candidate_ranks_below_the_rest():
    def candidate(qualname: str, path: str, score: float) -> Candidate:
        return Candidate(qualname, "Function", qualname, path, Span(1, 4), score, "search", None, False)

    source, other = (
        candidate("lib.core.buildFullPath.buildFullPath", "lib/core/buildFullPath.js", 0.5),
        candidate("lib.helpers.combineURLs.combineURLs", "lib/helpers/combineURLs.js", 0.2),
    )
    copy, lone = (
        candidate("dist.axios.buildFullPath", "dist/axios.js", 0.4),
        candidate("dist.axios.settle", "dist/axios.js", 0.3),
    )
    demote_copies_of_candidates([source, other, copy, lone])
    assert copy.score < other.score < lone.score == 0.3  # a copy whose source is not among them stays where it was
    assert source.score == 0.5


def test_a_minified_functions_document_leaves_out_the_line_it_shares_with_the_whole_file():
    bundle = "function retry(e){return backoff(e)}" + "".join(
        f";function f{i}(t){{return t.total{i}}}" for i in range(60)
    )
    lines = ["/* axios v1 */", bundle]
    document = symbol_document("dist.axios.min.retry", "dist/axios.min.js", "function retry(e)", "", lines, (2, 2))
    assert "retry" in document.split() and "axios" in document.split()  # its name and path
    assert "backoff" not in document.split() and "total7" not in document.split()  # the rest of the file
    readable = symbol_document(
        "lib.retry",
        "lib/retry.js",
        "function retry(e)",
        "",
        ["function retry(e) {", "  return backoff(e)", "}"],
        (1, 3),
    )
    assert "backoff" in readable.split()


def test_the_shipped_ranker_matches_the_features_and_prefers_strong_text_matches():
    ranker = shipped_ranker()
    assert ranker is not None, "retrieval/ranker.json is missing or fitted for other features"
    assert ranker.weights.shape == (len(FEATURES),)
    weak, strong = np.zeros((2, len(FEATURES)))
    strong[FEATURES.index("bm25")] = 1.0
    strong[FEATURES.index("bm25_rank")] = 1.0
    low, high = ranker.probabilities(np.vstack([weak, strong]))
    assert high > low


def test_a_committed_bundle_takes_no_rank_from_the_source_it_copies():
    def hit(node_id: str, path: str, rank: int, bm25: float) -> Candidate:
        found = SearchHit(node_id, "Function", node_id, path, 1, 4, 1 / rank, rank, rank, False, lexical_score=bm25)
        return Candidate(node_id, "Function", node_id, path, Span(1, 4), 1.0, "search", None, True, search=found)

    # The bundle (its banner says the question's words once more) is the best text match.
    bundle = hit("bundled", "dist/retry.js", 1, 10.0)
    beside = [bundle, hit("retry", "src/retry.ts", 2, 9.0), hit("backoff", "src/backoff.ts", 3, 4.0)]
    alone = [hit("retry", "src/retry.ts", 1, 9.0), hit("backoff", "src/backoff.ts", 2, 4.0)]

    def rows(candidates: list[Candidate]) -> dict[str, dict[str, float]]:
        matrix = feature_matrix(candidates, {}, PathHistory.of_changes([]), False, ["retry"], FileMentions.of("retry"))
        return {c.id: dict(zip(FEATURES, row, strict=True)) for c, row in zip(candidates, matrix, strict=True)}

    with_bundle, without = rows(beside), rows(alone)
    for name in ("bm25", "bm25_rank", "vector_rank", "file_rank", "entry_file", "cochange"):
        assert with_bundle["retry"][name] == without["retry"][name], name
        assert with_bundle["backoff"][name] == without["backoff"][name], name
    assert with_bundle["retry"]["bm25_rank"] == with_bundle["retry"]["file_rank"] == 1.0
    bundled = with_bundle["bundled"]
    assert bundled["bm25_rank"] == bundled["generated"] == 1.0
    assert bundled["bm25"] == 1.0  # relative to the best source, as every feature the model saw: at most 1


def test_a_dotted_name_in_a_question_names_a_function_through_its_package_or_a_method_through_its_class():
    from branchgraph.retrieval.query import dotted_names, names_symbol

    dotted = dotted_names("What does requests.get do, and Flask.run? (v1.2)")
    assert dotted == [["requests", "get"], ["Flask", "run"]]
    assert names_symbol(dotted, "Function", "requests.api.get")
    assert names_symbol(dotted, "Method", "flask.app.Flask.run")
    assert not names_symbol(dotted, "Method", "requests.sessions.Session.get")
    assert not names_symbol(dotted, "Function", "flask.cli.run")
    # Javadoc's and JSDoc's `Class#member` and Rust's `Type::member` name a member too; an issue
    # reference (`#2493`) names nothing.
    dotted = dotted_names("Add Node#outerHtml(Appendable) and Parser::new (#2493)")
    assert dotted == [["Node", "outerHtml"], ["Parser", "new"]]
    assert names_symbol(dotted, "Method", "org.jsoup.nodes.Node.outerHtml")


def test_question_words_match_names_in_another_form_of_the_word():
    assert content_terms("Fix small issues with TimeDelta serialization type (#12)") == [
        "delta",
        "serialization",
        "small",
        "time",
        "timedelta",
        "type",
    ]
    words = Words.of(["serialization", "field", "type"])
    assert words.say("serialize") and words.say("field") and words.say("type")
    assert not words.say("deserialize") and not words.say("types") and not words.say("fiel")
    assert shared_share(["time", "delta", "serialize"], Words.of(["timedelta", "serialization"])) == 1 / 3
    assert shared_share([], words) == 0.0


@dataclass
class _Item:
    id: str
    score: float
    tokens: int
    parent: str | None = None
    is_entry: bool = False


def test_the_budget_keeps_the_best_items_and_then_the_most_score_per_token(monkeypatch):
    monkeypatch.setattr(budget, "PROTECTED_ITEMS", 2)
    monkeypatch.setattr(budget, "TOKEN_EXPONENT", 0.5)
    items = [
        _Item("entry", 0.9, 100, is_entry=True),
        _Item("big-but-second", 0.8, 900),  # protected: among the 2 best
        _Item("weak-entry", 0.05, 300, is_entry=True),  # an entry that ranked low: droppable
        _Item("long", 0.3, 1600),  # 0.3 / 40 = 0.0075 a token^0.5
        _Item("short", 0.2, 100),  # 0.2 / 10 = 0.02
        _Item("child", 0.1, 50, parent="short"),
    ]
    kept = {i.id for i in budget.trim_to_budget(items, 1200)}
    assert kept == {"entry", "big-but-second", "short", "child"}
    # The best entry stays even when nothing fits.
    assert [i.id for i in budget.trim_to_budget(items, 10)] == ["entry"]


def test_what_was_dropped_and_fits_the_room_left_is_put_back(monkeypatch):
    monkeypatch.setattr(budget, "PROTECTED_ITEMS", 2)
    items = [
        _Item("entry", 0.9, 100, is_entry=True),
        _Item("long", 0.8, 1000),  # protected: dropped only once every other leaf is gone
        *(_Item(f"short-{i}", 0.3, 100) for i in range(5)),
        _Item("detail", 0.2, 10, parent="long"),
    ]
    dropped: list[_Item] = []
    kept = [i.id for i in budget.trim_to_budget(items, 650, on_drop=dropped.append)]
    # Dropping the short ones first did not bring 1,610 tokens under 650; dropping the long one
    # did, and left room for the short ones again; what hangs from the long one stays out.
    assert kept == ["entry", "short-0", "short-1", "short-2", "short-3", "short-4"]
    assert sorted(i.id for i in dropped) == ["detail", "long"]
    monkeypatch.setattr(budget, "REFILL", False)
    assert [i.id for i in budget.trim_to_budget(items, 650)] == ["entry"]
