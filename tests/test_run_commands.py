"""The command a runner for a selection of tests, from the repository's files: pytest node
ids, Maven's or Gradle's test filters, `go test -run` from a package's module, jest's or
vitest's name pattern."""

from __future__ import annotations

import re
import shlex

from branchgraph.impact.run_commands import run_commands, selector


def _files(**by_path: str):
    files = {path.replace("__", "/").replace("_dot_", "."): data.encode() for path, data in by_path.items()}
    return files.get


def _selected(*tests: tuple[str, str, str]) -> list[tuple[str, str, str]]:
    """(path, qualname, module) -> (path, runner, selector)."""
    return [(path, *selector(path, qualname, module)) for path, qualname, module in tests]


def _pattern(command: str) -> str:
    words = shlex.split(command.rstrip(")"))
    return words[words.index("-t") + 1]


def test_selectors_name_each_test_as_its_runner_does():
    assert selector("tests/test_a.py", "tests.test_a.TestA.test_b", "tests.test_a") == (
        "pytest",
        "tests/test_a.py::TestA::test_b",
    )
    assert selector("src/test/java/com/shop/OrderTest.java", "com.shop.OrderTest.Lines.adds", "com.shop") == (
        "junit",
        "OrderTest$Lines#adds",  # a @Nested class as Surefire names it
    )
    assert selector("internal/orders/place_test.go", "internal/orders.TestPlace", "internal/orders") == (
        "go",
        "TestPlace",
    )
    assert selector("src/a.test.ts", "src/a.test.Cart.adds a line", "src/a.test") == ("js", "Cart adds a line")


def test_maven_takes_a_class_with_its_methods_and_gradle_one_filter_a_test():
    tests = _selected(
        ("src/test/java/com/shop/OrderTest.java", "com.shop.OrderTest.totals", "com.shop"),
        ("src/test/java/com/shop/OrderTest.java", "com.shop.OrderTest.adds", "com.shop"),
        ("src/test/java/com/shop/io/StoreTest.java", "com.shop.io.StoreTest.saves", "com.shop.io"),
    )
    [maven] = run_commands(tests, _files(pom_dot_xml="<project/>"))
    assert maven.runner == "maven" and maven.tests == 3
    assert maven.command.endswith("-Dtest='OrderTest#adds+totals,StoreTest#saves'")
    [gradle] = run_commands(tests, _files(gradlew="#!/bin/sh"))
    assert gradle.command == (
        "./gradlew test --tests com.shop.OrderTest.totals --tests com.shop.OrderTest.adds "
        "--tests com.shop.io.StoreTest.saves"
    )
    # A multi-project build: each subproject's own test task (a filter matching nothing there
    # would fail it).
    multi = [(f"modules/core/{path}", runner, name) for path, runner, name in tests[:2]] + [tests[2]]
    files = _files(gradlew="#!/bin/sh", settings_dot_gradle_dot_kts="", modules__core__build_dot_gradle_dot_kts="")
    assert [c.command for c in run_commands(multi, files)] == [
        "./gradlew test --tests com.shop.io.StoreTest.saves",
        "./gradlew :modules:core:test --tests com.shop.OrderTest.totals --tests com.shop.OrderTest.adds",
    ]


def test_go_runs_a_package_from_its_modules_directory():
    tests = _selected(
        (
            "svc/internal/orders/place_test.go",
            "example.com/svc/internal/orders.TestPlace",
            "example.com/svc/internal/orders",
        ),
        (
            "svc/internal/orders/list_test.go",
            "example.com/svc/internal/orders.TestList",
            "example.com/svc/internal/orders",
        ),
        ("tools/gen_test.go", "tools.TestGen", "tools"),
    )
    commands = run_commands(tests, _files(svc__go_dot_mod="module example.com/svc\n"))
    assert [c.command for c in commands] == [
        "go test ./tools -run '^(TestGen)$'",  # no go.mod above it: from the root
        "(cd svc && go test ./internal/orders -run '^(TestList|TestPlace)$')",
    ]


def test_js_picks_vitest_or_jest_by_the_nearest_package_json_and_matches_full_titles():
    tests = _selected(
        ("web/src/cart.test.ts", "web/src/cart.test.Cart.adds a line", "web/src/cart.test"),
        ("web/src/cart.test.ts", "web/src/cart.test.Cart.totals (v1.2)", "web/src/cart.test"),
        ("api/test/orders.spec.js", "api/test/orders.spec.orders", "api/test/orders.spec"),
    )
    files = _files(web__package_dot_json='{"devDependencies": {"vitest": "^2"}}', api__package_dot_json="{}")
    api, web = run_commands(tests, files)
    assert api.command.startswith("(cd api && npx jest test/orders.spec.js -t ")
    assert web.command.startswith("(cd web && npx vitest run src/cart.test.ts -t ")
    pattern = re.compile(_pattern(web.command))
    # The full name jest and vitest match: describe titles and the test's, space-separated;
    # a selected describe takes the tests inside it.
    assert pattern.search("Cart adds a line") and pattern.search("Cart totals (v1.2)")
    assert not pattern.search("Cart removes a line")
    orders = re.compile(_pattern(api.command))
    assert orders.search("orders lists them") and not orders.search("ordersX")
    [mocha] = run_commands(tests[2:], _files(api__package_dot_json='{"devDependencies": {"mocha": "^10"}}'))
    assert mocha.runner == "mocha" and mocha.command.startswith("(cd api && npx mocha test/orders.spec.js --grep ")
