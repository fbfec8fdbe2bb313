"""context(): expansion kinds, ranking, assembly (working tree, git blobs, drift), the token
budget and its spine, merge conflicts, and the CLI — against real Neo4j and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES
from gitrepo import commit_files, init_repo, read_tree

from branchgraph import NotIndexed, OutsideRepository, api
from branchgraph.cli import cli
from branchgraph.retrieval.source import BranchSources

pytestmark = [pytest.mark.neo4j, pytest.mark.postgres]

REFUND = "shop.payments.Payment.refund"
QUESTION = "where is refund implemented"


@pytest.fixture
def indexed_shop(shop_repo: Path, config) -> Path:
    api.ingest(shop_repo, config=config)
    return shop_repo


def check_out(repo_dir: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` as the working tree (the fixture repositories start without one)."""
    for path, data in files.items():
        target = repo_dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def by_qualname(result) -> dict:
    return {item.qualname: item for item in result.items}


def test_every_expansion_kind_reaches_the_context(indexed_shop, config):
    result = api.context(QUESTION, repo=indexed_shop, config=config, entries=1)
    items = by_qualname(result)
    assert items[REFUND].reason == "entry" and items[REFUND].via is None
    reasons = {reason for item in result.items for reason in item.reasons}
    assert {
        f"callee of {REFUND}",  # add_line, format_money, the Payment constructor
        "callee of shop.billing.invoice.Invoice.add_line",  # Line, two hops away
        f"caller of {REFUND}",
        f"test of {REFUND}",
        f"type of {REFUND}",  # Invoice (parameter), Payment (return)
        f"enclosing class of {REFUND}",
    } <= reasons
    assert items["shop.billing.invoice.Line"].via == items["shop.billing.invoice.Invoice.add_line"].id
    assert {f"caller of {REFUND}", f"test of {REFUND}"} <= set(
        items["tests.test_invoice.TestPayment.test_refund"].reasons
    )
    based = by_qualname(api.context("the Invoice class", repo=indexed_shop, config=config, entries=1))
    assert "base of shop.billing.invoice.Invoice" in based["shop.core.base.BaseDocument"].reasons


def test_ranking_follows_entry_score_edge_kind_and_distance(indexed_shop, config):
    items = by_qualname(api.context(QUESTION, repo=indexed_shop, config=config, entries=1))
    entry = items[REFUND].score
    callee = items["shop.billing.invoice.Invoice.add_line"].score
    two_hops = items["shop.billing.invoice.Line"].score
    caller = items["tests.test_invoice.TestPayment.test_refund"].score
    assert entry > callee > caller and callee > two_hops
    result = api.context(QUESTION, repo=indexed_shop, config=config)
    code = [i.score for i in result.items if not i.outline]
    assert code == sorted(code, reverse=True)
    assert_outlines_follow_their_members(result)


def assert_outlines_follow_their_members(result) -> int:
    """A class outline comes after the best of its methods shown (a method inside its span, or
    one continuing its name from elsewhere, as Go's are), else its score places it. Returns how
    many outlines a member placed below a lower-scored item."""
    moved = 0
    for at, item in enumerate(result.items):
        if not item.outline:
            continue
        members = [
            n
            for n, i in enumerate(result.items)
            if not i.outline
            and (
                (i.kind == "Method" and i.qualname.startswith(item.qualname + "."))
                or (i.path == item.path and item.start_line < i.start_line and i.end_line <= item.end_line)
            )
        ]
        above = [i.score for i in result.items[:at] if not i.outline]
        if members:
            assert members[0] < at, (item.qualname, [i.qualname for i in result.items])
            moved += any(score < item.score for score in above)
        else:
            assert all(score >= item.score for score in above)
    return moved


GOSHOP = read_tree(FIXTURES / "goshop")


