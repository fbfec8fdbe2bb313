"""`branchgraph impact` on the shop fixture (real Neo4j and PostgreSQL): users by depth with
their paths, tests to run, unresolved possible users, risk, and the diff read symbol by symbol."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES
from gitrepo import commit_files, init_repo, read_tree

from branchgraph import api
from branchgraph.cli import EXIT_RISK, cli
from branchgraph.impact.render import to_mermaid

pytestmark = [pytest.mark.neo4j, pytest.mark.postgres]

FORMAT_MONEY = "shop.core.money.format_money"


def commit_shop_edit(shop_repo: Path, money_edit, invoice_edit, **where) -> None:
    """Commit the shop fixture with money.py and invoice.py edited; ``where``: branch, parents."""
    from dulwich.repo import Repo

    files = read_tree(FIXTURES / "shop")
    money = money_edit(files["src/shop/core/money.py"].decode())
    invoice = invoice_edit(files["src/shop/billing/invoice.py"].decode()).replace(
        "net = sum(line.amount for line in self.lines)", "net = sum(l.amount for l in self.lines)"
    )  # Invoice.total changes in every edit
    changed = {"src/shop/core/money.py": money.encode(), "src/shop/billing/invoice.py": invoice.encode()}
    commit_files(Repo(str(shop_repo)), {**files, **changed}, **where)


def test_users_by_depth_tests_and_pytest_ids_for_a_symbol(shop_repo: Path, config):
    api.ingest(shop_repo, config=config)
    report = api.impact(shop_repo, symbols=[FORMAT_MONEY], config=config)
    by_name = {i.qualname: i for i in report.impacted}
    refund = by_name["shop.payments.Payment.refund"]
    assert (refund.depth, refund.tier, refund.via) == (1, "will_break", ["shop.payments.Payment.refund", FORMAT_MONEY])
    assert refund.lines == [15]  # the call site in payments.py
    assert by_name["shop.billing.invoice.Invoice.render"].tier == "will_break"  # through the `fmt` alias
    test_refund = next(t for t in report.tests if t.qualname == "tests.test_invoice.TestPayment.test_refund")
    assert test_refund.pytest_id == "tests/test_invoice.py::TestPayment::test_refund"
    assert (test_refund.runner, test_refund.selector) == ("pytest", test_refund.pytest_id)
    assert test_refund.depth == 2 and test_refund.via[-1] == FORMAT_MONEY
    [command] = report.commands  # one runner: one command, every selected test on it
    assert command.runner == "pytest" and command.tests == len(report.tests)
    assert command.command.split()[1:] == [t.pytest_id for t in report.tests]
    document = report.to_dict()
    assert set(document) >= {
        "branch",
        "commit",
        "changed",
        "impacted",
        "tests",
        "commands",
        "risk",
        "exact",
        "unknowns",
    }
    assert document["changed"][0]["change"] == "modified" and document["risk"] in ("medium", "high")


def test_an_override_is_used_where_the_method_it_overrides_is_called(repo_dir: Path, config, javashop_sources):
    """`status.next(order)` is typed by the enum and runs each constant's override: changing
    PAID's `next` affects its callers, which call it through OrderStatus.next; its tests run with
    Maven, and a JDK `next` elsewhere (external, the enum has no library base) is no user."""
    sources = {**javashop_sources, "src/main/java/com/shop/util/Ids.java": IDS_JAVA}
    commit_files(init_repo(repo_dir), sources)
    api.ingest(repo_dir, config=config)
    paid_next = "com.shop.model.OrderStatus.PAID.next"
    report = api.impact(repo_dir, symbols=[paid_next], config=config)
    advance = next(i for i in report.impacted if i.qualname == "com.shop.service.OrderService.advance")
    assert (advance.depth, advance.tier) == (1, "will_break")
    assert advance.via == [advance.qualname, "com.shop.model.OrderStatus.next", paid_next]
    assert [t.qualname for t in report.tests] == ["com.shop.service.OrderServiceTest.paidOrdersMoveOn"]
    assert [(c.runner, c.command) for c in report.commands] == [
        ("maven", "mvn test -Dsurefire.failIfNoSpecifiedTests=false -Dtest='OrderServiceTest#paidOrdersMoveOn'")
    ]
    assert report.unknowns == {} and report.exact
    # The overridden method is drawn, dispatching to the changed override.
    assert '["com.shop.model.OrderStatus.next"] -.->|dispatches to|' in to_mermaid(report)
    # A method of a class with a library base keeps the library's calls as possible users.
    report = api.impact(repo_dir, symbols=["com.shop.util.Ids.IdIterator.next"], config=config)
    assert [u.raw for u in report.unknowns["src/main/java/com/shop/util/Ids.java"]] == ["java.util.Iterator.next"]


def test_a_go_test_is_selected_and_run_in_its_package(goshop_repo: Path, config):
    """A Go test is `TestX`, no `test_` name."""
    api.ingest(goshop_repo, config=config)
    report = api.impact(goshop_repo, symbols=["internal/orders.NewMemStore"], config=config)
    assert "internal/orders.TestPlace" in {t.qualname for t in report.tests}
    assert [c.command for c in report.commands] == ["go test ./internal/orders -run '^(TestPlace)$'"]


def test_an_implementation_runs_where_its_interface_method_is_called(repo_dir: Path, config, javashop_sources):
    """`OrderService.place` calls `store.save` on an `OrderStore` field: a test placing an order
    with a MemoryOrderStore runs MemoryOrderStore.save, which implements the interface's."""
    commit_files(init_repo(repo_dir), javashop_sources)
    api.ingest(repo_dir, config=config)
    report = api.impact(repo_dir, symbols=["com.shop.store.MemoryOrderStore.save"], config=config)
    placed = [t for t in report.tests if t.qualname == "com.shop.service.OrderServiceTest.placeStoresAndTotals"]
    assert [(t.evidence, t.via) for t in placed] == [
        (
            "calls",
            [
                "com.shop.service.OrderServiceTest.placeStoresAndTotals",
                "com.shop.service.OrderService.place",
                "com.shop.store.OrderStore.save",
                "com.shop.store.MemoryOrderStore.save",
            ],
        )
    ]


