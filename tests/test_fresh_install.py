"""The whole first-use path as a newcomer meets it (issue 13): a fresh virtual environment,
`pip install` of this checkout, a PATH without java, javac or mvn, an empty HOME — then
`branchgraph ingest` of a small repository and `branchgraph context` must work. Downloads
are allowed (the Neo4j jars from Maven Central, into the empty HOME's cache)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.install


def test_a_fresh_install_ingests_and_answers_with_only_python_and_git(tmp_path: Path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(ROOT)], check=True, timeout=1200
    )
    # Only git and the environment's own scripts on the PATH: no java, javac or mvn to find.
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "git").symlink_to(shutil.which("git"))
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": f"{venv / 'bin'}:{tools}", "HOME": str(home), "LANG": "C.UTF-8"}
    for name in ("java", "javac", "mvn"):
        assert shutil.which(name, path=env["PATH"]) is None

    repo = tmp_path / "shop"
    (repo / "shop").mkdir(parents=True)
    (repo / "shop" / "payments.py").write_text(
        "def refund(payment, amount):\n"
        '    """Give part of a captured payment back to the customer."""\n'
        "    return payment.reverse(amount)\n"
    )
    (repo / "shop" / "orders.py").write_text(
        "from shop.payments import refund\n\n\ndef cancel(order):\n    return refund(order.payment, order.total)\n"
    )
    git = ["git", "-c", "user.name=newcomer", "-c", "user.email=newcomer@example.invalid"]
    for command in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-q", "-m", "shop"]):
        subprocess.run(git + command, cwd=repo, env=env, check=True)

    def branchgraph(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["branchgraph", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=900)

    try:
        ingested = branchgraph("ingest", "--json")
        assert ingested.returncode == 0, ingested.stderr
        summary = json.loads(ingested.stdout)
        assert summary["files"] == 2 and summary["embedder"].startswith("minilm-l6-static")
        answer = branchgraph("context", "how is a payment refunded", "--json")
        assert answer.returncode == 0, answer.stderr
        assert "shop.payments.refund" in [item["qualname"] for item in json.loads(answer.stdout)["items"]]
        assert (home / ".cache" / "branchgraph" / "neo4j").is_dir()  # the jars went to the user cache
    finally:
        branchgraph("services", "stop")
