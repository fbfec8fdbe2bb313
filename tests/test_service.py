"""Indexing as a service: a signed push through a real `serve` into real workers against
real Neo4j and PostgreSQL; replays, bad signatures and oversized payloads refused; two
workers and a worker killed mid-job converge on what a fresh ingest writes."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import hmac
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from gitrepo import commit_files, init_repo
from graph_view import snapshot, sql
from test_crash_recovery import generated_package

from branchgraph import api
from branchgraph.core.config import Config
from branchgraph.core.errors import ConfigError
from branchgraph.service.metrics import histogram_buckets
from branchgraph.service.webhooks import (
    DROP,
    IGNORE,
    INDEX,
    WebhookRefused,
    delivery_id,
    github_event,
    gitlab_event,
    remote_for,
    verify_github,
    verify_gitlab,
)

SECRET = "it's a secret to everybody"


def sign(body: bytes, secret: str = SECRET) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def push_payload(project: str, branch: str, after: str, commits: int = 1, deleted: bool = False) -> bytes:
    return json.dumps(
        {
            "ref": f"refs/heads/{branch}",
            "after": after,
            "deleted": deleted,
            "commits": [{"id": f"c{i}"} for i in range(commits)],
            "repository": {"full_name": project, "clone_url": f"https://github.com/{project}.git"},
        }
    ).encode()


# ----- webhooks, without services ------------------------------------------------------------


def test_a_github_signature_is_checked_in_constant_time_against_the_body():
    body = b'{"zen": "hi"}'
    verify_github(body, sign(body), SECRET)
    for signature, why in ((None, "unsigned"), ("sha1=abc", "unsigned"), (sign(body + b" "), "bad signature")):
        with pytest.raises(WebhookRefused, match=why) as refused:
            verify_github(body, signature, SECRET)
        assert refused.value.status == 401
    with pytest.raises(WebhookRefused, match="WEBHOOK_SECRET") as off:
        verify_github(body, sign(body), None)
    assert off.value.status == 503


def test_a_gitlab_token_must_match():
    verify_gitlab("tok", "tok")
    with pytest.raises(WebhookRefused, match="bad token"):
        verify_gitlab("tok2", "tok")
    with pytest.raises(WebhookRefused, match="unsigned"):
        verify_gitlab(None, "tok")
    with pytest.raises(WebhookRefused, match="no delivery id"):
        delivery_id("gitlab", None)


def test_github_events_become_index_drop_or_ignore():
    sha = "a" * 40
    push = github_event("push", push_payload("acme/shop", "feature/x", sha, commits=3))
    assert (push.action, push.project, push.branch, push.after_commit, push.commits) == (
        INDEX,
        "acme/shop",
        "feature/x",
        sha,
        3,
    )
    assert github_event("push", push_payload("acme/shop", "old", "0" * 40, deleted=True)).action == DROP
    tag = json.dumps({"ref": "refs/tags/v1", "after": sha, "repository": {"full_name": "acme/shop"}}).encode()
    assert github_event("push", tag).action == IGNORE
    deleted = json.dumps({"ref": "gone", "ref_type": "branch", "repository": {"full_name": "acme/shop"}}).encode()
    assert (github_event("delete", deleted).action, github_event("delete", deleted).branch) == (DROP, "gone")
    pr = {
        "action": "synchronize",
        "repository": {"full_name": "acme/shop"},
        "pull_request": {"head": {"ref": "fix", "sha": sha, "repo": {"full_name": "acme/shop"}}},
    }
    assert github_event("pull_request", json.dumps(pr).encode()).branch == "fix"
    pr["pull_request"]["head"]["repo"]["full_name"] = "someone/shop"
    assert "fork" in github_event("pull_request", json.dumps(pr).encode()).reason
    assert github_event("ping", b'{"zen": "x"}').action == IGNORE
    with pytest.raises(WebhookRefused, match="not JSON"):
        github_event("push", b"\xff not json")


def test_gitlab_events_become_index_drop_or_ignore():
    body = {
        "ref": "refs/heads/main",
        "after": "b" * 40,
        "total_commits_count": 2,
        "project": {"path_with_namespace": "group/sub/shop"},
    }
    event = gitlab_event("Push Hook", json.dumps(body).encode())
    assert (event.action, event.project, event.branch, event.commits) == (INDEX, "group/sub/shop", "main", 2)
    body["after"] = "0" * 40
    assert gitlab_event("Push Hook", json.dumps(body).encode()).action == DROP
    mr = {
        "project": {"path_with_namespace": "group/shop"},
        "object_attributes": {
            "action": "update",
            "source_branch": "mr",
            "source_project_id": 1,
            "target_project_id": 1,
        },
    }
    assert gitlab_event("Merge Request Hook", json.dumps(mr).encode()).branch == "mr"
    assert gitlab_event("Pipeline Hook", b"{}").action == IGNORE


def test_a_project_names_the_configured_remote_whatever_the_url_spelling():
    remotes = {"shop": "https://github.com/Acme/shop.git", "lib": "git@gitlab.com:group/sub/lib.git", "x": "/srv/x"}
    assert remote_for("acme/shop", remotes) == "shop"
    assert remote_for("group/sub/lib", remotes) == "lib"
    assert remote_for("srv/x", remotes) == "x"
    assert remote_for("acme/other", remotes) is None
    assert remote_for("", remotes) is None


def test_service_settings_come_from_the_environment_and_secrets_never_from_a_file(tmp_path: Path):
    config = Config.load(
        environ={"BRANCHGRAPH_REMOTES": "shop=https://x/acme/shop.git, lib=/srv/lib", "BRANCHGRAPH_RETENTION": "7d"}
    )
    assert config.remotes == {"shop": "https://x/acme/shop.git", "lib": "/srv/lib"}
    with pytest.raises(ConfigError, match="number and a unit"):
        Config.load(environ={"BRANCHGRAPH_RETENTION": "a week"})
    with pytest.raises(ConfigError, match="name=url"):
        Config.load(environ={"BRANCHGRAPH_REMOTES": "shop"})
    (tmp_path / "branchgraph.toml").write_text('webhook_secret = "oops"\n')
    with pytest.raises(ConfigError, match="BRANCHGRAPH_WEBHOOK_SECRET"):
        Config.load(tmp_path, environ={})
    (tmp_path / "service.toml").write_text('retention = "2w"\n[remotes]\nshop = "/srv/shop"\n')
    config = Config.load(environ={"BRANCHGRAPH_CONFIG": str(tmp_path / "service.toml")})
    assert (config.retention, config.remotes) == ("2w", {"shop": "/srv/shop"})


def test_histogram_buckets_are_cumulative():
    assert histogram_buckets([0.5, 3.0, 3.0, 100.0], (1.0, 5.0)) == [("1.0", 1.0), ("5.0", 3.0), ("+Inf", 4.0)]


# ----- a real serve, real workers, real stores -----------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    """`serve --workspace` and workers as subprocesses, with the environment a team sets."""

    def __init__(self, workspace: Path, env: dict[str, str]):
        self.workspace = workspace
        self.env = env
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.procs: list[subprocess.Popen] = []

    def _spawn(self, *args: str) -> subprocess.Popen:
        proc = subprocess.Popen(
            [sys.executable, "-m", "branchgraph", *args],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=open(self.workspace / f"log-{len(self.procs)}.txt", "wb"),  # noqa: SIM115 - the process owns it
            start_new_session=True,
        )
        self.procs.append(proc)
        return proc

    def serve(self) -> None:
        proc = self._spawn("serve", "--workspace", str(self.workspace), "--port", str(self.port))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert proc.poll() is None, self.logs()
            with contextlib.suppress(OSError):
                urllib.request.urlopen(self.base + "/openapi.json", timeout=2).read()
                return
            time.sleep(0.2)
        raise AssertionError("serve did not come up\n" + self.logs())

    def worker(self, *args: str) -> subprocess.Popen:
        return self._spawn(
            "worker", "--workspace", str(self.workspace), "--heartbeat", "0.5", "--stalled-after", "3", *args
        )

    def post(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict]:
        request = urllib.request.Request(self.base + path, data=body, method="POST", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")

    def oversized(self, path: str, length: int) -> int:
        """The status a body of ``length`` bytes gets, announced and never sent (the server
        answers at the headers, as it does to a git server sending one)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.putrequest("POST", path)
            conn.putheader("Content-Length", str(length))
            conn.putheader("X-GitHub-Event", "push")
            conn.endheaders()
            return conn.getresponse().status
        finally:
            conn.close()

    def push(self, project: str, branch: str, after: str, delivery: str | None = None, **kw) -> tuple[int, dict]:
        body = push_payload(project, branch, after, **kw)
        headers = {
            "X-GitHub-Event": "push",
            "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
            "X-Hub-Signature-256": sign(body),
            "Content-Type": "application/json",
        }
        return self.post("/v1/webhooks/github", body, headers)

    def get(self, path: str) -> str:
        with urllib.request.urlopen(self.base + path, timeout=30) as response:
            return response.read().decode()

    def status(self, repo: str) -> dict[str, dict]:
        try:
            return {b["branch"]: b for b in json.loads(self.get(f"/v1/status?repo={repo}"))["branches"]}
        except urllib.error.HTTPError:
            return {}

    def wait_indexed(self, repo: str, branch: str, commit: str, timeout: float = 240) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.status(repo).get(branch)
            if state and state["indexed_commit"] == commit and not state["pending_pushes"]:
                return state
            time.sleep(0.3)
        raise AssertionError(f"{repo}@{branch} was not indexed at {commit[:12]}\n{self.status(repo)}\n{self.logs()}")

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-3000:] for p in sorted(self.workspace.glob("log-*.txt")))

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture
def service(tmp_path: Path, repo_dir: Path, neo4j_uri: str, pg_url: str) -> Iterator[tuple[Service, Path]]:
    """A service whose one remote is a repository named like ``repo_dir`` (so the fixtures
    clean its nodes and rows up), served and indexed from a fresh workspace."""
    origin = tmp_path / "origin" / "acme" / repo_dir.name
    env = {
        **os.environ,
        "BRANCHGRAPH_NEO4J_URI": neo4j_uri,
        "BRANCHGRAPH_DATABASE_URL": pg_url,
        "BRANCHGRAPH_EMBEDDER": "hashing",
        "BRANCHGRAPH_REMOTES": f"{repo_dir.name}={origin}",
        "BRANCHGRAPH_WEBHOOK_SECRET": SECRET,
    }
    env.pop("BRANCHGRAPH_INDEX_DIR", None)
    svc = Service(tmp_path / "workspace", env)
    svc.workspace.mkdir()
    try:
        yield svc, origin
    finally:
        svc.stop()
        import psycopg

        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("DELETE FROM pushes WHERE repo = %s", (repo_dir.name,))
            if conn.execute("SELECT to_regclass('procrastinate_jobs')").fetchone()[0]:
                conn.execute(
                    "DELETE FROM procrastinate_events WHERE job_id IN "
                    "(SELECT id FROM procrastinate_jobs WHERE args->>'repo' = %s)",
                    (repo_dir.name,),
                )
                conn.execute("DELETE FROM procrastinate_jobs WHERE args->>'repo' = %s", (repo_dir.name,))