def test_a_go_struct_outline_follows_its_methods_declared_outside_it(goshop_repo, config):
    api.ingest(goshop_repo, config=config)
    moved = 0
    for question in ("the order service", "notifier push message"):
        result = api.context(question, repo=goshop_repo, config=config)
        moved += assert_outlines_follow_their_members(result)
        for item in result.items:
            if item.outline:
                # The struct's own lines (then its methods' signatures), never the code after it.
                own = GOSHOP[item.path].decode().splitlines()[item.start_line - 1 : item.end_line]
                assert all(line in own or line.endswith(" { ... }") for line in item.text.splitlines()), item.text
    assert moved, "no struct outline outscored the method it follows: the check above did not run"


def test_outlines_elide_bodies_as_their_language_writes_them(repo_dir, config, javashop_sources):
    """A hidden method is its signature and the language's elided body: ``{ ... }`` in Java (a
    Python stub's ``: ...`` is not Java)."""
    commit_files(init_repo(repo_dir), javashop_sources, message="javashop")
    api.ingest(repo_dir, config=config)
    items = by_qualname(api.context("order total", repo=repo_dir, config=config))
    order = items["com.shop.model.Order"]
    hidden = [line for line in order.text.splitlines() if line.endswith(" { ... }")]
    assert order.outline and hidden, order.text
    assert "    public static class Line { ... }" in hidden  # the nested class, not an item here
    assert not any(line.endswith(": ...") for line in order.text.splitlines())


def test_an_outline_gives_overloads_one_line(repo_dir, config):
    source = (
        "export class Request {\n"
        "  header(name: string): string\n"
        "  header(): Record<string, string>\n"
        "  header(name?: string): unknown {\n"
        "    return name\n"
        "  }\n\n"
        "  refundInvoiceTotal(invoice: number): number {\n"
        "    return invoice * 2\n"
        "  }\n"
        "}\n"
    )
    commit_files(init_repo(repo_dir), {"src/request.ts": source.encode()})
    api.ingest(repo_dir, config=config)
    items = by_qualname(api.context("refund invoice total", repo=repo_dir, config=config))
    outline = items["src/request.Request"]
    assert "src/request.Request.refundInvoiceTotal" in items and outline.outline
    headers = [line for line in outline.text.splitlines() if "header(" in line]
    assert headers == ["  header(name: string): string { ... } (+2 more signatures)"], outline.text


def test_classes_reached_by_expansion_are_outlines_without_repeated_text(indexed_shop, config):
    full = api.context(QUESTION, repo=indexed_shop, config=config, entries=1)
    regained = 0
    for budget in range(full.tokens, 100, -150):
        items = by_qualname(api.context(QUESTION, repo=indexed_shop, config=config, entries=1, budget_tokens=budget))
        if "shop.payments.Payment" not in items:
            continue
        regained += "shop.payments.Payment.full" not in items
        payment = items["shop.payments.Payment"]
        assert (
            payment.outline and payment.text.startswith("class Payment:") and "self.amount = amount" not in payment.text
        )
        # Each method is either an item of its own (then the outline leaves its signature out)
        # or one signature line of the outline, also after the budget dropped it.
        for method, signature in (
            ("__init__", "def __init__(self, amount)"),
            ("full", "def full(cls, invoice: Invoice)"),
            ("refund", "def refund("),
        ):
            shown = f"shop.payments.Payment.{method}" in items
            assert (signature in payment.text) != shown, (budget, method)
        assert "add_line(-self.amount)" in items[REFUND].text
    assert regained, "no budget dropped a method of the outlined class: the check above did not run"


def test_a_class_entry_is_an_outline_and_its_methods_are_items_of_their_own(indexed_shop, config):
    methods = ("__init__", "add_line", "total", "render", "export")
    result = api.context("the Invoice class", repo=indexed_shop, config=config, entries=1)
    items = by_qualname(result)
    invoice = items["shop.billing.invoice.Invoice"]
    assert invoice.reason == "entry" and invoice.outline
    # With room for all of them, every method is an item reached from its class, so the class
    # reads in full, one method at a time; the outline keeps the header only.
    for method in methods:
        item = items[f"shop.billing.invoice.Invoice.{method}"]
        assert "member of shop.billing.invoice.Invoice" in item.reasons and item.via == invoice.id
        assert f"def {method}(" not in invoice.text
    assert '"""An invoice with lines."""' in invoice.text
    # A tight budget keeps the best methods and gives the others back to the outline as
    # signature lines; no line of code appears twice.
    tight = api.context("the Invoice class", repo=indexed_shop, config=config, entries=1, budget_tokens=120)
    tight_items = by_qualname(tight)
    outline = tight_items["shop.billing.invoice.Invoice"].text
    assert any(f"shop.billing.invoice.Invoice.{m}" not in tight_items for m in methods)
    for method in methods:
        assert (f"def {method}(" in outline) != (f"shop.billing.invoice.Invoice.{method}" in tight_items), method
    shown = [(i.path, line) for i in tight.items if not i.outline for line in range(i.start_line, i.end_line + 1)]
    assert len(shown) == len(set(shown)), "a line of code appears twice"


