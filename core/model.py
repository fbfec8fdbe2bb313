"""The graph's node and edge records and their deterministic ids.

Everything that reaches a store is one of these two records; backends translate them into
their own writes and never invent properties of their own.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
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
    "REFERENCES",
)


BRANCH_PREFIX_LEN = 16


@functools.cache  # every id of a commit carries the same one: 44k hashes of one pair on django
def branch_prefix(repo: str, branch: str) -> str:
    """The first part of every id on a branch: a hash of (repo, branch)."""
    return hashlib.blake2b(f"{repo}\x1f{branch}".encode(), digest_size=BRANCH_PREFIX_LEN // 2).hexdigest()


def node_id(repo: str, branch: str, path: str, label: str, qualname: str, ordinal: int = 0) -> str:
    """Return the deterministic id of a node: hash(repo, branch) + hash(repo, path, label,
    qualname, ordinal).

    The ordinal tells apart symbols that share a qualname in one file (a function redefined
    under an ``if``). The branch part is a separate prefix so a store can copy a branch to a
    new one by swapping prefixes, without recomputing hashes it cannot compute.
    """
    key = "\x1f".join((repo, path, label, qualname, str(ordinal)))
    return branch_prefix(repo, branch) + hashlib.blake2b(key.encode("utf-8"), digest_size=16).hexdigest()


def content_hash(text: str) -> str:
    """Hash of a symbol's source text; a pure line shift keeps it."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


@dataclass(slots=True)
class Node:
    """A graph node. ``props`` holds the label's key properties (see the README's graph model)."""

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

    Edges are keyed by (src, type, dst, raw): every use of the same target written the same
    way collapses into one edge, which keeps the first use-site ``line``, every use-site line
    (``lines``, sorted, distinct) and how many uses there are (``count``).
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
    lines: tuple[int, ...] = ()
    count: int = 1
    confidence: float | None = None  # of an inferred edge: how well its two ends matched

    def __post_init__(self) -> None:
        if self.type not in EDGE_TYPES:
            raise ValueError(f"unknown edge type {self.type!r}")
        if self.line is not None and not self.lines:
            # One use: its line is every use-site line (so deduplicating keeps the edge as is).
            object.__setattr__(self, "lines", (self.line,))

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.src, self.type, self.dst, self.raw)

    def properties(self) -> dict[str, Any]:
        props: dict[str, Any] = {"raw": self.raw, "resolved": self.resolved, "inferred": self.inferred}
        if self.line is not None:
            props["line"] = self.line
            props["lines"] = list(self.lines or (self.line,))
            props["count"] = self.count
        if self.via is not None:
            props["via"] = self.via
        if self.confidence is not None:
            props["confidence"] = self.confidence
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


def pack_subgraphs(subgraphs: list[FileSubgraph]) -> list[tuple[Any, ...]]:
    """Subgraphs as plain tuples, to send to another process: they pickle several times faster
    than the objects (django's half of a build: 0.95 s as objects). ``unpack_subgraphs``
    rebuilds them."""

    def nodes(nodes: list[Node]) -> list[tuple[Any, ...]]:
        return [(n.id, n.label, n.path, n.props) for n in nodes]

    return [
        (
            s.path,
            nodes(s.nodes),
            [
                (e.src, e.src_label, e.type, e.dst, e.dst_label, e.raw, e.line, e.resolved, e.inferred, e.via,
                 e.lines, e.count, e.confidence)
                for e in s.edges
            ],
            nodes(s.unresolved),
        )
        for s in subgraphs
    ]  # fmt: skip


def unpack_subgraphs(packed: list[tuple[Any, ...]]) -> list[FileSubgraph]:
    return [
        FileSubgraph(path, [Node(*n) for n in nodes], [Edge(*e) for e in edges], [Node(*n) for n in unresolved])
        for path, nodes, edges, unresolved in packed
    ]


def subgraph_fingerprint(subgraph: FileSubgraph) -> str:
    """A hash of everything a file's subgraph writes, independent of the branch it is on:
    two branches holding the same file content with the same resolution share it."""
    cut = BRANCH_PREFIX_LEN
    # marshal of sorted tuples: deterministic at format version 0, which marks neither shared
    # nor interned strings, and 40x faster than their repr. Another Python may write other
    # bytes; its first update then rewrites files whose subgraphs did not change, once.
    document = (
        sorted((n.id[cut:], n.label, n.path, sorted(n.props.items())) for n in subgraph.nodes),
        sorted(
            (e.src[cut:], e.type, e.dst[cut:], e.raw, e.line, e.lines, e.count, e.resolved, e.inferred, e.via)
            + ((e.confidence,) if e.confidence is not None else ())
            for e in subgraph.edges
        ),
        sorted((n.id[cut:], sorted(n.props.items())) for n in subgraph.unresolved),
    )
    return hashlib.blake2b(marshal.dumps(document, 0), digest_size=16).hexdigest()


@dataclass(frozen=True, slots=True)
class SymbolText:
    """A symbol of a file at some commit with its source text, outside any store: what a
    branch not indexed yet holds in a file it changed."""

    id: str
    kind: str  # its graph label
    qualname: str
    path: str
    start_line: int
    end_line: int
    text: str
