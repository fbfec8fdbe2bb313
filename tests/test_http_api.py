"""The HTTP JSON API served by a real uvicorn on a free loopback port, over real stores."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import uvicorn
from conftest import FIXTURES
from gitrepo import read_tree

from branchgraph import api
from branchgraph.core.errors import BranchgraphError
from branchgraph.http_api import create_app, serve

pytestmark = [pytest.mark.neo4j, pytest.mark.postgres]

QUESTION = "where is refund implemented"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    def __init__(self, app):
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Served:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def call(self, method: str, path: str, body=None, headers=None, raw: bytes | None = None) -> tuple[int, dict]:
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method)
        request.add_header("Content-Type", "application/json")
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def chunked(self, path: str, data: bytes, headers: dict[str, str]) -> tuple[int, dict]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            pieces = (data[i : i + 1024] for i in range(0, len(data), 1024))
            connection.request(
                "POST", path, body=pieces, headers={"Content-Type": "application/json", **headers}, encode_chunked=True
            )
            response = connection.getresponse()
            return response.status, json.loads(response.read() or b"{}")
        finally:
            connection.close()


@pytest.fixture
def workspace(shop_repo: Path, config):
    for path, data in read_tree(FIXTURES / "shop").items():  # a checked-out working tree
        (shop_repo / path).parent.mkdir(parents=True, exist_ok=True)
        (shop_repo / path).write_bytes(data)
    api.ingest(shop_repo, config=config)
    with api.Workspace(shop_repo, config=config) as ws:
        yield ws


def test_context_search_symbol_status_and_openapi(workspace):
    with Served(create_app(workspace)) as http:
        status, document = http.call("POST", "/v1/context", {"query": QUESTION, "entries": 1, "budget_tokens": 2000})
        assert status == 200 and document["branch"] == "main" and document["tokens"] <= 2000
        refund = document["items"][0]
        assert refund["qualname"] == "shop.payments.Payment.refund" and "add_line" in refund["text"]

        status, found = http.call("POST", "/v1/search", {"query": "format money", "k": 3})
        assert status == 200 and found["hits"][0]["qualname"] == "shop.core.money.format_money"

        status, symbol = http.call("GET", f"/v1/symbols/{refund['id']}")
        assert status == 200 and symbol["text"].lstrip().startswith("def refund") and not symbol["stale"]

        status, states = http.call("GET", "/v1/status")
        assert status == 200 and [b["branch"] for b in states["branches"]] == ["main"]

        status, schema = http.call("GET", "/openapi.json")
        assert status == 200 and {"/v1/context", "/v1/search", "/v1/symbols/{node_id}", "/v1/status"} <= set(
            schema["paths"]
        )

        assert http.call("POST", "/v1/context", {"query": QUESTION, "branch": "nope"})[0] == 404
        assert http.call("POST", "/v1/context", {"query": ""})[0] == 422
        assert http.call("GET", "/v1/symbols/0000")[0] == 404


def test_no_request_reads_outside_an_indexed_repository(workspace, tmp_path, neo4j_uri):
    secret = tmp_path / "secret.py"
    secret.write_text("def leaked():\n    return 'password'\n")
    with Served(create_app(workspace)) as http:
        for repo in ("/etc", "../../etc", str(tmp_path), str(workspace.root / ".." / "..")):
            status, body = http.call("POST", "/v1/context", {"query": "password", "repo": repo})
            assert status == 404 and "not an indexed repository" in body["error"], repo
            assert workspace.root.name not in body["error"].replace(repo, ""), "a 404 must not list repositories"
        assert http.call("GET", "/v1/symbols/..%2F..%2Fetc%2Fpasswd")[0] == 404
        assert http.call("GET", "/v1/status?repo=/etc")[0] == 404

        # Even a poisoned graph (a node whose path climbs out of the repository) is not read.
        from neo4j import GraphDatabase

        escape = "../" * 12 + str(secret).lstrip("/")
        with GraphDatabase.driver(neo4j_uri) as driver:
            driver.execute_query(
                "CREATE (:Function {id: 'poisoned', repo: $repo, branch: 'main', path: $path, qualname: 'leaked', "
                "name: 'leaked', start_line: 1, end_line: 2})",
                repo=workspace.root.name,
                path=escape,
            )
            try:
                status, body = http.call("GET", "/v1/symbols/poisoned")
            finally:
                driver.execute_query("MATCH (n:Function {id: 'poisoned'}) DELETE n")
        # One bad path costs that item's text, with a warning, not the answer (issue 16, item 5).
        assert status == 200 and body["text"] is None and "refusing to read" in body["warnings"][0]
        assert "password" not in json.dumps(body)


def test_a_token_is_required_when_configured_and_bodies_are_capped(workspace):
    with Served(create_app(workspace, token="s3cret", max_body_bytes=4096)) as http:
        assert http.call("GET", "/v1/status")[0] == 401
        assert http.call("GET", "/v1/status", headers={"Authorization": "Bearer wrong"})[0] == 401
        assert http.call("GET", "/openapi.json")[0] == 401
        ok, _ = http.call("GET", "/v1/status", headers={"Authorization": "Bearer s3cret"})
        assert ok == 200
        big = json.dumps({"query": "x" * 10_000}).encode()
        status, body = http.call("POST", "/v1/context", raw=big, headers={"Authorization": "Bearer s3cret"})
        assert status == 413 and "over 4096 bytes" in body["error"]
        # A chunked body has no Content-Length: it is counted as it arrives.
        assert http.chunked("/v1/context", big, {"Authorization": "Bearer s3cret"})[0] == 413
        small = json.dumps({"query": "refund", "entries": 1}).encode()
        status, document = http.chunked("/v1/context", small, {"Authorization": "Bearer s3cret"})
        assert status == 200 and document["items"]


def test_serving_beyond_loopback_needs_a_token(workspace):
    with pytest.raises(BranchgraphError, match="without a bearer token"):
        serve(workspace, "0.0.0.0", free_port(), None)


def test_impact_over_http_as_json_and_as_a_pr_comment(workspace):
    with Served(create_app(workspace)) as http:
        status, body = http.call("POST", "/v1/impact", {"symbols": ["shop.core.money.format_money"]})
        assert status == 200 and body["risk"] in ("medium", "high")
        assert "shop.payments.Payment.refund" in {i["qualname"] for i in body["impacted"]}
        status, body = http.call("POST", "/v1/impact", {"symbols": ["shop.core.money.format_money"], "format": "md"})
        assert status == 200 and body["markdown"].startswith("### branchgraph impact")
        assert http.call("POST", "/v1/impact", {"symbols": ["no.such.symbol"]})[0] == 404
        assert http.call("POST", "/v1/impact", {"symbols": ["x"], "depth": 9})[0] == 422


def test_check_over_http(workspace):
    with Served(create_app(workspace)) as http:
        status, body = http.call("POST", "/v1/check", {"files": ["src/shop/billing/invoice.py"]})
        assert status == 200 and body["ok"] is False  # `self.exporter.send` and `self.validate` dangle
        assert {f["raw"] for f in body["findings"]} >= {"self.exporter.send"}
        assert http.call("POST", "/v1/check", {})[0] == 400


def test_diff_over_http_of_a_branch_with_itself_is_empty(workspace):
    with Served(create_app(workspace)) as http:
        status, body = http.call("POST", "/v1/diff", {"base": "main", "head": "main"})
        assert status == 200 and body["files"] == {"added": [], "removed": [], "modified": []}
        assert http.call("POST", "/v1/diff", {"base": "main", "head": "nope"})[0] == 404


def test_context_on_a_branch_not_indexed_and_compared_with_main_over_http(workspace, shop_repo: Path):
    from dulwich.repo import Repo
    from gitrepo import commit_files

    files = read_tree(FIXTURES / "shop")
    files["src/shop/payments.py"] = files["src/shop/payments.py"].replace(
        b"invoice.add_line(-self.amount)", b"invoice.add_line(-abs(self.amount))"
    )
    repo = Repo(str(shop_repo))
    commit_files(repo, files, branch="fix", parents=[repo.refs[b"refs/heads/main"]])
    with Served(create_app(workspace)) as http:
        status, document = http.call("POST", "/v1/context", {"query": QUESTION, "branch": "fix", "entries": 1})
        assert status == 200 and document["branch"] == "fix"
        refund = next(i for i in document["items"] if i["qualname"] == "shop.payments.Payment.refund")
        assert refund["overlay"] and "abs(self.amount)" in refund["text"]
        assert any("fix is not indexed yet" in w for w in document["warnings"])

        status, compared = http.call("POST", "/v1/context", {"query": QUESTION, "branch": "fix", "compare": "main"})
        assert status == 200 and compared["head"]["branch"] == "fix" and compared["base"]["branch"] == "main"
        refund = next(i for i in compared["items"] if i["qualname"] == "shop.payments.Payment.refund")
        assert refund["status"] == "changed" and "abs(" not in refund["base"]["text"]
        assert http.call("POST", "/v1/context", {"query": QUESTION, "compare": "nope"})[0] == 404