def assert_equals_fresh_ingest_of(mirror: Path, name: str, branch: str, config, graph_store, pg_store) -> None:
    state = next(s for s in api.status(mirror, config=config) if s.branch == branch)
    oracle = f"oracle-{uuid.uuid4().hex[:8]}"
    api.ingest(mirror, branch=oracle, rev=state.indexed_commit, full=True, name=name, config=config)
    try:
        got, expected = snapshot(graph_store, pg_store, name, branch), snapshot(graph_store, pg_store, name, oracle)
        assert got["nodes"] == expected["nodes"]
        assert got["edges"] == expected["edges"]
        assert got["vectors"] == expected["vectors"]
    finally:
        graph_store.delete_branch(name, oracle)
        pg_store.delete_branch(name, oracle)


@pytest.mark.neo4j
@pytest.mark.postgres
def test_a_signed_push_reaches_a_worker_and_is_indexed(service, repo_dir: Path, config, graph_store, pg_store):
    svc, origin = service
    name = repo_dir.name
    project = f"acme/{name}"
    repo = init_repo(origin)
    first = commit_files(repo, {"app/core.py": "def helper():\n    return 1\n", "app/__init__.py": ""})
    svc.serve()

    # Refused before anything is queued: unsigned, badly signed, oversized, unknown project.
    body = push_payload(project, "main", first)
    assert svc.post("/v1/webhooks/github", body, {"X-GitHub-Event": "push", "X-GitHub-Delivery": "d0"})[0] == 401
    bad = {"X-GitHub-Event": "push", "X-GitHub-Delivery": "d1", "X-Hub-Signature-256": sign(body, "wrong")}
    assert svc.post("/v1/webhooks/github", body, bad)[0] == 401
    assert svc.oversized("/v1/webhooks/github", 6 * 1024 * 1024) == 413
    assert svc.push("acme/elsewhere", "main", first)[0] == 404
    assert sql(pg_store, "SELECT count(*) FROM pushes WHERE repo = %s", (name,)) == [(0,)]

    code, answer = svc.push(project, "main", first, delivery="first-push")
    assert code == 202, answer
    assert answer["job"]["task"] == "branchgraph.index_branch"
    assert svc.push(project, "main", first, delivery="first-push")[0] == 409  # a replay
    # A second push while the first waits merges into the waiting job.
    second = commit_files(repo, {"app/core.py": "def helper():\n    return 2\n", "app/__init__.py": ""})
    code, answer = svc.push(project, "main", second)
    assert (code, answer["job"]["job_id"]) == (202, None), answer

    first_worker = svc.worker()
    state = svc.wait_indexed(name, "main", second)
    assert state["indexed_after_push_s"] is not None and state["indexed_after_push_s"] > 0
    mirror = svc.workspace / "mirrors" / f"{name}.git"
    assert_equals_fresh_ingest_of(mirror, name, "main", config, graph_store, pg_store)

    metrics = svc.get("/metrics")
    assert "branchgraph_push_to_indexed_seconds_gcount" in metrics
    assert f'branchgraph_branch_nodes{{branch="main",repo="{name}"}}' in metrics
    assert f'branchgraph_branch_pending_commits{{branch="main",repo="{name}"}} 0.0' in metrics
    assert "branchgraph_queue_depth" in metrics

    # A branch pushed, then deleted on the server: indexed, then dropped.
    feature = commit_files(repo, {"app/core.py": "def helper():\n    return 3\n"}, branch="feature")
    assert svc.push(project, "feature", feature)[0] == 202
    svc.wait_indexed(name, "feature", feature)
    repo.refs.remove_if_equals(b"refs/heads/feature", None)
    assert svc.push(project, "feature", "0" * 40, deleted=True)[0] == 202
    deadline = time.monotonic() + 120
    while "feature" in svc.status(name) and time.monotonic() < deadline:
        time.sleep(0.3)
    assert "feature" not in svc.status(name), svc.logs()
    assert graph_store.branch_file_counts(name).get("feature", 0) == 0

    # A branch no webhook announced and no worker indexed: the server fetches it, answers from
    # main overlaid with its changes, and queues its ingest; a worker then indexes it.
    os.killpg(first_worker.pid, signal.SIGTERM)
    first_worker.wait(timeout=60)
    quick = commit_files(
        repo, {"app/core.py": "def helper():\n    return 2\n\n\ndef quick_win():\n    return 42\n"}, branch="quick"
    )
    body = json.dumps({"query": "quick win", "repo": name, "branch": "quick"}).encode()
    code, answer = svc.post("/v1/context", body, {"Content-Type": "application/json"})
    assert code == 200, answer
    assert any(i["qualname"] == "app.core.quick_win" and i["overlay"] for i in answer["items"]), answer
    assert any("its ingest is queued" in w for w in answer["warnings"]), answer["warnings"]
    svc.worker()
    svc.wait_indexed(name, "quick", quick)


