"""The graph-to-graph diff of two indexed branches: symbols added, removed, modified (content
hash) and re-signed; references added and removed by edge type; references that resolved on
the base but dangle on the head (broken by the change); the tests that reach what changed.

Only files whose blobs differ are compared symbol by symbol; broken references are looked for
everywhere (an unchanged file's call to a removed symbol breaks too)."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from branchgraph.core.model import BRANCH_PREFIX_LEN
from branchgraph.graph.protocols import GraphReader
from branchgraph.impact.state_memo import StateMemo
from branchgraph.impact.test_selection import read_test_files_ahead, select_tests

_LISTED_EDGES = 200  # edges listed per side; the counts by type are always complete
_SymbolKey = tuple[str, str, str, str]  # path, kind, qualname, the id after its branch prefix


@dataclass(slots=True)
class BranchDiff:
    repo: str
    base: str
    head: str
    files: dict[str, list[str]] = field(default_factory=dict)  # added / removed / modified paths
    symbols: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # added/removed/modified/signature
    edges_added: Counter[str] = field(default_factory=Counter)
    edges_removed: Counter[str] = field(default_factory=Counter)
    edge_examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    broken: list[dict[str, Any]] = field(default_factory=list)
    tests: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "base": self.base,
            "head": self.head,
            "files": self.files,
            "symbols": self.symbols,
            "edges": {
                "added": dict(sorted(self.edges_added.items())),
                "removed": dict(sorted(self.edges_removed.items())),
                "examples": self.edge_examples,
            },
            "broken_references": self.broken,
            "tests": self.tests,
        }


def diff_branches(graph: GraphReader, repo: str, base: str, head: str, memo: StateMemo | None = None) -> BranchDiff:
    """``memo``: what was read of the head's indexed state before (``state_memo.py``)."""
    memo = memo or StateMemo()
    read_test_files_ahead(graph, repo, head, memo)
    out = BranchDiff(repo, base, head)
    # Each pair of reads (base and head), and the test walk beside the edges, wait on the
    # server side by side.
    with ThreadPoolExecutor(max_workers=3) as pool:
        base_files, head_files = pool.map(lambda branch: _files(graph, repo, branch), (base, head))
        out.files = {
            "added": sorted(set(head_files) - set(base_files)),
            "removed": sorted(set(base_files) - set(head_files)),
            "modified": sorted(p for p in set(base_files) & set(head_files) if base_files[p] != head_files[p]),
        }
        paths = sorted({p for group in out.files.values() for p in group})
        before, after = pool.map(lambda branch: _symbols(graph, repo, branch, paths), (base, head))
        out.symbols = _symbol_changes(before, after)
        changed = {s["id"] for group in ("added", "signature", "modified") for s in out.symbols[group]}
        rows = {s["id"]: s for s in after.values() if s["id"] in changed}
        selection = pool.submit(select_tests, graph, repo, head, rows, memo)
        old_edges, new_edges = pool.map(lambda branch: _edges(graph, repo, branch, paths), (base, head))
        added, removed = new_edges - old_edges, old_edges - new_edges
        out.edges_added.update(e[1] for e in added)
        out.edges_removed.update(e[1] for e in removed)
        out.edge_examples = {
            "added": [_edge(e) for e in sorted(added)[:_LISTED_EDGES]],
            "removed": [_edge(e) for e in sorted(removed)[:_LISTED_EDGES]],
        }
        out.broken = _broken(graph, repo, base, head, [before[k] for k in set(before) - set(after)])
        tests = selection.result().tests
    out.tests = [
        {
            "qualname": t.qualname,
            "path": t.path,
            "pytest_id": t.pytest_id,
            "runner": t.runner,
            "selector": t.selector,
            "depth": t.depth,
            "evidence": t.evidence,
        }
        for t in tests
    ]
    return out


def _symbol_changes(
    before: dict[_SymbolKey, dict[str, Any]], after: dict[_SymbolKey, dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    both = sorted(set(before) & set(after))
    groups = {
        "added": [_brief(after[k]) for k in sorted(set(after) - set(before))],
        "removed": [_brief(before[k]) for k in sorted(set(before) - set(after))],
        "signature": [_brief(after[k]) for k in both if before[k]["signature"] != after[k]["signature"]],
        "modified": [
            _brief(after[k])
            for k in both
            if before[k]["signature"] == after[k]["signature"] and before[k]["content_hash"] != after[k]["content_hash"]
        ],
    }
    # A class whose text changed only because a member did is not a change of its own.
    members = {s["qualname"] for group in groups.values() for s in group}
    groups["modified"] = [
        s
        for s in groups["modified"]
        if s["kind"] != "Class" or not any(m.startswith(s["qualname"] + ".") for m in members)
    ]
    return groups


def _params(repo: str, branch: str, paths: list[str]) -> dict[str, Any]:
    return {"repo": repo, "branch": branch, "paths": paths}


def _files(graph: GraphReader, repo: str, branch: str) -> dict[str, str]:
    rows = graph.named_query("branch_files", {"repo": repo, "branch": branch}, limit=10_000_000)
    return {r["path"]: r["blob"] for r in rows}


def _symbols(graph: GraphReader, repo: str, branch: str, paths: list[str]) -> dict[_SymbolKey, dict[str, Any]]:
    return {_key(s): s for s in graph.named_query("file_symbols", _params(repo, branch, paths), limit=1_000_000)}


def _key(symbol: dict[str, Any]) -> _SymbolKey:
    """A symbol as both branches name it: overloads share a qualname (Java's `emit(String)` and
    `emit(char[])`) and are told apart by their ordinal, the id's part after the branch's."""
    return symbol["path"], symbol["kind"], symbol["qualname"], symbol["id"][BRANCH_PREFIX_LEN:]


def _brief(symbol: dict[str, Any]) -> dict[str, Any]:
    return {k: symbol[k] for k in ("id", "kind", "qualname", "path", "start_line", "end_line", "signature")}


def _edges(graph: GraphReader, repo: str, branch: str, paths: list[str]) -> set[tuple[str, str, str, bool]]:
    rows = graph.named_query("file_edges", _params(repo, branch, paths), limit=10_000_000)
    return {(r["source"], r["type"], r["target"], r["dangling"]) for r in rows}


def _edge(edge: tuple[str, str, str, bool]) -> dict[str, Any]:
    source, kind, target, dangling = edge
    return {"source": source, "type": kind, "target": target, "dangling": dangling}


def _broken(graph: GraphReader, repo: str, base: str, head: str, removed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """References to a removed symbol that resolved on the base and dangle on the head."""
    if not removed:
        return []
    users_before = {
        (row["qualname"], row["target"])
        for row in graph.named_query("impact_step", {"ids": [s["id"] for s in removed]}, limit=100_000)
    }
    removed_by_id = {s["id"]: s["qualname"] for s in removed}
    resolved_before = {(user, removed_by_id[target]) for user, target in users_before}
    names = sorted({s["name"] for s in removed})
    dangling = graph.named_query("impact_unknowns", {"repo": repo, "branch": head, "names": names}, limit=100_000)
    out = []
    for row in dangling:
        for user, target in resolved_before:
            if user == row["user"] and target.rsplit(".", 1)[-1] == row["raw"].rsplit(".", 1)[-1]:
                out.append({"path": row["path"], "line": row["line"], "user": user, "raw": row["raw"], "was": target})
    return sorted(out, key=lambda b: (b["path"], b["line"] or 0))