def test_a_question_naming_a_file_brings_that_files_symbols(indexed_shop, config):
    # No word of the questions is in tax.py's code: only naming the file leads there.
    tax = "src/shop/billing/tax.py"
    for question in ("what does billing/tax.py compute", "what does the tax module compute"):
        items = api.context(question, repo=indexed_shop, config=config).items
        assert tax in {i.path for i in items[:3]}, (question, [i.qualname for i in items])


def test_definitions_come_before_their_users_in_reading_order(indexed_shop, config):
    result = api.context(QUESTION, repo=indexed_shop, config=config, entries=1)
    position = {qualname: result.order.index(item.id) for qualname, item in by_qualname(result).items()}
    assert position["shop.billing.invoice.Invoice.add_line"] < position[REFUND]
    assert position["shop.billing.invoice.Line"] < position["shop.billing.invoice.Invoice.add_line"]
    assert position[REFUND] < position["tests.test_invoice.TestPayment.test_refund"]
    assert sorted(result.order) == sorted(item.id for item in result.items)


def test_the_budget_drops_low_scoring_leaves_and_keeps_the_spine(indexed_shop, config):
    full = api.context(QUESTION, repo=indexed_shop, config=config, entries=1)
    line = by_qualname(full)["shop.billing.invoice.Line"]
    # Room for everything but about 60 tokens: the cheapest cut removes the lowest leaves.
    trimmed = api.context(QUESTION, repo=indexed_shop, config=config, entries=1, budget_tokens=full.tokens - 60)
    kept = by_qualname(trimmed)
    assert trimmed.tokens <= full.tokens - 60 and trimmed.tokens == sum(i.tokens for i in trimmed.items)
    assert REFUND in kept and len(kept) < len(full.items)
    dropped = [i for i in full.items if i.qualname not in kept]
    assert (
        max(i.score for i in dropped) <= min(i.score for i in trimmed.items if i.via is not None) + 1e-9
        or line.qualname in kept
    )
    ids = {i.id for i in trimmed.items}
    assert all(i.via is None or i.via in ids for i in trimmed.items), "an item lost what connects it to its entry"
    assert any("left out to fit" in w for w in trimmed.warnings)
    # A budget below the entry itself keeps the entry (the spine) and says so.
    tiny = api.context(QUESTION, repo=indexed_shop, config=config, entries=1, budget_tokens=5)
    assert [i.qualname for i in tiny.items] == [REFUND] and tiny.items[0].truncated
    assert any("over the budget of 5" in w for w in tiny.warnings)


def test_an_entry_too_long_for_the_budget_is_shown_in_part(repo_dir, config):
    body = "".join(f"    total += step_{i}(total)  # reconcile ledger row {i}\n" for i in range(600))
    minified = "def ledger_table():\n    return [" + ", ".join(f"'row{i}'" for i in range(4000)) + "]\n"
    commit_files(
        init_repo(repo_dir),
        {
            "ledger.py": f'def reconcile_ledger(total):\n    """Reconcile the ledger."""\n{body}    return total\n\n\n'
            + minified
            + '\n\ndef ledger_rows(table):\n    """The rows of a ledger table to reconcile."""\n    return table\n'
        },
    )
    api.ingest(repo_dir, config=config)
    for question, name in (("reconcile the ledger", "reconcile_ledger"), ("ledger table rows", "ledger_table")):
        result = api.context(question, repo=repo_dir, config=config, entries=1, budget_tokens=400)
        (item,) = [i for i in result.items if i.qualname == f"ledger.{name}"]
        assert item.truncated and item.text.startswith(f"def {name}(")
        assert item.tokens <= 200 + 40  # cut to half the budget, so that it is not the whole answer
        assert "ledger.ledger_rows" in [i.qualname for i in result.items]
        assert item.text.splitlines()[-1].startswith("... (") and "left out to fit the budget" in item.text
        assert result.tokens <= 400 and any("shown in part" in w for w in result.warnings)
    whole = api.context("reconcile the ledger", repo=repo_dir, config=config, entries=1, budget_tokens=100_000)
    assert not any(i.truncated for i in whole.items)