def test_a_jest_test_is_selected_by_its_titles(webshop_repo: Path, config):
    """A jest/vitest test is named by its `describe`/`it` titles."""
    api.ingest(webshop_repo, config=config)
    report = api.impact(webshop_repo, symbols=["src/models/order.Order.total"], config=config)
    totals = "src/services/__tests__/orderService.test.OrderService.quickOrder.totals one line"
    assert totals in {t.qualname for t in report.tests}
    [command] = report.commands
    assert command.runner == "jest"  # the package.json names no vitest
    assert command.command.startswith("npx jest src/services/__tests__/orderService.test.ts -t ")
    assert "OrderService[ .]quickOrder[ .]totals[ .]one[ .]line" in command.command


IDS_JAVA = b"""package com.shop.util;

import java.util.Iterator;

/** Order ids, one after the other. */
public class Ids {
    public static String first(Iterator<String> ids) {
        return ids.next();
    }

    /** Counts up from a start. */
    public static class IdIterator implements Iterator<String> {
        private int next;

        public boolean hasNext() {
            return true;
        }

        public String next() {
            return "o-" + next++;
        }
    }
}
"""


def test_a_diff_is_read_symbol_by_symbol_on_both_sides(shop_repo: Path, config):
    api.ingest(shop_repo, config=config)  # the graph holds the base of the change
    commit_shop_edit(
        shop_repo,
        lambda money: money.replace("def format_money(amount):", "def format_money(amount, currency):").replace(
            'CURRENCY = "EUR"', 'CURRENCY = "EUR"\n\n\ndef parse_money(text):\n    return float(text)'
        ),
        lambda invoice: invoice.replace("    def export(self):\n        return self.exporter.send(self)\n", ""),
    )
    report = api.impact(shop_repo, diff="HEAD~1..HEAD", config=config)
    changes = {c["qualname"]: c["change"] for c in report.changed}
    assert changes == {
        FORMAT_MONEY: "signature",
        "shop.core.money.parse_money": "added",
        "shop.billing.invoice.Invoice.export": "deleted",
        "shop.billing.invoice.Invoice.total": "modified",
    }
    assert report.risk == "critical"  # a changed signature whose callers are still there
    assert any("signature" in r or "deleted" in r for r in report.reasons)
    result = CliRunner().invoke(
        cli,
        ["impact", str(shop_repo), "--diff", "HEAD~1..HEAD", "--fail-on", "high"],
        env={"BRANCHGRAPH_NEO4J_URI": config.neo4j_uri, "BRANCHGRAPH_DATABASE_URL": config.database_url,
             "BRANCHGRAPH_EMBEDDER": "hashing"},
    )  # fmt: skip
    assert result.exit_code == EXIT_RISK, result.output
    assert "**critical** risk" in result.output and "```mermaid" in result.output and "pytest tests/" in result.output


def test_a_diff_reads_the_versions_an_ingest_parsed_from_the_parse_cache(shop_repo: Path, config, monkeypatch):
    from branchgraph.impact import changes

    api.ingest(shop_repo, config=config)
    commit_shop_edit(
        shop_repo,
        lambda money: money.replace("def format_money(amount):", "def format_money(amount, currency):"),
        lambda invoice: invoice.replace("    def export(self):\n        return self.exporter.send(self)\n", ""),
    )
    api.ingest(shop_repo, config=config)  # both sides of the diff are indexed: both parsed before
    with monkeypatch.context() as patch:
        patch.setattr(changes, "_cached_parses", lambda files, cache: {})
        parsed_again = api.impact(shop_repo, diff="HEAD~1..HEAD", config=config).to_dict()

    def no_parse(language: str, data: bytes):
        raise AssertionError(f"a {language} file was parsed again")

    monkeypatch.setattr(changes, "extract", no_parse)
    assert api.impact(shop_repo, diff="HEAD~1..HEAD", config=config).to_dict() == parsed_again
    assert {c["qualname"] for c in parsed_again["changed"]} >= {FORMAT_MONEY, "shop.billing.invoice.Invoice.export"}


def test_unresolved_references_that_name_a_changed_symbol_are_never_no_impact(repo_dir: Path, config):
    from gitrepo import init_repo

    commit_files(
        init_repo(repo_dir),
        {
            "lib.py": "def checksum(data):\n    return sum(data)\n",
            "app.py": "def run(plugin):\n    return plugin.checksum(b'x')\n",  # the receiver's type is unknown
        },
    )
    api.ingest(repo_dir, config=config)
    report = api.impact(repo_dir, symbols=["lib.checksum"], config=config)
    assert report.impacted == [] and not report.exact
    assert [(u.raw, u.line) for u in report.unknowns["app.py"]] == [("plugin.checksum", 2)]
    assert report.risk == "medium" and report.reaches("medium") and not report.reaches("high")
    as_json = CliRunner().invoke(
        cli,
        ["impact", str(repo_dir), "--symbol", "lib.checksum", "--json"],
        env={"BRANCHGRAPH_NEO4J_URI": config.neo4j_uri, "BRANCHGRAPH_DATABASE_URL": config.database_url,
             "BRANCHGRAPH_EMBEDDER": "hashing"},
    )  # fmt: skip
    assert json.loads(as_json.output)["unknowns"]["app.py"][0]["raw"] == "plugin.checksum"