@pytest.mark.neo4j
@pytest.mark.postgres
def test_a_worker_killed_mid_job_is_replaced_and_two_workers_converge(
    service, repo_dir: Path, config, graph_store, pg_store
):
    svc, origin = service
    name = repo_dir.name
    project = f"acme/{name}"
    repo = init_repo(origin)
    head = commit_files(repo, generated_package(name, 250, 0))
    svc.serve()
    victim = svc.worker("--name", "victim")
    assert svc.push(project, "main", head)[0] == 202

    # Kill the worker once its ingest is writing (a run is open), not before.
    deadline = time.monotonic() + 180
    while not sql(pg_store, "SELECT 1 FROM ingest_runs WHERE repo = %s", (name,)):
        assert time.monotonic() < deadline and victim.poll() is None, svc.logs()
        time.sleep(0.05)
    os.killpg(victim.pid, signal.SIGKILL)
    victim.wait(timeout=30)
    assert api.status(svc.workspace / "mirrors" / f"{name}.git", config=config)[0].indexed_commit == ""

    # Two workers: one takes the requeued job; a push meanwhile goes to either, never both at once.
    svc.worker("--name", "one")
    svc.worker("--name", "two")
    svc.wait_indexed(name, "main", head)
    update = commit_files(repo, generated_package(name, 240, 1))
    assert svc.push(project, "main", update)[0] == 202
    svc.wait_indexed(name, "main", update)
    mirror = svc.workspace / "mirrors" / f"{name}.git"
    assert_equals_fresh_ingest_of(mirror, name, "main", config, graph_store, pg_store)
    runs = sql(
        pg_store,
        "SELECT count(*) FILTER (WHERE e.type = 'started'), count(*) FILTER (WHERE e.type = 'succeeded') "
        "FROM procrastinate_events e JOIN procrastinate_jobs j ON j.id = e.job_id WHERE j.args->>'repo' = %s",
        (name,),
    )
    started, succeeded = runs[0]
    assert succeeded == 2 and started == 3, runs  # the killed run, its retry, the update
    # Two workers never ran jobs of one branch at once: each run ends before the next starts.
    events = sql(
        pg_store,
        "SELECT e.type::text, e.at FROM procrastinate_events e JOIN procrastinate_jobs j ON j.id = e.job_id "
        "WHERE j.args->>'repo' = %s AND e.type IN ('started', 'succeeded', 'failed', 'deferred_for_retry') "
        "ORDER BY e.at, e.id",
        (name,),
    )
    running = 0  # the killed run ends when it is handed back (deferred_for_retry)
    for kind, _ in events:
        running += 1 if kind == "started" else -1
        assert 0 <= running <= 1, events