def test_a_two_hop_callee_keeps_its_connecting_callee(indexed_shop, config):
    full = api.context(QUESTION, repo=indexed_shop, config=config, entries=1)
    for budget in range(40, full.tokens + 1, 15):
        result = api.context(QUESTION, repo=indexed_shop, config=config, entries=1, budget_tokens=budget)
        names = {i.qualname for i in result.items}
        if "shop.billing.invoice.Line" in names:
            assert "shop.billing.invoice.Invoice.add_line" in names, budget


def test_a_branch_that_is_not_checked_out_is_read_from_git_blobs(shop_repo, config):
    from dulwich.repo import Repo

    files = read_tree(FIXTURES / "shop")
    check_out(shop_repo, files)  # the working tree holds main
    feature = dict(files)
    feature["src/shop/payments.py"] = files["src/shop/payments.py"].replace(
        b"        invoice.add_line(-self.amount)\n",
        b"        # feature: refunds are negative lines\n        invoice.add_line(-self.amount)\n",
    )
    repo = Repo(str(shop_repo))
    commit_files(repo, feature, branch="feature", parents=[repo.refs[b"refs/heads/main"]])
    api.ingest(shop_repo, config=config)
    api.ingest(shop_repo, branch="feature", config=config)

    on_feature = by_qualname(api.context(QUESTION, repo=shop_repo, branch="feature", config=config, entries=1))[REFUND]
    assert "# feature: refunds are negative lines" in on_feature.text and not on_feature.stale
    assert (on_feature.start_line, on_feature.end_line) == (13, 17)
    on_main = by_qualname(api.context(QUESTION, repo=shop_repo, config=config, entries=1))[REFUND]
    assert "# feature" not in on_main.text and not on_main.stale and (on_main.start_line, on_main.end_line) == (13, 16)


def test_a_drifted_file_is_relocated_by_reparsing_and_flagged_stale(shop_repo, config):
    files = read_tree(FIXTURES / "shop")
    check_out(shop_repo, files)
    api.ingest(shop_repo, config=config)
    edited = files["src/shop/payments.py"].replace(b"class Payment:\n", b"# a\n# b\n# c\nclass Payment:\n")
    edited = edited.replace(
        b"        return Payment(self.amount)\n", b"        log_refund(self)\n        return Payment(self.amount)\n"
    )
    (shop_repo / "src/shop/payments.py").write_bytes(edited)

    result = api.context(QUESTION, repo=shop_repo, config=config, entries=1)
    refund = by_qualname(result)[REFUND]
    assert refund.stale and (refund.start_line, refund.end_line) == (16, 20)
    assert "log_refund(self)" in refund.text and refund.text.lstrip().startswith("def refund")
    assert any("changed since indexing" in w and "src/shop/payments.py" in w for w in result.warnings)
    assert not by_qualname(result)["shop.billing.invoice.Invoice.add_line"].stale  # its file did not change

    with api.Workspace(shop_repo, config=config) as ws:
        symbol = ws.symbol(refund.id)
    assert symbol["stale"] and symbol["start_line"] == 16 and "log_refund" in symbol["text"]

    # A symbol gone from the working tree shows as indexed, still stale, with a warning.
    (shop_repo / "src/shop/payments.py").write_bytes(b"# emptied\n")
    gone = api.context(QUESTION, repo=shop_repo, config=config, entries=1)
    refund = by_qualname(gone)[REFUND]
    assert refund.stale and "add_line(-self.amount)" in refund.text
    assert any("gone from the working tree" in w for w in gone.warnings)


