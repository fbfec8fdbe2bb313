"""`branchgraph coverage`: a real coverage.py run's contexts become TESTED_BY edges with evidence
'coverage' (real Neo4j and PostgreSQL), which `impact` selects beside the static ones; and the
parts that read a report, on their own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from dulwich.repo import Repo
from gitrepo import commit_files, init_repo

from branchgraph import api
from branchgraph.cli import cli
from branchgraph.core.errors import CoverageReportError
from branchgraph.ingest.coverage import ContextNames, FunctionSpan, IndexedTest, Spans, read_report, repo_path

# `run` picks its operation by name at run time: no static analysis sees which test runs `double`.
CALC_REPO = {
    "lib/__init__.py": "",
    "lib/calc.py": (
        "import importlib\n\n\n"
        "def double(x):\n    return 2 * x\n\n\n"
        "def square(x):\n    def times(a, b):\n        return a * b\n\n    return times(x, x)\n\n\n"
        "def run(name, x):\n    return getattr(importlib.import_module('lib.calc'), name)(x)\n"
    ),
    "tests/__init__.py": "",
    "tests/test_calc.py": (
        "from lib.calc import run, square\n\n\n"
        "def test_double_by_name():\n    assert run('double', 2) == 4\n\n\n"
        "class TestSquare:\n    def test_square(self):\n        assert square(3) == 9\n"
    ),
}


def _coverage_report(repo: Path) -> Path:
    """Run the repository's tests under coverage.py with test contexts; the JSON report."""
    for path, text in CALC_REPO.items():  # the commit's files, checked out
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    rc = repo / ".coveragerc"
    rc.write_text("[run]\ndynamic_context = test_function\nsource = lib\n")
    subprocess.run(
        [sys.executable, "-m", "coverage", "run", f"--rcfile={rc}", "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=repo,
        check=True,
        capture_output=True,
    )
    report = repo / "coverage.json"
    subprocess.run(
        [sys.executable, "-m", "coverage", "json", f"--rcfile={rc}", "--show-contexts", "-o", str(report)],
        cwd=repo,
        check=True,
        capture_output=True,
    )
    return report


@pytest.mark.neo4j
@pytest.mark.postgres
def test_a_coverage_run_selects_the_tests_it_saw_run_a_function(repo_dir: Path, config, monkeypatch):
    commit_files(init_repo(repo_dir), CALC_REPO)
    api.ingest(repo_dir, config=config)

    def selected(qualname: str) -> dict[str, str]:
        return {t.qualname: t.evidence for t in api.impact(repo_dir, symbols=[qualname], config=config).tests}

    # The static answer cannot see the dynamic call: the test comes from the module's name.
    static = {
        "tests.test_calc.test_double_by_name": "module name",
        "tests.test_calc.TestSquare.test_square": "module name",
    }
    server = api.Workspace(repo_dir, config=config)  # a server's workspace keeps what it read
    assert {t.qualname: t.evidence for t in server.impact(symbols=["lib.calc.double"]).tests} == static
    report = _coverage_report(repo_dir)
    # As from another process: this one's kept reads are not dropped by the import itself.
    monkeypatch.setattr(api, "forget_state", lambda repo, branch: None)
    heard: list[tuple[str, int, int]] = []
    done = api.import_coverage(report, repo_dir, config=config, progress=lambda *step: heard.append(step))
    monkeypatch.undo()
    assert heard and heard[-1] == (api.COVERAGE_STAGE, 4, 4)  # edges written, edges in all
    # The branch record names the new evidence: the server reads the branch again.
    assert {t.qualname: t.evidence for t in server.impact(symbols=["lib.calc.double"]).tests} == {
        "tests.test_calc.test_double_by_name": "coverage"
    }
    server.close()
    assert (done.contexts, done.contexts_matched, done.unmatched_contexts) == (2, 2, [])
    assert (done.files_matched, done.unmatched_files) == (done.files, [])
    # double and run by one test; square and its nested times by the other (each line goes to
    # the innermost function holding it).
    assert (done.edges, done.symbols, done.tests, done.removed) == (4, 4, 2, 0)
    assert selected("lib.calc.double") == {"tests.test_calc.test_double_by_name": "coverage"}
    assert selected("lib.calc.square.times")["tests.test_calc.TestSquare.test_square"] == "coverage"

    edges = api.Workspace(repo_dir, config=config)
    with edges as ws:
        rows = ws.cypher(
            "MATCH (s {repo: $repo})-[r:TESTED_BY]->(t) WHERE r.evidence = 'coverage' "
            "RETURN s.qualname AS s, t.qualname AS t, r.covered_lines AS lines ORDER BY s",
            {"repo": done.repo},
        )
        tests_for = ws.named("tests_for", {"qualname": "lib.calc.double"})
    assert [(r["s"], r["t"], r["lines"]) for r in rows] == [
        ("lib.calc.double", "tests.test_calc.test_double_by_name", 1),
        ("lib.calc.run", "tests.test_calc.test_double_by_name", 1),
        ("lib.calc.square", "tests.test_calc.TestSquare.test_square", 2),  # `def times` and `return`
        ("lib.calc.square.times", "tests.test_calc.TestSquare.test_square", 1),
    ]
    assert any(r.get("qualname", r.get("test")) == "tests.test_calc.test_double_by_name" for r in tests_for)

    # Imported again, the evidence is replaced, not doubled; the CLI prints the same summary.
    env = {"BRANCHGRAPH_NEO4J_URI": config.neo4j_uri, "BRANCHGRAPH_DATABASE_URL": config.database_url}
    result = CliRunner().invoke(cli, ["coverage", str(report), "--repo", str(repo_dir), "--json"], env=env)
    assert result.exit_code == 0, result.output
    again = json.loads(result.output)
    assert (again["edges"], again["removed"]) == (4, 4)

    # A branch made from this one starts with its evidence (the copy takes every edge).
    git = Repo(str(repo_dir))
    git.refs[b"refs/heads/feature"] = git.refs[b"refs/heads/main"]
    api.ingest(repo_dir, branch="feature", base="main", config=config)
    feature = api.impact(repo_dir, branch="feature", symbols=["lib.calc.double"], config=config)
    assert {t.qualname: t.evidence for t in feature.tests} == {"tests.test_calc.test_double_by_name": "coverage"}

    # The evidence holds until the next import while the code changes, except where a test file
    # is indexed again: its tests' edges were the old file's (tests_for and impact then go by
    # the static edges until the next run's report is imported).
    changed = dict(CALC_REPO, **{"lib/calc.py": CALC_REPO["lib/calc.py"].replace("2 * x", "x + x")})
    commit_files(Repo(str(repo_dir)), changed)
    api.ingest(repo_dir, config=config)
    assert selected("lib.calc.double") == {"tests.test_calc.test_double_by_name": "coverage"}
    changed["tests/test_calc.py"] = CALC_REPO["tests/test_calc.py"] + "\n\ndef test_more():\n    assert True\n"
    commit_files(Repo(str(repo_dir)), changed)
    api.ingest(repo_dir, config=config)
    assert selected("lib.calc.double")["tests.test_calc.test_double_by_name"] == "module name"


def test_a_report_without_contexts_or_not_from_coverage_is_refused_with_the_fix(tmp_path: Path):
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"files": {"lib/calc.py": {"executed_lines": [1, 2]}}}))
    with pytest.raises(CoverageReportError, match="dynamic_context = test_function"):
        read_report(plain)
    other = tmp_path / "other.json"
    other.write_text('{"tests": []}')
    with pytest.raises(CoverageReportError, match=r"not a coverage\.py JSON report"):
        read_report(other)
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps({"files": {"lib/calc.py": {"contexts": {"one": ["test_a"]}}}}))
    with pytest.raises(CoverageReportError, match="not line -> contexts"):
        read_report(odd)
    broken = tmp_path / "broken.json"
    broken.write_bytes(b"\xff\xfe{")
    with pytest.raises(CoverageReportError, match="not a JSON coverage report"):
        read_report(broken)


