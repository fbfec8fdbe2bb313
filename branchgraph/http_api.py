"""The HTTP JSON API: a thin FastAPI adapter over ``api.Workspace`` (OpenAPI at
``/openapi.json``, browsable at ``/docs``).

Safety: it binds 127.0.0.1 unless told otherwise, and any other address needs a bearer token
(``serve`` refuses to start without one). Request bodies are capped; string fields are
bounded; repositories are looked up among the indexed ones, never opened by a path a client
sends, and file reads stay inside the repository root (``retrieval/source.py``).
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from branchgraph import BranchgraphError, NotIndexed, StoreUnavailable, WebhookRefused
from branchgraph.api import (
    DEFAULT_BUDGET_TOKENS,
    DEFAULT_ENTRIES,
    IMPACT_MAX_DEPTH,
    MAX_BUDGET_TOKENS,
    MAX_ENTRIES,
    MAX_K,
    Workspace,
    to_markdown,
    to_mermaid,
)
from branchgraph.service.intake import Intake
from branchgraph.service.metrics import registry

MAX_BODY_BYTES = 64 * 1024
# Push payloads list their commits; GitHub caps a payload at 25 MB, and a push of a few
# thousand commits stays well under this.
MAX_WEBHOOK_BYTES = 5 * 1024 * 1024
WEBHOOK_PREFIX = "/v1/webhooks/"
MAX_QUERY_CHARS = 2000
TOKEN_ENV = "BRANCHGRAPH_API_TOKEN"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class ContextRequest(BaseModel):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="The question, in words or identifiers.")
    repo: str | None = Field(
        None, max_length=4096, description="Indexed repository, by name or path (default: the server's)."
    )
    branch: str | None = Field(
        None, max_length=255, description="Branch (default: the repository's checked-out branch)."
    )
    budget_tokens: int = Field(
        DEFAULT_BUDGET_TOKENS, ge=1, le=MAX_BUDGET_TOKENS, description="Token budget (4 characters a token)."
    )
    entries: int = Field(DEFAULT_ENTRIES, ge=1, le=MAX_ENTRIES, description="How many entry symbols to expand from.")
    compare: str | None = Field(
        None,
        max_length=255,
        description="A second branch (BASE): each item beside its BASE version where they differ, "
        "and what only one side has.",
    )


class ImpactRequest(BaseModel):
    repo: str | None = Field(None, max_length=4096, description="Indexed repository (default: the server's).")
    branch: str | None = Field(None, max_length=255)
    symbols: list[str] | None = Field(None, max_length=200, description="Changed symbols by qualified name.")
    diff: str | None = Field(None, max_length=255, description="A..B, A...B or one commit.")
    depth: int = Field(3, ge=1, le=IMPACT_MAX_DEPTH)
    format: str = Field("json", pattern="^(json|md|mermaid)$")


class CheckRequest(BaseModel):
    repo: str | None = Field(None, max_length=4096)
    branch: str | None = Field(None, max_length=255)
    diff: str | None = Field(None, max_length=255, description="Check the new and changed lines of this range.")
    files: list[str] | None = Field(None, max_length=500, description="Or check these files as indexed.")


class DiffRequest(BaseModel):
    repo: str | None = Field(None, max_length=4096)
    base: str = Field(max_length=255, description="Indexed base branch.")
    head: str = Field(max_length=255, description="Indexed head branch.")


class SearchRequest(BaseModel):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    repo: str | None = Field(None, max_length=4096)
    branch: str | None = Field(None, max_length=255)
    k: int = Field(10, ge=1, le=MAX_K)


def create_app(
    workspace: Workspace,
    token: str | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    intake: Intake | None = None,
    max_webhook_bytes: int = MAX_WEBHOOK_BYTES,
) -> FastAPI:
    """The API over ``workspace``; with ``intake``, also the git servers' webhooks (they
    authenticate by signature or token, not by the bearer token) and the queue's metrics."""
    app = FastAPI(
        title="branchgraph",
        description="Branch-aware code knowledge graph: search, context for agents, symbols, index status.",
    )
    # Endpoints are plain functions: FastAPI runs them on its thread pool, so requests are
    # answered concurrently (the Workspace is thread-safe: pooled Neo4j and PostgreSQL
    # connections, one git object store reader per thread).

    @app.middleware("http")
    async def guard(request: Request, call_next):
        webhook = request.url.path.startswith(WEBHOOK_PREFIX)
        if token is not None and not webhook:
            given = request.headers.get("authorization", "")
            if not secrets.compare_digest(given.encode(), f"Bearer {token}".encode()):
                return JSONResponse(
                    {"error": "missing or wrong bearer token"}, status_code=401, headers={"WWW-Authenticate": "Bearer"}
                )
        limit = max_webhook_bytes if webhook else max_body_bytes
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            return JSONResponse({"error": f"request body over {limit} bytes"}, status_code=413)
        if length is None and request.method in ("POST", "PUT", "PATCH"):
            body = b""
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    return JSONResponse({"error": f"request body over {limit} bytes"}, status_code=413)
            request._body = body  # already read; let the endpoint see it
        return await call_next(request)

    @app.exception_handler(BranchgraphError)
    async def branchgraph_error(_: Request, exc: BranchgraphError) -> JSONResponse:
        status = 404 if isinstance(exc, NotIndexed) else 503 if isinstance(exc, StoreUnavailable) else 400
        return JSONResponse({"error": str(exc)}, status_code=status)

    @app.exception_handler(ValueError)
    async def value_error(_: Request, exc: ValueError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=400)

    @app.post(
        "/v1/context",
        summary="Context for a question: entry symbols, their neighbourhood and text, within a token budget",
    )
    def context(body: ContextRequest) -> dict[str, Any]:
        if body.compare:
            return workspace.compare(
                body.query,
                compare=body.compare,
                repo=body.repo,
                branch=body.branch,
                budget_tokens=body.budget_tokens,
                entries=body.entries,
            ).to_dict()
        result = workspace.context(
            body.query, repo=body.repo, branch=body.branch, budget_tokens=body.budget_tokens, entries=body.entries
        )
        return result.to_dict()

    @app.post("/v1/search", summary="Entry symbols for a query (vector + full-text, fused)")
    def search(body: SearchRequest) -> dict[str, Any]:
        hits = workspace.search(body.query, repo=body.repo, branch=body.branch, k=body.k)
        return {"hits": [h.to_dict() for h in hits]}

    @app.get("/v1/symbols/{node_id}", summary="One symbol by id, with its text")
    def symbol(
        node_id: str,
        repo: str | None = Query(None, max_length=4096),
        branch: str | None = Query(None, max_length=255),
    ) -> dict[str, Any]:
        row = workspace.symbol(node_id, repo=repo, branch=branch)
        if row is None:
            raise NotIndexed(f"no symbol {node_id!r} on this branch")
        return row

    @app.post("/v1/impact", summary="What a change affects: users by depth, tests to run, unresolved users, risk")
    def impact_of(body: ImpactRequest) -> dict[str, Any]:
        report = workspace.impact(
            repo=body.repo, branch=body.branch, symbols=body.symbols, diff=body.diff, depth=body.depth
        )
        if body.format == "md":
            return {"markdown": to_markdown(report)}
        if body.format == "mermaid":
            return {"mermaid": to_mermaid(report)}
        return report.to_dict()

    @app.post("/v1/check", summary="References in new or changed code that resolve to nothing on the branch")
    def check_code(body: CheckRequest) -> dict[str, Any]:
        findings = workspace.check(repo=body.repo, branch=body.branch, diff=body.diff, files=body.files)
        return {"ok": not findings, "findings": [f.to_dict() for f in findings]}

    @app.post("/v1/diff", summary="Graph-to-graph diff of two indexed branches")
    def diff_branches(body: DiffRequest) -> dict[str, Any]:
        return workspace.diff(body.base, body.head, repo=body.repo).to_dict()

    @app.get("/v1/status", summary="Index state of every branch of a repository, with push-to-indexed lag")
    def status(repo: str | None = Query(None, max_length=4096)) -> dict[str, Any]:
        branches = workspace.status(repo)
        return {"branches": [b.to_dict() for b in branches]}

    @app.get("/metrics", summary="Prometheus metrics: lag, queue, jobs, nodes, edges, vectors and bytes per branch")
    def metrics() -> Response:
        body = generate_latest(registry(workspace.pg, intake.queue if intake else None, workspace.managed_graph_dir))
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    if intake is not None:

        @app.post(
            "/v1/webhooks/github",
            summary="GitHub push, pull_request and delete events (X-Hub-Signature-256 verified)",
            status_code=202,
        )
        async def github_webhook(request: Request) -> JSONResponse:
            body = await request.body()
            return await _hook(lambda: intake.github(request.headers, body))

        @app.post(
            "/v1/webhooks/gitlab",
            summary="GitLab push and merge request events (X-Gitlab-Token verified)",
            status_code=202,
        )
        async def gitlab_webhook(request: Request) -> JSONResponse:
            body = await request.body()
            return await _hook(lambda: intake.gitlab(request.headers, body))

    return app


async def _hook(handle: Callable[[], dict[str, Any]]) -> JSONResponse:
    """Run a webhook's (blocking, milliseconds) store writes off the event loop."""
    try:
        answer = await run_in_threadpool(handle)
    except WebhookRefused as exc:
        return JSONResponse({"error": str(exc)}, status_code=exc.status)
    return JSONResponse(answer, status_code=202 if "job" in answer else 200)


def serve(workspace: Workspace, host: str, port: int, token: str | None, intake: Intake | None = None) -> None:
    """Run the API until interrupted. A non-loopback address without a token is refused."""
    import uvicorn

    if not is_loopback(host) and not token:
        raise BranchgraphError(
            f"refusing to serve on {host} without a bearer token: set {TOKEN_ENV} or pass --token "
            "(only 127.0.0.1 may be served without one)"
        )
    uvicorn.run(create_app(workspace, token, intake=intake), host=host, port=port, log_level="info")