def test_check_suggests_the_nearest_definitions_of_the_closest_names_first():
    from branchgraph.impact.check import Named, nearest_names

    symbols = {
        "save": [
            Named("a.models.save", "a/models.py", "Function"),
            Named("z.store.save", "z/store.py", "Function"),
            Named("z.store.Store.save", "z/store.py", "Method"),
        ],
        "slave": [Named("a.models.slave", "a/models.py", "Function")],
        "unrelated": [Named("a.models.unrelated", "a/models.py", "Function")],
    }
    # The same directory first, and the kind the call's form reaches.
    assert nearest_names("sav", "z/api.py", symbols) == ["z.store.save", "z.store.Store.save", "a.models.save"]
    assert nearest_names("self.store.sav", "z/api.py", symbols)[0] == "z.store.Store.save"
    assert nearest_names("sav", "a/views.py", symbols)[0] == "a.models.save"
    assert nearest_names("frobnicate", "a/views.py", symbols) == []


def test_check_reports_references_that_resolve_to_nothing_with_the_nearest_names(repo_dir: Path, config):
    from dulwich.repo import Repo
    from gitrepo import init_repo

    lib = "def compute_total(items):\n    return sum(items)\n"
    commit_files(init_repo(repo_dir), {"lib.py": lib, "app.py": "import lib\n\n\ndef run():\n    return 1\n"})
    # Generated code calls a function that does not exist (misspelt) and one that does.
    commit_files(
        Repo(str(repo_dir)),
        {
            "lib.py": lib,
            "app.py": (
                "import lib\n\n\ndef run(items):\n    lib.compute_totl(items)\n    return lib.compute_total(items)\n\n\n"
                # `self._add` holds one of two methods: resolved by inference, no finding.
                "class Adder:\n    def __init__(self, safe):\n        if safe:\n            self._add = self._add_safe\n"
                "        else:\n            self._add = self._add_fast\n\n"
                "    def _add_safe(self, items):\n        return sum(items)\n\n"
                "    def _add_fast(self, items):\n        return sum(items)\n\n"
                "    def total(self, items):\n        return self._add(items)\n"
            ),
        },
    )
    api.ingest(repo_dir, config=config)
    findings = api.check(repo_dir, diff="HEAD", config=config)
    assert [(f.path, f.line, f.raw, f.suggestions) for f in findings] == [
        ("app.py", 5, "lib.compute_totl", ["lib.compute_total"])
    ]
    env = {"BRANCHGRAPH_NEO4J_URI": config.neo4j_uri, "BRANCHGRAPH_DATABASE_URL": config.database_url,
           "BRANCHGRAPH_EMBEDDER": "hashing"}  # fmt: skip
    sarif = CliRunner().invoke(cli, ["check", "--repo", str(repo_dir), "--diff", "HEAD", "--format", "sarif"], env=env)
    assert sarif.exit_code == 1
    result = json.loads(sarif.output)["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 5
    assert "did you mean lib.compute_total" in result["message"]["text"]
    clean = CliRunner().invoke(cli, ["check", "--repo", str(repo_dir), str(repo_dir / "lib.py")], env=env)
    assert clean.exit_code == 0 and "every reference" in clean.output, clean.output


def test_the_graph_diff_of_two_branches(shop_repo: Path, config):
    from dulwich.repo import Repo

    api.ingest(shop_repo, config=config)
    commit_shop_edit(
        shop_repo,
        lambda money: money[: money.index("def format_money")] + "def parse_money(text):\n    return float(text)\n",
        lambda invoice: invoice.replace("def add_line(self, amount):", "def add_line(self, amount, note=None):"),
        branch="feature",
        parents=[Repo(str(shop_repo)).refs[b"refs/heads/main"]],
    )
    api.ingest(shop_repo, branch="feature", config=config)
    d = api.diff("main", "feature", shop_repo, config=config).to_dict()
    names = {group: {s["qualname"] for s in d["symbols"][group]} for group in d["symbols"]}
    assert names == {
        "added": {"shop.core.money.parse_money"},
        "removed": {FORMAT_MONEY},
        "signature": {"shop.billing.invoice.Invoice.add_line"},
        "modified": {"shop.billing.invoice.Invoice.total"},
    }
    assert d["files"]["modified"] == ["src/shop/billing/invoice.py", "src/shop/core/money.py"]
    broken = {(b["user"], b["was"]) for b in d["broken_references"]}
    assert ("shop.payments.Payment.refund", FORMAT_MONEY) in broken  # payments.py itself did not change
    assert d["edges"]["removed"].get("CALLS", 0) >= 1
    # TestPayment.test_refund calls Payment.refund, which calls the re-signed Invoice.add_line.
    assert "tests.test_invoice.TestPayment.test_refund" in {t["qualname"] for t in d["tests"]}
    env = {"BRANCHGRAPH_NEO4J_URI": config.neo4j_uri, "BRANCHGRAPH_DATABASE_URL": config.database_url,
           "BRANCHGRAPH_EMBEDDER": "hashing"}  # fmt: skip
    shown = CliRunner().invoke(cli, ["diff", "main", "feature", "--repo", str(shop_repo)], env=env)
    assert shown.exit_code == 0 and "Broken references" in shown.output


def test_the_graph_diff_tells_overloads_apart(repo_dir: Path, config, javashop_sources):
    """Order.addLine has two overloads, one qualname: a method added above them shifts both,
    and neither is a new signature (each compared with itself, not with the other)."""
    repo = init_repo(repo_dir)
    commit_files(repo, javashop_sources)
    api.ingest(repo_dir, config=config)
    order = "src/main/java/com/shop/model/Order.java"
    added = b"    public int size() {\n        return lines.size();\n    }\n\n    public Order addLine(String sku"
    feature = {
        **javashop_sources,
        order: javashop_sources[order].replace(b"    public Order addLine(String sku", added, 1),
    }
    commit_files(repo, feature, branch="feature", parents=[repo.refs[b"refs/heads/main"]])
    api.ingest(repo_dir, branch="feature", config=config)
    d = api.diff("main", "feature", repo_dir, config=config).to_dict()
    names = {group: {s["qualname"] for s in d["symbols"][group]} for group in d["symbols"]}
    assert names == {"added": {"com.shop.model.Order.size"}, "removed": set(), "signature": set(), "modified": set()}


def test_a_changed_test_is_run_itself(repo_dir: Path, config):
    """No test calls a test: a changed one is selected for its own change, not found by a walk
    (nor by the fallback, which would run every test of its file)."""
    files = {
        "lib/__init__.py": "",
        "lib/calc.py": "def double(x):\n    return 2 * x\n",
        "tests/__init__.py": "",
        "tests/test_misc.py": "def test_alone():\n    assert 1 + 1 == 2\n\n\ndef test_other():\n    assert True\n",
    }
    repo = init_repo(repo_dir)
    commit_files(repo, files)
    api.ingest(repo_dir, config=config)
    report = api.impact(repo_dir, symbols=["tests.test_misc.test_alone"], config=config)
    assert {t.qualname: t.evidence for t in report.tests} == {"tests.test_misc.test_alone": "changed"}
    edited = {**files, "tests/test_misc.py": files["tests/test_misc.py"].replace("1 + 1 == 2", "2 + 2 == 4")}
    commit_files(repo, edited, branch="feature", parents=[repo.refs[b"refs/heads/main"]])
    api.ingest(repo_dir, branch="feature", config=config)
    d = api.diff("main", "feature", repo_dir, config=config).to_dict()
    assert [(t["qualname"], t["evidence"]) for t in d["tests"]] == [("tests.test_misc.test_alone", "changed")]
    # Changed with the function it calls, the test is that function's test too: no fallback for it.
    both = {
        **edited,
        "lib/calc.py": "def double(x):\n    return x + x\n",
        "tests/test_misc.py": "from lib.calc import double\n\n\n"
        + edited["tests/test_misc.py"].replace("assert 2 + 2 == 4", "assert double(2) == 4"),
    }
    commit_files(repo, both, branch="feature", parents=[repo.refs[b"refs/heads/feature"]])
    api.ingest(repo_dir, branch="feature", config=config)
    d = api.diff("main", "feature", repo_dir, config=config).to_dict()
    assert [(t["qualname"], t["evidence"]) for t in d["tests"]] == [("tests.test_misc.test_alone", "changed")]


def test_an_edge_keeps_every_call_site(repo_dir: Path, config, graph_store):
    from gitrepo import init_repo

    commit_files(
        init_repo(repo_dir),
        {"m.py": "def f(x):\n    return x\n\n\ndef g():\n    f(1)\n    f(f(2))\n    return f(3)\n"},
    )
    api.ingest(repo_dir, config=config)
    [edge] = graph_store.read_query(
        "MATCH (:Function {repo: $repo, name: 'g'})-[r:CALLS]->(:Function {name: 'f'}) "
        "RETURN r.line AS line, r.lines AS lines, r.count AS count",
        {"repo": repo_dir.name},
    )
    assert edge == {"line": 6, "lines": [6, 7, 8], "count": 4}
    report = api.impact(repo_dir, symbols=["m.f"], config=config)
    assert [(i.qualname, i.lines) for i in report.impacted] == [("m.g", [6, 7, 8])]


def _indexed_selection(repo_dir: Path, config, files: dict[str, str]):
    """Index ``files`` as a repository: the tests `impact --symbol` selects for a qualname,
    with the evidence that chose each."""
    from gitrepo import init_repo

    commit_files(init_repo(repo_dir), files)
    api.ingest(repo_dir, config=config)

    def selected(qualname: str) -> dict[str, str]:
        return {t.qualname: t.evidence for t in api.impact(repo_dir, symbols=[qualname], config=config).tests}

    return selected


SELECTION_REPO = {
    "lib/__init__.py": "",
    "lib/engine.py": (
        "class Engine:\n"
        "    def __init__(self):\n        self.ready = True\n\n"
        "    def __enter__(self):\n        return self\n\n"
        "    def __exit__(self, *exc):\n        return False\n\n"
        "    def __call__(self):\n        return self.ready\n\n"
        "    @property\n    def state(self):\n        return 'on'\n\n"
        "    def run(self):\n"
        "        def step():\n            return 1\n"
        "        return step()\n\n"
        "    def never_called(self):\n        return 0\n\n\n"
        "def make():\n    return Engine()\n"
    ),
    "lib/config.py": "def load():\n    return {}\n",
    "lib/orphan.py": "def lonely():\n    return 1\n",
    "tests/__init__.py": "",
    "tests/test_engine.py": (
        "from lib.engine import make\n\n\n"
        "def test_with_block():\n    with make() as engine:\n        assert engine\n\n\n"
        "def test_runs_on_an_unknown_receiver(thing):\n    thing.run()\n"
    ),
    "tests/test_config.py": "def test_nothing_named():\n    assert True\n",
    "tests/test_imports.py": "import lib.orphan\n\n\ndef test_imports_orphan():\n    assert lib.orphan\n",
}


def test_tests_are_selected_through_calls_names_enclosing_scopes_and_implicit_methods(repo_dir: Path, config):
    selected = _indexed_selection(repo_dir, config, SELECTION_REPO)

    with_block, unknown = "tests.test_engine.test_with_block", "tests.test_engine.test_runs_on_an_unknown_receiver"
    # Constructed by `make()` in a test: the constructor, the context manager, `__call__` and the
    # property run whenever the class is used; `run` is called on a receiver the graph cannot type, by
    # name; its nested `step` runs when `run` does.
    assert selected("lib.engine.Engine.__enter__") == {with_block: "calls"}
    assert selected("lib.engine.Engine.__call__") == {with_block: "calls"}  # no library holds an Engine
    assert selected("lib.engine.Engine.state") == {with_block: "calls"}
    assert selected("lib.engine.Engine.run.step") == {unknown: "calls"}
    # A plain method nobody calls is not "used with its class"; its module's test file is.
    assert selected("lib.engine.Engine.never_called") == {with_block: "module name", unknown: "module name"}
    # No test reaches these: the test file named after the module, else the files importing it.
    assert selected("lib.config.load") == {"tests.test_config.test_nothing_named": "module name"}
    assert selected("lib.orphan.lonely") == {"tests.test_imports.test_imports_orphan": "imports"}


def test_a_name_with_a_type_stub_beside_its_module_selects_the_users_of_its_implementation(repo_dir: Path, config):
    """`setters.pyi` declares what `setters.py` implements under the same qualified names;
    either definition of a name stands for both, and the implementation is the one shown."""
    selected = _indexed_selection(
        repo_dir,
        config,
        {
            "lib/__init__.py": "",
            "lib/setters.py": "def pipe(*steps):\n    return steps\n",
            "lib/setters.pyi": "def pipe(*steps: object) -> tuple[object, ...]: ...\n",
            "tests/__init__.py": "",
            "tests/test_pipe.py": "from lib import setters\n\n\ndef test_pipe():\n    assert setters.pipe(1)\n",
            "tests/test_other.py": "def test_other():\n    assert True\n",
        },
    )
    assert selected("lib.setters.pipe") == {"tests.test_pipe.test_pipe": "calls"}
    report = api.impact(repo_dir, symbols=["lib.setters.pipe"], config=config)
    assert [c["path"] for c in report.changed] == ["lib/setters.py"]
    assert {i.qualname: i.tier for i in report.impacted} == {"tests.test_pipe.test_pipe": "will_break"}


def test_a_call_at_the_top_of_a_test_file_runs_for_each_of_its_tests(repo_dir: Path, config):
    """What a test module makes when it is imported (a class built by a factory) is what its
    tests use: the factory's inner function is selected for every test of that file alone."""
    selected = _indexed_selection(
        repo_dir,
        config,
        {
            "lib/__init__.py": "",
            "lib/cmp.py": (
                "def make_class(name):\n"
                "    def __init__(self, value):\n        self.value = value\n\n"
                "    return type(name, (), {'__init__': __init__})\n"
            ),
            "tests/__init__.py": "",
            "tests/test_cmp.py": (
                "from lib.cmp import make_class\n\nEqC = make_class('EqC')\nCASES = [EqC]\n\n\n"
                "def test_equal():\n    assert EqC(1)\n\n\n"
                "class TestOrder:\n    def test_order(self):\n        assert CASES\n"
            ),
            "tests/test_other.py": "def test_other():\n    assert True\n",
        },
    )
    assert selected("lib.cmp.make_class.__init__") == {
        "tests.test_cmp.test_equal": "calls",
        "tests.test_cmp.TestOrder.test_order": "calls",
    }


@pytest.mark.parametrize("walk_room", [5_000, 3])
def test_a_walk_step_read_in_parts_selects_what_one_read_selects(repo_dir: Path, config, monkeypatch, walk_room):
    from branchgraph.impact import state_memo, test_selection

    _indexed_selection(repo_dir, config, SELECTION_REPO)
    monkeypatch.setattr(test_selection, "MAX_WALK", walk_room)  # 3: every step is cut at its room
    changed = [
        "lib.engine.Engine.__enter__",
        "lib.engine.Engine.run.step",
        "lib.engine.Engine.state",
        "lib.config.load",
    ]

    def answer(split_from: int) -> dict:
        monkeypatch.setattr(test_selection, "_SPLIT_FROM", split_from)
        state_memo._MEMOS.clear()  # nothing kept from the other way of reading
        return api.impact(repo_dir, symbols=changed, config=config).to_dict()

    whole, in_parts = answer(10_000), answer(1)
    assert in_parts == whole
    assert whole["tests"] and whole["exact"] == (walk_room > 3)


FIXTURE_AND_OVERRIDE_REPO = {
    "lib/__init__.py": "",
    "lib/store.py": "class Store:\n    def save(self):\n        return 1\n",
    "lib/tags.py": (
        "class Tag:\n    def check(self, value):\n        return False\n\n\n"
        "class DictTag(Tag):\n    def check(self, value):\n        return isinstance(value, dict)\n\n\n"
        "class Serializer:\n    def __init__(self):\n        self.order: list[Tag] = [DictTag()]\n\n"
        "    def tag(self, value):\n        for tag in self.order:\n            if tag.check(value):\n"
        "                return tag\n\n\n"
        "class Base:\n    def __init__(self):\n        self.ready = True\n\n\n"
        "class Left(Base):\n    def __init__(self):\n        super().__init__()\n\n\n"
        "class Right(Base):\n    pass\n"
    ),
    "tests/__init__.py": "",
    "tests/conftest.py": (
        "import pytest\n\nfrom lib.store import Store\n\n\n"
        "@pytest.fixture\ndef store():\n    return Store()\n\n\n"
        "@pytest.fixture\ndef filled(store):\n    store.save()\n    return store\n\n\n"
        '@pytest.fixture(name="shop")\ndef shop_fixture():\n    return Store()\n'
    ),
    "tests/test_store.py": (
        "import pytest\n\nfrom lib.store import Store\n\n\ndef test_uses_a_fixture(filled):\n    assert filled\n\n\n"
        "def test_uses_a_renamed_fixture(shop):\n    assert shop\n\n\n"
        "@pytest.mark.usefixtures('filled')\nclass TestMarked:\n    def test_marked(self):\n        assert True\n\n\n"
        "def test_typed_fixture(filled: Store) -> None:\n    assert filled\n"
    ),
    "lib/client.py": (
        "import http.client\n\nfrom lib.app import App\n\n\nclass Client(http.client.HTTPConnection):\n"
        "    app: App\n\n"
        "    def __init__(self, host):\n        super().__init__(host)\n\n"
        "    def request(self, method, url):\n        return super().request(method, url)\n\n"
        "    def helper(self):\n        return 1\n\n"
        "    def app_name(self):\n        return self.app.name()\n"
    ),
    "lib/app.py": (
        "class App:\n    def __call__(self, environ):\n        return self.handle(environ)\n\n"
        "    def handle(self, environ):\n        return environ\n\n"
        "    def name(self):\n        return 'app'\n"
    ),
    "tests/test_client.py": (
        "from lib.client import Client\n\n\n"
        "def test_through_the_library():\n    Client('h').getresponse()\n\n\n"
        "def test_through_an_attribute():\n    Client('h').sock.close()\n"
    ),
    "tests/test_app.py": "from lib.app import App\n\n\ndef test_builds_the_app():\n    assert App().name()\n",
    "lib/numbers.py": "def make_numbers():\n    return [1, 2]\n",
    "tests/test_numbers.py": (
        "import pytest\n\nfrom lib.numbers import make_numbers\n\n\n"
        "@pytest.mark.parametrize('n', make_numbers())\ndef test_positive(n):\n    assert n > 0\n\n\n"
        "def test_other():\n    assert True\n"
    ),
    "lib/db.py": "def connect():\n    return 1\n\n\ndef reset():\n    return 0\n",
    "tests/test_db.py": (
        "import unittest\n\nimport pytest\n\nfrom lib.db import connect, reset\n\n\n"
        "@pytest.fixture(autouse=True)\ndef clean():\n    reset()\n\n\n"
        "class BaseCase(unittest.TestCase):\n    def setUp(self):\n        self.conn = connect()\n\n\n"
        "class TestQueries(BaseCase):\n    def test_select(self):\n        assert self.conn\n"
    ),
    "tests/test_tags.py": (
        "from lib.tags import Left, Right, Serializer\n\n\ndef test_tagging():\n    assert Serializer().tag({})\n\n\n"
        "def test_left():\n    assert Left().ready\n\n\ndef test_right():\n    assert Right().ready\n"
    ),
}


def test_tests_are_selected_through_fixtures_overrides_and_set_up(repo_dir: Path, config, graph_store):
    selected = _indexed_selection(repo_dir, config, FIXTURE_AND_OVERRIDE_REPO)

    # pytest calls `filled` for the test, and `store` for `filled`: inferred CALLS edges.
    fixture_edges = graph_store.read_query(
        "MATCH (a {repo: $repo})-[r:CALLS {inferred: true}]->(b) RETURN a.qualname AS a, b.qualname AS b, r.via AS via",
        {"repo": repo_dir.name},
    )
    assert {(r["a"], r["b"], r["via"]) for r in fixture_edges} == {
        ("tests.test_store.test_uses_a_fixture", "tests.conftest.filled", "pytest fixture"),
        ("tests.conftest.filled", "tests.conftest.store", "pytest fixture"),
        ("tests.test_store.test_uses_a_renamed_fixture", "tests.conftest.shop_fixture", "pytest fixture"),
        ("tests.test_store.TestMarked.test_marked", "tests.conftest.filled", "pytest fixture"),
        ("tests.test_store.test_typed_fixture", "tests.conftest.filled", "pytest fixture"),  # `filled: Store`
    }
    # Reached through the fixture that calls it, not only by the test file's name.
    assert selected("lib.store.Store.save") == {
        "tests.test_store.test_uses_a_fixture": "calls",
        "tests.test_store.TestMarked.test_marked": "calls",
        "tests.test_store.test_typed_fixture": "calls",
    }
    # A library base's code may call an override (the override's super() call shows the base
    # has the method): it runs wherever the base's own methods are called, not where an
    # attribute of an instance is used. A method that overrides nothing does not.
    library, attribute = "tests.test_client.test_through_the_library", "tests.test_client.test_through_an_attribute"
    assert selected("lib.client.Client.request") == {library: "calls"}
    assert selected("lib.client.Client.helper") == {library: "module name", attribute: "module name"}
    # A callable the library class holds (Client's methods use an App) runs when the library's
    # own methods are called, not wherever an App is built; constructing the library object
    # (super().__init__()) does not run it either.
    assert selected("lib.app.App.handle") == {library: "calls"}
    assert selected("lib.app.App.name") == {"tests.test_app.test_builds_the_app": "calls"}
    # `tag.check` resolves to Tag.check; DictTag.check runs there too.
    assert selected("lib.tags.DictTag.check") == {"tests.test_tags.test_tagging": "calls"}
    # A constructor is no override a base's callers run: building a Right does not run Left's.
    assert selected("lib.tags.Left.__init__") == {"tests.test_tags.test_left": "calls"}
    # What a test's decorators call (its parametrize cases) runs for that test.
    assert selected("lib.numbers.make_numbers") == {"tests.test_numbers.test_positive": "calls"}
    # A base class's setUp runs before each test of its subclasses; an autouse fixture before
    # each test in its scope.
    assert selected("lib.db.connect") == {"tests.test_db.TestQueries.test_select": "calls"}
    assert selected("lib.db.reset") == {"tests.test_db.TestQueries.test_select": "calls"}


VALUES_REPO = {
    "lib/__init__.py": "",
    "lib/formats.py": (
        "def iso(value):\n    return str(value)\n\n\n"
        "def rfc(value):\n    return str(value)\n\n\n"
        "class Field:\n    FORMATS = {'iso': iso}\n\n"
        "    def format(self, value):\n        return self.FORMATS['iso'](value)\n\n\n"
        "class Number(Field):\n    def __init__(self):\n        self.places = 2\n"
    ),
    "lib/meta.py": (
        "class Registry(type):\n    def __new__(mcs, name, bases, attrs):\n"
        "        return super().__new__(mcs, name, bases, attrs)\n\n\n"
        "class Model(metaclass=Registry):\n    pass\n"
    ),
    "lib/checks.py": (
        "from abc import ABC\n\n\nclass Check(ABC):\n    def __repr__(self):\n        return self.describe()\n\n"
        "    def describe(self):\n        return 'check'\n\n"
        "    def __call__(self, value):\n        return value\n\n\n"
        "class Positive(Check):\n    def __call__(self, value):\n        return value > 0\n"
    ),
    "tests/__init__.py": "",
    "tests/cases.py": "from lib.formats import Number\n\nALL_FIELDS = [Number]\n",
    "tests/test_formats.py": (
        "import pytest\n\nfrom lib.formats import Field, rfc\nfrom tests.cases import ALL_FIELDS\n\n\n"
        "@pytest.mark.parametrize('cls', ALL_FIELDS)\ndef test_each_field(cls):\n    assert cls()\n\n\n"
        "def test_format():\n    assert Field().format(1)\n\n\n"
        "def test_sorted_by_rfc():\n    assert sorted([2, 1], key=rfc)\n"
    ),
    "tests/test_meta.py": (
        "from lib.meta import Model\n\n\ndef test_define_a_model():\n    class Book(Model):\n        pass\n\n"
        "    assert Book\n"
    ),
    "tests/test_checks.py": "from lib.checks import Positive\n\n\ndef test_positive():\n    assert Positive()(1)\n",
}


def test_tests_are_selected_through_values_metaclasses_and_called_instances(repo_dir: Path, config):
    selected = _indexed_selection(repo_dir, config, VALUES_REPO)

    each, fmt = "tests.test_formats.test_each_field", "tests.test_formats.test_format"
    # A callback runs where it is handed on (`key=rfc`); a table of handlers in a class body
    # runs with its class (built by one test, subclassed by a class another test builds).
    assert selected("lib.formats.rfc") == {"tests.test_formats.test_sorted_by_rfc": "calls"}
    assert selected("lib.formats.iso") == {fmt: "calls", each: "calls"}
    # A parametrize list of classes, defined in another module: the test builds each of them.
    assert selected("lib.formats.Number.__init__") == {each: "calls"}
    # Defining a class runs its metaclass.
    assert selected("lib.meta.Registry.__new__") == {"tests.test_meta.test_define_a_model": "calls"}
    # The base's own methods calling each other hold no instance: `Positive()(1)` runs __call__
    # where a Positive is used, whatever the library base (abc.ABC) does.
    assert selected("lib.checks.Positive.__call__") == {"tests.test_checks.test_positive": "calls"}
    # Impact climbs a reference as a caller: what hands `rfc` on breaks with its signature.
    impacted = {i.qualname: i.tier for i in api.impact(repo_dir, symbols=["lib.formats.rfc"], config=config).impacted}
    assert impacted == {"tests.test_formats.test_sorted_by_rfc": "will_break"}


INSTANCES_REPO = {
    "lib/__init__.py": "",
    "lib/types.py": (
        "class ParamType:\n    def __call__(self, value):\n        return self.convert(value)\n\n"
        "    def convert(self, value):\n        return value\n\n\n"
        "class Number(ParamType):\n    def convert(self, value):\n        return int(value)\n\n\n"
        "class Date(ParamType):\n    def convert(self, value):\n        return value.split('-')\n\n\n"
        "class Flag(ParamType):\n    def convert(self, value):\n        return bool(value)\n\n\n"
        "class Unseen(ParamType):\n    def convert(self, value):\n        return None\n\n\n"
        "class Clock(ParamType):\n    def convert(self, value):\n        return value.split(':')\n\n\n"
        "class Settings:\n    clock_class = Clock\n\n\n"
        "FLAG = Flag()\n\n\ndef build(cls):\n    return cls()\n"
    ),
    "lib/core.py": (
        "from lib.types import Date, ParamType, build\n\n\n"
        "class Option:\n    def __init__(self, kind: ParamType):\n        self.kind = kind\n\n"
        "    def process(self, value):\n        return self.kind(value)\n\n\n"
        "def date_option():\n    return Option(build(Date))\n"
    ),
    "tests/__init__.py": "",
    "tests/test_core.py": (
        "from lib.core import Option, date_option\nfrom lib.types import FLAG, Number, Settings\n\n\n"
        "def test_number():\n    assert Option(Number()).process('1') == 1\n\n\n"
        "def test_date():\n    assert date_option().process('2020-01-02')\n\n\n"
        "def test_flag():\n    assert Option(FLAG).process('x')\n\n\n"
        "def test_clock():\n    assert Option(Settings().clock_class()).process('10:00')\n"
    ),
    "tests/test_other.py": "def test_nothing():\n    assert True\n",
}


def test_an_override_runs_for_the_tests_that_make_an_instance_of_its_class(repo_dir: Path, config):
    selected = _indexed_selection(repo_dir, config, INSTANCES_REPO)
    every = {f"tests.test_core.test_{name}": "calls" for name in ("number", "date", "flag", "clock")}
    # The base's method runs wherever a parameter is processed.
    assert selected("lib.types.ParamType.convert") == every
    # An override, reached through the method it overrides, runs where an instance of its class
    # exists: the test that constructs one, the test calling a function handed the class
    # (`build(Date)`), and the tests of every test file importing a module that makes one at
    # import (`FLAG = Flag()`).
    assert selected("lib.types.Number.convert") == {"tests.test_core.test_number": "calls"}
    assert selected("lib.types.Date.convert") == {"tests.test_core.test_date": "calls"}
    assert selected("lib.types.Flag.convert") == every
    # A class a class keeps (`clock_class = Clock`) is made where that class is used.
    assert selected("lib.types.Clock.convert") == {"tests.test_core.test_clock": "calls"}
    # A class no test is seen to make may be made where the graph cannot see (a factory by
    # name): its override keeps the walk's tests.
    assert selected("lib.types.Unseen.convert") == every


def test_a_walk_cut_short_keeps_every_test_it_reached(repo_dir: Path, config, monkeypatch):
    from branchgraph.impact import state_memo, test_selection

    selected = _indexed_selection(repo_dir, config, INSTANCES_REPO)
    monkeypatch.setattr(test_selection, "MAX_WALK", 14)
    state_memo._MEMOS.clear()
    # The walk is full before it ends: its answer is inexact, so no test it reached is
    # filtered out for want of an instance (where the fallback would name it by its import).
    assert not api.impact(repo_dir, symbols=["lib.types.Number.convert"], config=config).exact
    every = {f"tests.test_core.test_{name}": "calls" for name in ("number", "date", "flag", "clock")}
    assert selected("lib.types.Number.convert") == every


def test_a_cut_step_reads_its_frontier_only_until_the_walk_is_full(repo_dir: Path, config, monkeypatch):
    from branchgraph.graph.neo4j_reads import Neo4jGraphReads
    from branchgraph.impact import state_memo, test_selection

    users = "from lib.core import core\n" + "".join(f"\n\ndef f{i}():\n    return core()\n" for i in range(30))
    tests = "from lib import users\n" + "".join(
        f"\n\ndef test_f{i}():\n    assert users.f{i}() == 1\n" for i in range(30)
    )
    files = {
        "lib/__init__.py": "",
        "lib/core.py": "def core():\n    return 1\n",
        "lib/users.py": users,
        "tests/__init__.py": "",
        "tests/test_users.py": tests,
    }
    selected = _indexed_selection(repo_dir, config, files)
    read_sizes: list[int] = []
    real_named_query = Neo4jGraphReads.named_query

    def counting(self, name, params, **kwargs):
        if name == "tests_walk_step":
            read_sizes.append(len(params["ids"]))
        return real_named_query(self, name, params, **kwargs)

    monkeypatch.setattr(Neo4jGraphReads, "named_query", counting)
    # core, then its 30 callers, then the callers' 30 tests: the walk has room for 10 of them.
    monkeypatch.setattr(test_selection, "MAX_WALK", 40)
    monkeypatch.setattr(test_selection, "_SPLIT_FROM", 10_000)  # one read a chunk, to count them
    state_memo._MEMOS.clear()
    answer = selected("lib.core.core")
    assert read_sizes == [1, 10, 10]  # 20 of the 30 callers read: the room was overfilled by then
    assert list(answer.values()).count("calls") == 10
    assert not api.impact(repo_dir, symbols=["lib.core.core"], config=config).exact


GENERIC_REPO = {
    "lib/__init__.py": "",
    "lib/types.py": (
        "import typing as t\n\nV = t.TypeVar('V')\n\n\n"
        "class ParamType(t.Generic[V]):\n    def convert(self, value):\n        return value\n\n\n"
        "class Range(ParamType[int], t.Generic[V]):\n    def describe(self):\n        return '1-9'\n\n\n"
        "class Option:\n    def __init__(self, kind: ParamType[int]):\n        self.kind = kind\n\n"
        "    def help(self):\n        return self.kind.describe()\n\n\n"
        "class Bar(t.Generic[V]):\n    def line(self):\n        return self.render()\n"
    ),
    "tests/__init__.py": "",
    "tests/test_types.py": (
        "from lib.types import Bar, Option, Range\n\n\n"
        "def test_help():\n    assert Option(Range()).help()\n\n\n"
        "def test_bar():\n    assert Bar().line()\n"
    ),
}


def test_a_base_that_only_declares_types_runs_no_override(repo_dir: Path, config):
    selected = _indexed_selection(repo_dir, config, GENERIC_REPO)
    # Neither `self.kind.describe()` nor `self.render()` names a member the classes have, so
    # each reads as one of `typing.Generic`'s. That base holds no code calling a subclass's
    # methods: `Bar().line()` does not run `Range.describe`, and the call naming `describe`
    # is matched by its name, as a call the graph could not resolve.
    assert selected("lib.types.Range.describe") == {"tests.test_types.test_help": "calls"}


FACTORY_REPO = {
    "lib/__init__.py": "",
    "lib/streams.py": (
        "import typing as t\n\n\n"
        "def cached(src) -> t.Callable[[], str]:\n    def func():\n        return src()\n\n    return func\n\n\n"
        "def stdout():\n    return 'out'\n\n\n"
        "default_stdout = cached(stdout)\n\n\n"
        "def echo():\n    return default_stdout()\n"
    ),
    "tests/__init__.py": "",
    "tests/test_streams.py": (
        "from lib.streams import echo, stdout\n\n\n"
        "def test_echo():\n    assert echo()\n\n\n"
        "def test_stdout():\n    assert stdout()\n\n\n"
        "def test_nothing():\n    assert True\n"
    ),
}


def test_a_function_handed_to_a_factory_at_module_level_runs_where_its_closure_runs(repo_dir: Path, config):
    selected = _indexed_selection(repo_dir, config, FACTORY_REPO)
    # `default_stdout = cached(stdout)`: calling the module's variable calls `cached`'s
    # closure, which calls `stdout`.
    assert selected("lib.streams.stdout") == {
        "tests.test_streams.test_echo": "calls",
        "tests.test_streams.test_stdout": "calls",
    }