def test_cli_refuses_a_report_that_is_no_coverage_report(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    result = CliRunner().invoke(cli, ["coverage", str(bad), "--repo", str(tmp_path)])
    assert result.exit_code == 1 and "not a coverage.py JSON report" in result.output


def test_contexts_name_tests_in_coverages_and_pytest_covs_forms():
    tests = [
        IndexedTest("1", "Method", "tests.test_env.TestEnv.test_load", "tests/test_env.py"),
        IndexedTest("2", "Function", "tests.test_env.test_load", "tests/test_env.py"),
        IndexedTest("3", "Method", "tests.test_env.TestOther.test_load", "tests/test_env.py"),
        IndexedTest("4", "Function", "tests.unit.test_io.test_read", "tests/unit/test_io.py"),
    ]
    names = ContextNames(tests)

    def ids(context: str) -> list[str]:
        return sorted(t.id for t in names.of(context))

    assert ids("tests.test_env.TestEnv.test_load") == ["1"]
    assert ids("test_env.TestEnv.test_load") == ["1"]  # pytest's rootdir-relative module
    assert ids("src.tests.unit.test_io.test_read") == ["4"]  # a longer import path
    assert ids("tests/test_env.py::TestEnv::test_load[utf-8]|run") == ["1"]  # pytest-cov
    assert ids("tests/test_env.py::test_load|setup") == ["2"]
    # hypothesis's wrapper: every test of that module and name (the context is what they ran).
    assert ids("test_env.accept.<locals>.test_load") == ["1", "2", "3"]
    assert ids("tests.test_env.test_gone") == [] and ids("tests/test_io.py::test_read|run") == []


def test_a_line_belongs_to_the_innermost_function_holding_its_body():
    spans = Spans(
        [
            FunctionSpan("outer", "Function", 1, 10),
            FunctionSpan("inner", "Function", 3, 5),
            FunctionSpan("after", "Function", 12, 14),
        ]
    )
    assert spans.at(1) is None  # the `def` line runs at import
    assert spans.at(2).id == "outer" and spans.at(4).id == "inner" and spans.at(6).id == "outer"
    assert spans.at(3).id == "outer"  # inner's `def` line runs when outer does
    assert spans.at(11) is None and spans.at(13).id == "after"


def test_report_paths_are_read_as_repository_paths(tmp_path: Path):
    indexed = {"src/lib/calc.py", "tests/test_calc.py"}
    assert repo_path("src/lib/calc.py", tmp_path, indexed) == "src/lib/calc.py"
    assert repo_path(str(tmp_path / "src" / "lib" / "calc.py"), tmp_path, indexed) == "src/lib/calc.py"
    assert repo_path("lib/calc.py", tmp_path, indexed) == "src/lib/calc.py"  # run from src/
    assert repo_path("/elsewhere/site-packages/six.py", tmp_path, indexed) is None