def test_symbols_with_merge_conflicts_are_left_out_unless_nothing_else_matches(repo_dir, config):

    repo = init_repo(repo_dir)
    commit_files(
        repo,
        {
            "ledger.py": (
                "from torn import settle_torn\n\n\ndef post_entry(amount):\n    return amount\n\n\n"
                "def settle(amount):\n    settle_torn(amount)\n    return post_entry(amount)\n"
            ),
            "torn.py": (
                "def settle_torn(amount):\n<<<<<<< HEAD\n    return amount\n=======\n"
                "    return -amount\n>>>>>>> other\n"
            ),
            "rollback.py": "def rollback_everything():\n<<<<<<< HEAD\n    pass\n=======\n    return None\n>>>>>>> other\n",
        },
    )
    api.ingest(repo_dir, config=config)
    clean = api.context("settle the amount", repo=repo_dir, config=config)
    names = {i.qualname for i in clean.items}
    assert "ledger.settle" in names and "torn.settle_torn" not in names
    assert any("merge conflicts were left out" in w for w in clean.warnings)  # the torn callee of settle

    torn = api.context("rollback everything", repo=repo_dir, config=config, entries=1)
    assert torn.items[0].qualname == "rollback.rollback_everything" and torn.items[0].reason == "entry"
    assert "<<<<<<< HEAD" in torn.items[0].text and ">>>>>>> other" in torn.items[0].text
    assert any("only symbols with unresolved merge conflicts match" in w for w in torn.warnings)


def test_the_json_document_and_markdown_from_the_cli(indexed_shop, config, monkeypatch):
    for key, value in {
        "BRANCHGRAPH_NEO4J_URI": config.neo4j_uri,
        "BRANCHGRAPH_DATABASE_URL": config.database_url,
        "BRANCHGRAPH_EMBEDDER": "hashing",
    }.items():
        monkeypatch.setenv(key, value)
    runner = CliRunner()
    out = runner.invoke(cli, ["context", QUESTION, "--repo", str(indexed_shop), "--json", "--budget", "3000"])
    assert out.exit_code == 0, out.output
    document = json.loads(out.output)
    assert {"query", "repo", "branch", "indexed_commit", "behind_commits", "items", "warnings", "tokens"} <= set(
        document
    )
    assert document["branch"] == "main" and document["behind_commits"] == 0 and document["tokens"] <= 3000
    item = document["items"][0]
    assert {"id", "kind", "qualname", "path", "start_line", "end_line", "score", "reason", "text", "stale"} <= set(item)
    markdown = runner.invoke(
        cli, ["context", QUESTION, "--repo", str(indexed_shop), "--format", "md", "--entries", "1"]
    )
    assert markdown.exit_code == 0
    assert markdown.output.startswith(f"## Context for: {QUESTION}") and "```python\n" in markdown.output
    assert f"### `{REFUND}` — entry" in markdown.output
    missing = runner.invoke(cli, ["context", "x", "--repo", str(indexed_shop), "--branch", "nope"])
    assert missing.exit_code == 1 and "has no branch" in missing.output


def test_recent_changes_rank_higher_and_are_cached_per_commit(indexed_shop, config, pg_store):
    from branchgraph.core import git
    from branchgraph.retrieval.ranking import PathRecency, path_factor

    record = pg_store.branch_record(indexed_shop.name, "main")
    recency = PathRecency(pg_store).history(indexed_shop.name, git.open_repo(indexed_shop), record.indexed_commit).ago
    assert recency["src/shop/payments.py"] == 0  # changed by the indexed commit itself
    assert git.recency_of(pg_store.path_changes(indexed_shop.name, record.indexed_commit, 100)) == recency
    assert path_factor("src/shop/payments.py", recency) > path_factor("src/shop/old.py", recency)
    assert path_factor("vendor/lib/x.py", {}) < path_factor("src/x.py", {})
    assert path_factor("api/service_pb2.py", {}) < 1