@pytest.mark.neo4j
@pytest.mark.postgres
def test_retention_drops_stale_and_deleted_branches_and_keeps_the_default_one(
    tmp_path: Path, repo_dir: Path, config, graph_store, pg_store
):
    from branchgraph.service.jobs import Worker

    name = repo_dir.name
    origin = tmp_path / "origin" / name
    repo = init_repo(origin)
    commit_files(repo, {"app.py": "def main():\n    return 1\n"})
    for branch in ("stale", "fresh", "gone"):
        commit_files(repo, {"app.py": f"def main():\n    return '{branch}'\n"}, branch=branch)
    workspace = tmp_path / "workspace"
    service = dataclasses.replace(config, workspace_dir=workspace, remotes={name: str(origin)}, retention="7d")
    with api.Indexer(service, workspace) as indexer:
        worker = Worker(service, indexer)
        for branch in ("main", "stale", "fresh", "gone"):
            worker.index(name, branch)
        sql(
            pg_store,
            "UPDATE branches SET indexed_at = now() - interval '30 days' WHERE repo = %s AND branch IN ('main', 'stale')",
            (name,),
        )
        repo.refs.remove_if_equals(b"refs/heads/gone", None)
        worker.retention()
    assert sorted(r.branch for r in pg_store.branches(name)) == ["fresh", "main"]
    assert sorted(graph_store.branch_file_counts(name)) == ["fresh", "main"]


