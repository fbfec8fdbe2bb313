"""The branchgraph command: help everywhere, JSON documents, exit codes, clear errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from expected_shop import FILES

from branchgraph.cli import cli

README = Path(__file__).parent.parent / "README.md"


def all_commands(group: click.Group, prefix: str = ""):
    for name, command in group.commands.items():
        yield f"{prefix}{name}", command
        if isinstance(command, click.Group):
            yield from all_commands(command, f"{prefix}{name} ")


def test_every_command_has_help_and_is_documented():
    readme = README.read_text()
    for name, command in all_commands(cli):
        assert command.help and command.get_short_help_str(), f"{name} has no help text"
        result = CliRunner().invoke(cli, [*name.split(), "--help"])
        assert result.exit_code == 0, result.output
        assert f"branchgraph {name}" in readme, f"README does not document `branchgraph {name}`"


def test_help_examples_paste_into_a_shell_as_they_are():
    import re
    import shlex

    for name, command in all_commands(cli):
        for line in (command.help or "").splitlines():
            if "branchgraph " not in line:
                continue
            example = line[line.index("branchgraph ") :]
            # A `$` inside double quotes is expanded by the shell before branchgraph sees it.
            for quoted in re.findall(r'"[^"]*"', example):
                assert "$" not in quoted, f"`branchgraph {name} --help` example expands in a shell: {example}"
            assert shlex.split(example)[0] == "branchgraph"


def test_an_empty_repository_says_it_has_no_commits(repo_dir: Path, service_env):
    from gitrepo import init_repo

    init_repo(repo_dir)
    result = CliRunner().invoke(cli, ["ingest", str(repo_dir)], env=service_env)
    assert result.exit_code == 1 and "has no commits yet" in result.output, result.output


def test_context_on_a_branch_git_does_not_have_says_so(shop_repo: Path, service_env):
    env = service_env
    assert CliRunner().invoke(cli, ["ingest", str(shop_repo)], env=env).exit_code == 0
    result = CliRunner().invoke(cli, ["context", "refund", "--repo", str(shop_repo), "--branch", "nope"], env=env)
    assert result.exit_code == 1 and "has no branch 'nope'" in result.output
    assert "run `branchgraph ingest" not in result.output  # an ingest of it would fail too


def test_usage_errors_exit_2(tmp_path: Path):
    assert CliRunner().invoke(cli, ["cypher"]).exit_code == 2
    assert CliRunner().invoke(cli, ["ingest", str(tmp_path), "--rev", "HEAD"]).exit_code == 2
    assert CliRunner().invoke(cli, ["nosuchcommand"]).exit_code == 2


def test_not_a_repository_exits_1(tmp_path: Path):
    result = CliRunner().invoke(cli, ["ingest", str(tmp_path)], env={"BRANCHGRAPH_NEO4J_URI": "bolt://127.0.0.1:1"})
    assert result.exit_code == 1
    assert "not a git repository" in result.output


def test_unreachable_neo4j_is_a_clear_failure(shop_repo: Path):
    result = CliRunner().invoke(cli, ["ingest", str(shop_repo)], env={"BRANCHGRAPH_NEO4J_URI": "bolt://127.0.0.1:1"})
    assert result.exit_code == 1
    assert "cannot reach Neo4j at bolt://127.0.0.1:1" in result.output
    assert "Traceback" not in result.output


@pytest.fixture
def service_env(neo4j_uri: str, pg_url: str) -> dict[str, str]:
    return {"BRANCHGRAPH_NEO4J_URI": neo4j_uri, "BRANCHGRAPH_DATABASE_URL": pg_url, "BRANCHGRAPH_EMBEDDER": "hashing"}


@pytest.mark.neo4j
@pytest.mark.postgres
def test_ingest_status_cypher_end_to_end(shop_repo: Path, service_env):
    runner = CliRunner()
    result = runner.invoke(cli, ["ingest", str(shop_repo), "--json"], env=service_env)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert {
        "repo",
        "branch",
        "commit",
        "files",
        "skipped",
        "nodes",
        "edges",
        "dangling",
        "unresolved_rate",
        "seconds",
    } <= set(summary)
    assert (summary["repo"], summary["branch"], summary["files"]) == (shop_repo.name, "main", len(FILES))

    human = runner.invoke(cli, ["ingest", str(shop_repo)], env=service_env)
    assert human.exit_code == 0 and f"Indexed {shop_repo.name}@main" in human.output

    status = runner.invoke(cli, ["status", str(shop_repo), "--json"], env=service_env)
    assert status.exit_code == 0, status.output
    (state,) = json.loads(status.output)
    assert (state["branch"], state["indexed_commit"], state["behind_commits"]) == ("main", summary["commit"], 0)
    assert "up to date" in runner.invoke(cli, ["status", str(shop_repo)], env=service_env).output

    rows = runner.invoke(
        cli,
        [
            "cypher",
            "MATCH (f:Function {repo: $repo, name: $name}) RETURN f.qualname AS q",
            "--param",
            f"repo={shop_repo.name}",
            "--param",
            "name=rate",
            "--json",
        ],
        env=service_env,
    )
    assert rows.exit_code == 0, rows.output
    assert json.loads(rows.output) == [{"q": "shop.billing.tax.rate"}]

    refused = runner.invoke(
        cli, ["cypher", "MATCH (n {repo: $r}) DETACH DELETE n", "--param", f"r={shop_repo.name}"], env=service_env
    )
    assert refused.exit_code == 1
    assert "refused" in refused.output
    still = runner.invoke(
        cli,
        ["cypher", "MATCH (n {repo: $r}) RETURN count(n) AS n", "--param", f"r={shop_repo.name}", "--json"],
        env=service_env,
    )
    assert json.loads(still.output)[0]["n"] > 0


@pytest.mark.neo4j
@pytest.mark.postgres
def test_installed_command_runs_as_a_process(shop_repo: Path, service_env):
    exe = shutil.which("branchgraph", path=str(Path(sys.executable).parent)) or shutil.which("branchgraph")
    assert exe, "the branchgraph console script is not installed"
    proc = subprocess.run(
        [exe, "ingest", str(shop_repo), "--json"],
        env={**os.environ, **service_env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["files"] == len(FILES)


@pytest.mark.neo4j
def test_unreachable_postgres_is_a_clear_failure(shop_repo: Path, neo4j_uri: str):
    env = {"BRANCHGRAPH_NEO4J_URI": neo4j_uri, "BRANCHGRAPH_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"}
    result = CliRunner().invoke(cli, ["ingest", str(shop_repo)], env=env)
    assert result.exit_code == 1
    assert "cannot reach PostgreSQL (postgresql://nobody@127.0.0.1:1/none)" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("setting", "value", "args", "says"),
    [
        ("BRANCHGRAPH_DATABASE_URL", "not a url", ["status"], "BRANCHGRAPH_DATABASE_URL is not a PostgreSQL URL"),
        ("BRANCHGRAPH_INDEX_DIR", "/proc/branchgraph-cannot-be-here", ["status"], "set BRANCHGRAPH_INDEX_DIR"),
        ("BRANCHGRAPH_NEO4J_URI", "http://127.0.0.1:7474", ["cypher", "RETURN 1"], "must be a Bolt URI"),
    ],
)
def test_a_bad_setting_is_one_line_and_exit_1_not_a_traceback(tmp_path, monkeypatch, setting, value, args, says):
    from gitrepo import commit_files, init_repo

    commit_files(init_repo(tmp_path / "r"), {"m.py": "x = 1\n"})
    monkeypatch.chdir(tmp_path / "r")
    for name in ("BRANCHGRAPH_DATABASE_URL", "BRANCHGRAPH_INDEX_DIR", "BRANCHGRAPH_NEO4J_URI"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(setting, value)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    assert says in result.output and "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)


def test_doctor_checks_every_part_and_names_the_fix(shop_repo: Path, service_env):
    ok = CliRunner().invoke(cli, ["doctor", str(shop_repo), "--json"], env=service_env)
    checks = {c["name"]: c for c in json.loads(ok.output)}
    assert ok.exit_code == 0, ok.output
    assert list(checks) == ["python", "repository", "index directory", "java", "neo4j", "postgresql", "embedder"]
    assert all(c["ok"] for c in checks.values()) and "Neo4j/5" in checks["neo4j"]["detail"]
    broken = {**service_env, "BRANCHGRAPH_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"}
    failed = CliRunner().invoke(cli, ["doctor", str(shop_repo)], env=broken)
    assert failed.exit_code == 1
    assert "FAIL postgresql" in failed.output and "fix: unset BRANCHGRAPH_DATABASE_URL" in failed.output