def test_paths_outside_the_repository_are_never_read(shop_repo, pg_store, tmp_path):
    from branchgraph.core import git

    outside = tmp_path / "secret.py"
    outside.write_text("password = 1\n")
    (shop_repo / "link.py").symlink_to(outside)
    sources = BranchSources(git.open_repo(shop_repo), shop_repo, shop_repo.name, "main", pg_store)
    for path in ("../secret.py", str(outside), "src/../../secret.py", "link.py"):
        with pytest.raises(OutsideRepository):
            sources.working_tree_path(path)
    assert sources.working_tree_path("src/shop/payments.py") == (shop_repo / "src/shop/payments.py").resolve()


def test_file_texts_are_reused_until_the_file_changes(indexed_shop, pg_store):
    import os
    import time

    from branchgraph.core import git
    from branchgraph.retrieval.source import FileTextCache

    check_out(indexed_shop, read_tree(FIXTURES / "shop"))
    path = "src/shop/payments.py"
    on_disk = indexed_shop / path
    settled = time.time() - 60
    os.utime(on_disk, (settled, settled))
    cache = FileTextCache()

    def read():
        repo = git.open_repo(indexed_shop)
        return BranchSources(repo, indexed_shop, indexed_shop.name, "main", pg_store, cache).file(path)

    first = read()
    assert first is not None and not first.drifted
    assert read() is first  # unchanged: the same copy, its lines and definitions already made
    on_disk.write_bytes(on_disk.read_bytes() + b"\n# edited\n")
    edited = read()
    assert edited is not first and edited.drifted and edited.data.endswith(b"# edited\n")
    assert read() is not edited  # written just now, so it could change again unseen: not kept
    os.utime(on_disk, (settled, settled))
    kept = read()
    assert read() is kept and kept.drifted


def test_the_file_text_cache_drops_the_least_recently_used_past_its_size():
    from branchgraph.retrieval.source import FileText, FileTextCache

    cache = FileTextCache(max_bytes=10)
    texts = {name: FileText(name, b"1234", None, False, None) for name in "abc"}
    cache.put(("a",), texts["a"])
    cache.put(("b",), texts["b"])
    assert cache.get(("a",)) is texts["a"]  # now the most recently used
    cache.put(("c",), texts["c"])
    assert cache.get(("b",)) is None and cache.get(("a",)) is texts["a"] and cache.get(("c",)) is texts["c"]
    cache.put(("huge",), FileText("huge", b"x" * 11, None, False, None))
    assert cache.get(("huge",)) is None  # larger than the whole cache: never kept


def test_a_long_lived_workspace_sees_new_commits_and_reports_the_lag(shop_repo, config):
    from dulwich.repo import Repo

    files = read_tree(FIXTURES / "shop")
    api.ingest(shop_repo, config=config)
    with api.Workspace(shop_repo, config=config) as ws:
        assert ws.context(QUESTION, entries=1).behind_commits == 0
        commit_files(Repo(str(shop_repo)), {**files, "src/shop/extra.py": b"def extra():\n    pass\n"})
        lagging = ws.context(QUESTION, entries=1)
        assert lagging.behind_commits == 1 and any("1 commits behind main" in w for w in lagging.warnings)


def _big_class_source(methods: int) -> str:
    header = "\n".join(f"    line {n} of a long docstring" for n in range(20))
    body = "".join(
        f"\n    def step_{n:02}(self, value):\n        return value + {n}  # plain arithmetic step {n}\n"
        for n in range(methods)
    )
    return f'class Pipeline:\n    """The pipeline.\n\n{header}\n    """\n\n    limit = 3\n{body}'