# ----- mirrors and retries, without the graph ----------------------------------------------


@contextlib.contextmanager
def git_http_server(repo_path: Path, user: str, password: str) -> Iterator[str]:
    """A smart-HTTP git server (dulwich.web) that wants basic auth, on loopback."""
    import base64
    import threading
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    from dulwich.repo import Repo
    from dulwich.server import DictBackend
    from dulwich.web import make_wsgi_chain

    app = make_wsgi_chain(DictBackend({"/": Repo(str(repo_path))}))
    wanted = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

    def guarded(environ, start_response):
        if environ.get("HTTP_AUTHORIZATION") != wanted:
            start_response("401 Unauthorized", [("WWW-Authenticate", 'Basic realm="git"')])
            return [b"no"]
        return app(environ, start_response)

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    server = make_server("127.0.0.1", 0, guarded, handler_class=Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()


def test_a_mirror_fetches_with_credentials_from_the_environment_and_never_shows_them(tmp_path: Path, monkeypatch):
    from branchgraph.core.errors import GitError
    from branchgraph.service.mirrors import fetch_mirror

    origin = tmp_path / "origin"
    repo = init_repo(origin)
    main = commit_files(repo, {"a.py": "x = 1\n"})
    topic = commit_files(repo, {"a.py": "x = 2\n"}, branch="topic")
    with git_http_server(origin, "ci", "s3cret-token") as url:
        monkeypatch.setenv("BRANCHGRAPH_GIT_USERNAME", "ci")
        monkeypatch.setenv("BRANCHGRAPH_GIT_PASSWORD", "wrong-token")
        with pytest.raises(GitError) as refused:
            fetch_mirror(url, tmp_path / "mirror.git")
        assert "wrong-token" not in str(refused.value)
        monkeypatch.setenv("BRANCHGRAPH_GIT_PASSWORD", "s3cret-token")
        fetched = fetch_mirror(url, tmp_path / "mirror.git")
        assert fetched.heads == {"main": main, "topic": topic}
        # A branch deleted on the remote leaves the mirror at the next fetch.
        repo.refs.remove_if_equals(b"refs/heads/topic", None)
        assert fetch_mirror(url, tmp_path / "mirror.git").heads == {"main": main}
    from dulwich.repo import Repo

    assert b"refs/heads/topic" not in Repo(str(tmp_path / "mirror.git")).refs.allkeys()


def test_failed_jobs_back_off_exponentially_and_a_configuration_error_is_not_retried():
    from types import SimpleNamespace

    from branchgraph.core.errors import StoreUnavailable
    from branchgraph.service.jobs import MAX_ATTEMPTS, _Backoff

    backoff = _Backoff()
    decisions = [
        backoff.get_retry_decision(exception=StoreUnavailable("down"), job=SimpleNamespace(attempts=n))
        for n in range(MAX_ATTEMPTS)
    ]
    now = datetime.now(UTC)
    waits = [round((d.retry_at - now).total_seconds()) for d in decisions[:-1]]
    assert waits == [2, 4, 8, 16, 32]
    assert decisions[-1] is None  # the last attempt failed for good
    assert backoff.get_retry_decision(exception=ConfigError("no remote"), job=SimpleNamespace(attempts=0)) is None


@pytest.mark.neo4j
@pytest.mark.postgres
def test_metrics_share_the_managed_graph_store_out_by_branch(shop_repo: Path, config, pg_store, tmp_path: Path):
    from prometheus_client import generate_latest

    from branchgraph.service.metrics import registry

    api.ingest(shop_repo, config=config)
    (tmp_path / "data" / "databases").mkdir(parents=True)
    (tmp_path / "data" / "databases" / "store").write_bytes(b"x" * 100_000)
    text = generate_latest(registry(pg_store, None, graph_dir=tmp_path)).decode()
    shares = {
        line.split("{")[1].split("}")[0]: float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("branchgraph_branch_graph_bytes_estimated{")
    }
    assert abs(sum(shares.values()) - 100_000) < 1  # every branch of the store shares it
    mine = shares[f'branch="main",repo="{shop_repo.name}"']
    record = pg_store.branch_record(shop_repo.name, "main")
    rows = sum(record.counts["nodes"].values()) + sum(record.counts["edges"].values())
    everyone = sum(
        sum(r.counts.get("nodes", {}).values()) + sum(r.counts.get("edges", {}).values()) for r in pg_store.branches()
    )
    assert abs(mine - 100_000 * rows / everyone) < 1
    assert f'branchgraph_branch_postgresql_bytes{{branch="main",repo="{shop_repo.name}"}}' in text


@pytest.mark.neo4j
@pytest.mark.postgres
def test_the_retention_job_runs_on_a_worker_and_forgets_old_finished_jobs(
    tmp_path: Path, repo_dir: Path, config, pg_store
):
    from branchgraph.service.jobs import RETENTION_TASK, Queue, WorkerOptions, run_worker

    name = repo_dir.name
    origin = tmp_path / "origin" / name
    commit_files(init_repo(origin), {"app.py": "def main():\n    return 1\n"})
    service = dataclasses.replace(config, workspace_dir=tmp_path / "workspace", remotes={name: str(origin)})
    queue = Queue(str(config.database_url))
    try:
        old = queue.enqueue_index(name, "main").job_id
        run_worker(service, WorkerOptions(until_idle=True))  # indexes main
        sql(pg_store, "UPDATE procrastinate_events SET at = now() - interval '30 days' WHERE job_id = %s", (old,))
        queue.app.configure_task(RETENTION_TASK, queue="branchgraph").defer(timestamp=0)
        run_worker(service, WorkerOptions(until_idle=True))
        assert sql(pg_store, "SELECT count(*) FROM procrastinate_jobs WHERE id = %s", (old,)) == [(0,)]
        assert [r.branch for r in pg_store.branches(name)] == ["main"]  # the default branch is kept
        retention = sql(
            pg_store,
            "SELECT status::text FROM procrastinate_jobs WHERE task_name = %s ORDER BY id DESC LIMIT 1",
            (RETENTION_TASK,),
        )
        assert retention == [("succeeded",)]
    finally:
        queue.close()
