"""The MCP server (stdio, the official Python SDK): tools an agent calls to find and read code
on a branch. A thin adapter over ``api.Workspace``; each tool's docstring is what the agent
reads to decide when to call it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from branchgraph import BranchgraphError
from branchgraph.api import MAX_BUDGET_TOKENS, MAX_DEPTH, MAX_K, MAX_REMOTE_ROWS, Config, Workspace

INSTRUCTIONS = (
    "branchgraph indexes a git repository per branch as a code graph (functions, classes, calls, "
    "imports, inheritance, tests). Start with `context` for a question about the code; use `search` "
    "to find symbols, `impact` for what a change affects (users, tests, risk), `check` that new code "
    "only uses what exists, `diff` to compare two branches, `callers`/`callees` to "
    "walk calls, `symbol` to read one, `status` to see how fresh the index is, `cypher` for anything "
    "else (read-only). `branch` defaults to the checked-out branch."
)


def _anticipated(tool: Callable) -> Callable:
    """Errors branchgraph raises on purpose (not indexed, bad argument, store down) reach the
    agent with their message; the SDK would otherwise hide them as a crash."""

    @functools.wraps(tool)
    def wrapper(*args, **kwargs):
        try:
            return tool(*args, **kwargs)
        except (BranchgraphError, ValueError) as exc:
            raise ToolError(str(exc)) from exc

    return wrapper


def _within(name: str, value: int, high: int) -> int:
    """A number an agent passed, refused (with the range) outside 1..high."""
    if not 1 <= value <= high:
        raise ValueError(f"{name} must be between 1 and {high}; got {value}")
    return value


def create_server(path: str | Path = ".", config: Config | None = None) -> MCPServer:
    server = MCPServer("branchgraph", instructions=INSTRUCTIONS)
    state: dict[str, Workspace] = {}

    def workspace() -> Workspace:
        # Opened at the first call, so a client can list the tools even while a store is down.
        if "ws" not in state:
            state["ws"] = Workspace(path, config=config)
        return state["ws"]

    @server.tool()
    @_anticipated
    def context(
        query: str, branch: str | None = None, budget_tokens: int = 6000, compare: str | None = None
    ) -> dict[str, Any]:
        """Everything needed to answer a question about the code, as it is on the branch: the
        best-matching functions and classes with what they call, who calls them, the types they
        take and return, their base classes and tests, ranked and cut to a token budget (about
        4 characters a token). Each item says why it is there (`entry`, `callee of X`, ...), and
        `stale` items come from files edited since indexing; `overlay` items come from a branch
        not indexed yet. With `compare` (another branch), each item comes with its version
        there where it differs (`status`: same, changed, only on HEAD, only on BASE): for
        reviews and migrations. Use this first."""
        budget = _within("budget_tokens", budget_tokens, MAX_BUDGET_TOKENS)
        if compare:
            return workspace().compare(query, compare=compare, branch=branch, budget_tokens=budget).to_dict()
        return workspace().context(query, branch=branch, budget_tokens=budget).to_dict()

    @server.tool()
    @_anticipated
    def search(query: str, branch: str | None = None, k: int = 10) -> list[dict[str, Any]]:
        """Find symbols by meaning or by name (identifier parts work: `parse config` finds
        `parseConfigFile`). Returns ids, qualified names, files and line spans, best first."""
        return [hit.to_dict() for hit in workspace().search(query, branch=branch, k=_within("k", k, MAX_K))]

    @server.tool()
    @_anticipated
    def callers(qualname: str, branch: str | None = None, depth: int = 3) -> list[dict[str, Any]]:
        """Who calls a function, method or class, transitively up to `depth` (1-5) hops, nearest
        first: what may break if it changes. `qualname` is dotted, e.g. `pkg.module.Class.method`."""
        depth = _within("depth", depth, MAX_DEPTH)
        return workspace().named("callers", {"qualname": qualname, "depth": depth}, branch=branch)

    @server.tool()
    @_anticipated
    def callees(qualname: str, branch: str | None = None, depth: int = 2) -> list[dict[str, Any]]:
        """What a function, method or class calls, transitively up to `depth` (1-5) hops;
        calls the index could not resolve are listed with their raw text."""
        depth = _within("depth", depth, MAX_DEPTH)
        return workspace().named("callees", {"qualname": qualname, "depth": depth}, branch=branch)

    @server.tool()
    @_anticipated
    def impact(
        symbols: list[str] | None = None, diff: str | None = None, branch: str | None = None, depth: int = 3
    ) -> dict[str, Any]:
        """What a change would affect, before you make it or after: give the changed `symbols`
        (dotted qualified names) or a git `diff` range (`main...HEAD`, or one commit). Returns
        the users by depth (`will_break`, `likely_affected`, `may_need_testing`, each with the
        `via` path), the tests to run with pytest ids, `unknowns` (unresolved references that
        may be users: check them), a `risk` with reasons, and `exact` (false: may be incomplete)."""
        depth = _within("depth", depth, MAX_DEPTH)
        return workspace().impact(branch=branch, symbols=symbols, diff=diff, depth=depth).to_dict()

    @server.tool()
    @_anticipated
    def check(diff: str | None = None, files: list[str] | None = None, branch: str | None = None) -> dict[str, Any]:
        """Check code you wrote against the branch before relying on it: every call, import,
        base class and type it uses must exist on the branch (or be external). Give a git
        `diff` range (the branch must be indexed at its head) or `files` (repository paths, as
        indexed). Returns `ok` and `findings` (file, line, the reference as written, and the
        nearest names that do exist — a misspelling or a renamed function)."""
        findings = workspace().check(branch=branch, diff=diff, files=files)
        return {"ok": not findings, "findings": [f.to_dict() for f in findings]}

    @server.tool()
    @_anticipated
    def diff(base: str, head: str) -> dict[str, Any]:
        """Compare two indexed branches as graphs: symbols added, removed, modified or with a
        new signature; references added and removed by kind; references that worked on `base`
        and are broken on `head`; and the tests that reach what changed."""
        return workspace().diff(base, head).to_dict()

    @server.tool()
    @_anticipated
    def symbol(name: str | None = None, id: str | None = None, branch: str | None = None) -> list[dict[str, Any]]:
        """Look a symbol up by its bare `name` (every definition with that name: kind, file,
        lines, signature) or read one by `id` (from search or context results) with its text."""
        if id:
            row = workspace().symbol(id, branch=branch)
            return [row] if row else []
        if not name:
            raise ValueError("give a name or an id")
        return workspace().named("symbol", {"name": name}, branch=branch)

    @server.tool()
    @_anticipated
    def cypher(query: str, params: dict[str, Any] | None = None, limit: int = 200) -> list[dict[str, Any]]:
        """Run a read-only Cypher query on the graph (writes are refused before they run).
        Nodes: File, Class, Function, Method, Interface, Unresolved, each with `repo`, `branch`,
        `path`, `qualname`, `start_line`, `end_line`; edges: DEFINES, CALLS, IMPORTS,
        INHERITS_FROM, PARAM_TYPE, RETURNS_TYPE, TESTED_BY (dangling ones end at Unresolved).
        Always filter on `branch`. At most `limit` rows (1 to 1000)."""
        return workspace().cypher(query, params or {}, limit=_within("limit", limit, MAX_REMOTE_ROWS))

    @server.tool()
    @_anticipated
    def status() -> list[dict[str, Any]]:
        """Every indexed branch: indexed commit, how many commits it is behind, age, counts."""
        return [s.to_dict() for s in workspace().status()]

    return server


def run_stdio(path: str | Path = ".", config: Config | None = None) -> None:
    create_server(path, config).run("stdio")