def test_an_outline_is_a_map_of_capped_size(repo_dir, config):

    commit_files(init_repo(repo_dir), {"pipeline.py": _big_class_source(30)})
    api.ingest(repo_dir, config=config)
    # A budget that keeps the class and few of its 30 methods: the rest are outlined.
    result = api.context("Pipeline class", repo=repo_dir, config=config, entries=1, budget_tokens=400)
    outline = by_qualname(result)["pipeline.Pipeline"]
    assert outline.outline
    lines = outline.text.splitlines()
    shown = [i for i in result.items if i.qualname.startswith("pipeline.Pipeline.step_")]
    hidden = 30 - len(shown)
    assert hidden > 12
    signatures = [line for line in lines if line.strip().startswith("def step_")]
    assert len(signatures) == 12
    assert lines[-1].strip().startswith(f"# {hidden - 12} more: step_")
    # The header keeps its first 12 lines, then says it goes on.
    assert lines[:12] == _big_class_source(30).splitlines()[:12] and lines[12].strip() == "..."
    assert "line 19 of a long docstring" not in outline.text


def _items_named(repo_dir, config, files: dict[str, str], question: str, qualname: str) -> list:
    """The items of ``qualname`` in the context of ``question`` over a repository of ``files``."""
    commit_files(init_repo(repo_dir), files)
    api.ingest(repo_dir, config=config)
    return [i for i in api.context(question, repo=repo_dir, config=config).items if i.qualname == qualname]


def test_overloads_and_their_implementation_are_one_item(repo_dir, config):
    source = (
        "from typing import overload\n\n\n"
        "@overload\ndef convert(value: int) -> int: ...\n\n\n"
        "@overload\ndef convert(value: str) -> str: ...\n\n\n"
        "def convert(value):\n    # the implementation: turn the value around\n    return value[::-1]\n"
    )
    converts = _items_named(repo_dir, config, {"convert.py": source}, "convert value", "convert.convert")
    assert len(converts) == 1
    assert "the implementation" in converts[0].text


def test_a_property_getter_and_its_setter_are_both_shown(repo_dir, config):
    """One name, two definitions with code of their own: the longest alone had been the item,
    and the getter's code was nowhere in the answer."""
    source = (
        "import warnings\n\n\n"
        "class Field:\n"
        "    @property\n"
        "    def default(self):\n"
        "        warnings.warn(\n"
        "            'default is deprecated, read dump_default',\n"
        "            DeprecationWarning,\n"
        "        )\n"
        "        # the getter hands back the dump default\n"
        "        return self.dump_default\n\n"
        "    @default.setter\n"
        "    def default(self, value):\n"
        "        warnings.warn(\n"
        "            'default is deprecated, set dump_default',\n"
        "            DeprecationWarning,\n"
        "        )\n"
        "        # the setter stores the dump default\n"
        "        self.dump_default = value\n"
        "        self.changed = True\n"
    )
    items = _items_named(
        repo_dir, config, {"fields.py": source}, "default is deprecated warning", "fields.Field.default"
    )
    texts = [i.text for i in items if not i.outline]
    assert len(texts) == 2, [(i.start_line, i.end_line) for i in items]
    assert any("the getter" in t for t in texts) and any("the setter" in t for t in texts)


def test_a_branch_not_indexed_yet_is_answered_from_its_base_overlaid_with_its_changes(shop_repo: Path, config):
    """The branch changed refund, added a function the question names and deleted tax.py:
    the answer shows the branch's refund and the new function (flagged overlay), nothing from
    the deleted file, and says it came from main."""
    from dulwich.repo import Repo

    api.ingest(shop_repo, config=config)
    files = read_tree(FIXTURES / "shop")
    payments = files["src/shop/payments.py"].decode()
    files["src/shop/payments.py"] = (
        payments.replace("return Payment(self.amount)", "return Payment(-self.amount)  # refunds are negative")
        + "\n\ndef refund_fee_for_late_cancellation(payment, days):\n    return payment.amount * 0.01 * days\n"
    ).encode()
    del files["src/shop/billing/tax.py"]
    repo = Repo(str(shop_repo))
    commit_files(
        repo, files, branch="feature", message="late cancellation fee", parents=[repo.refs[b"refs/heads/main"]]
    )

    result = api.context("refund fee for late cancellation", shop_repo, branch="feature", config=config)
    items = by_qualname(result)
    assert result.branch == "feature"
    assert any("feature is not indexed yet: answered from main" in w for w in result.warnings), result.warnings
    fee = items["shop.payments.refund_fee_for_late_cancellation"]
    assert fee.overlay and "0.01 * days" in fee.text
    refund = api.context(QUESTION, shop_repo, branch="feature", config=config)
    assert "refunds are negative" in by_qualname(refund)[REFUND].text
    assert by_qualname(refund)[REFUND].overlay
    assert not any(i.path == "src/shop/billing/tax.py" for i in refund.items)
    assert "OVERLAY" in refund.to_markdown()
    # The index is untouched: the branch is still not indexed.
    assert [s.branch for s in api.status(shop_repo, config=config)] == ["main"]


