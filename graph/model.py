"""The graph's node and edge records and their deterministic ids.

Everything that reaches a store is one of these two records; backends translate them into
their own writes and never invent properties of their own.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

NODE_LABELS = ("File", "Class", "Function", "Method", "Interface", "Unresolved")
SYMBOL_LABELS = ("Class", "Function", "Method", "Interface")
EDGE_TYPES = (
    "DEFINES",
    "CALLS",
    "IMPORTS",
    "INHERITS_FROM",
    "IMPLEMENTS",
    "RETURNS_TYPE",
    "PARAM_TYPE",
    "TESTED_BY",
)


def node_id(repo: str, branch: str, path: str, label: str, qualname: str, ordinal: int = 0) -> str:
    """Return the deterministic id of a node.

    The ordinal tells apart symbols that share a qualname in one file (a function redefined
    under an ``if``), so re-ingesting the same commit yields the same ids.
    """
    key = "\x1f".join((repo, branch, path, label, qualname, str(ordinal)))
    return hashlib.blake2b(key.encode("utf-8"), digest_size=16).hexdigest()


def content_hash(text: str) -> str:
    """Hash of a symbol's source text; a pure line shift keeps it."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


@dataclass(slots=True)
class Node:
    """A graph node. ``props`` holds the label's key properties (see DESIGN.md)."""

    id: str
    label: str
    path: str
    props: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.label not in NODE_LABELS:
            raise ValueError(f"unknown node label {self.label!r}")


@dataclass(slots=True)
class Edge:
    """A relationship. ``dst_label`` lets backends match the target through its label index.

    Edges are keyed by (src, type, dst, raw): two calls of the same target written the same
    way collapse into one edge that keeps the first use-site line.
    """

    src: str
    src_label: str
    type: str
    dst: str
    dst_label: str
    raw: str = ""
    line: int | None = None
    resolved: bool = True
    inferred: bool = False
    via: str | None = None

    def __post_init__(self) -> None:
        if self.type not in EDGE_TYPES:
            raise ValueError(f"unknown edge type {self.type!r}")

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.src, self.type, self.dst, self.raw)

    def properties(self) -> dict[str, Any]:
        props: dict[str, Any] = {"raw": self.raw, "resolved": self.resolved, "inferred": self.inferred}
        if self.line is not None:
            props["line"] = self.line
        if self.via is not None:
            props["via"] = self.via
        return props


@dataclass(slots=True)
class FileSubgraph:
    """One file's nodes and the edges it owns, written to a store as a unit.

    A file owns the edges that start at its nodes, except ``TESTED_BY``: that edge is
    derived from a test's calls, so the test's file owns it. ``unresolved`` are the shared
    ``Unresolved`` targets of its dangling edges (merged, never replaced).
    """

    path: str
    nodes: list[Node]
    edges: list[Edge]
    unresolved: list[Node] = field(default_factory=list)