def test_a_branch_with_no_indexed_base_is_refused_with_the_command_to_run(shop_repo: Path, config):
    with pytest.raises(NotIndexed, match="ingest --branch main"):
        api.context(QUESTION, shop_repo, branch="main", config=config)


def test_compare_shows_each_item_beside_its_base_version_and_what_only_one_side_has(
    shop_repo: Path, config, monkeypatch
):
    from dulwich.repo import Repo

    api.ingest(shop_repo, config=config)
    files = read_tree(FIXTURES / "shop")
    files["src/shop/payments.py"] = (
        files["src/shop/payments.py"]
        .decode()
        .replace("return Payment(self.amount)", "return Payment(-self.amount)  # refunds are negative")
        + "\n\ndef refund_tax_rate(payment):\n    return 0\n"
    ).encode()
    del files["src/shop/billing/tax.py"]
    repo = Repo(str(shop_repo))
    commit_files(repo, files, branch="feature", parents=[repo.refs[b"refs/heads/main"]])
    question = "refund and the tax rate"

    for indexed in (False, True):  # the feature branch overlaid on main, then indexed itself
        if indexed:
            api.ingest(shop_repo, branch="feature", config=config)
        compared = api.compare(question, shop_repo, branch="feature", compare="main", config=config)
        status = {c.item.qualname: c for c in compared.items}
        assert status[REFUND].status == "changed", (indexed, status[REFUND])
        assert "refunds are negative" in status[REFUND].item.text
        assert "refunds are negative" not in status[REFUND].base.text
        assert status["shop.payments.refund_tax_rate"].status == "only on HEAD"
        assert status["shop.billing.tax.rate"].status == "only on BASE"
        assert all(c.status == "same" for q, c in status.items() if q.startswith("shop.core")), status

    monkeypatch.setenv("BRANCHGRAPH_NEO4J_URI", config.neo4j_uri)
    monkeypatch.setenv("BRANCHGRAPH_DATABASE_URL", config.database_url)
    monkeypatch.setenv("BRANCHGRAPH_EMBEDDER", "hashing")
    out = CliRunner().invoke(
        cli, ["context", question, "--repo", str(shop_repo), "--branch", "feature", "--compare", "main", "--json"]
    )
    assert out.exit_code == 0, out.output
    document = json.loads(out.output)
    assert document["counts"]["changed"] >= 1 and document["counts"]["only on BASE"] >= 1
    markdown = CliRunner().invoke(
        cli, ["context", question, "--repo", str(shop_repo), "--branch", "feature", "--compare", "main"]
    )
    assert "`main` version" in markdown.output and "only on feature" in markdown.output


def test_bundles_rank_below_the_source_they_were_built_from(repo_dir, config):
    source = (
        "export function retryDelay(attempt: number): number {\n"
        "  // exponential backoff before the next retry\n"
        "  return Math.min(1000 * 2 ** attempt, 30000)\n"
        "}\n"
    )
    # The bundle's copy says the question's words once more (its banner comment): by text
    # alone it would come first.
    bundle = "/* retry backoff bundle */\n" + source.replace("export function", "function").replace(": number", "")
    commit_files(
        init_repo(repo_dir),
        {"src/retry.ts": source, "dist/retry.js": bundle},
    )
    api.ingest(repo_dir, config=config)
    result = api.context("exponential backoff delay of a retry", repo=repo_dir, config=config)
    paths = [item.path for item in result.items]
    assert paths[:2] == ["src/retry.ts", "dist/retry.js"]  # ranked down, not hidden
