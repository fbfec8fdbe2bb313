"""Per-file subgraphs, the same for every language: a resolver decides what each reference
points at; this module turns those decisions into nodes and edges.

Emitted here: the ``File`` node, one node per definition with its ``DEFINES`` edge,
references that resolve (an edge to the target) or dangle (an edge to a shared ``Unresolved``
node with the raw text and a reason), and ``TESTED_BY`` edges, which the test's file owns.
A reference is never dropped.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from branchgraph.core.extract import Definition, ParsedFile, conflict_extents, decode_parsed
from branchgraph.core.model import Edge, FileSubgraph, Node, node_id

REASON_EXTERNAL = "external"  # standard library, builtins, third-party packages
REASON_UNRESOLVED = "unresolved"  # in-repo as far as anyone can tell, but not found
REASON_DYNAMIC = "dynamic"  # decided at run time: several in-repo targets fit equally

# Docstrings are stored up to this many characters (the embedded text truncates further).
MAX_DOCSTRING = 2000


@dataclass(slots=True)
class ParsedSource:
    """A parsed file of the commit, as resolvers and the emitter need it."""

    path: str
    blob_sha: str
    parsed: ParsedFile

    @property
    def conflict_lines(self) -> list[int]:
        return self.parsed.conflict_lines

    @property
    def parse_errors(self) -> int:
        return self.parsed.parse_errors

    @property
    def has_conflicts(self) -> bool:
        return bool(self.parsed.conflict_lines)

    @property
    def has_sites(self) -> bool:
        """Whether it makes calls whose arguments matter (routes, HTTP clients)."""
        return bool(self.parsed.calls)


_PARSED_SLOT = ParsedSource.__dict__["parsed"]


class DeferredSource(ParsedSource):
    """A file of an update whose cached parse is decoded the first time something reads it:
    most files a small change does not reach are never read. What the update needs of every
    file (its syntax errors, whether it holds conflict markers) comes from its stored record."""

    __slots__ = ("_encoded", "_has_conflicts", "_has_sites", "_parse_errors")

    def __init__(
        self, path: str, blob_sha: str, encoded: bytes, parse_errors: int, has_conflicts: bool, has_sites: bool
    ):
        self.path = path
        self.blob_sha = blob_sha
        self._encoded = encoded
        self._parse_errors = parse_errors
        self._has_conflicts = has_conflicts
        self._has_sites = has_sites

    @property
    def parsed(self) -> ParsedFile:
        try:
            found: ParsedFile = _PARSED_SLOT.__get__(self, ParsedSource)
        except AttributeError:
            found = decode_parsed(self._encoded)
            _PARSED_SLOT.__set__(self, found)
            self._encoded = b""
        return found

    @parsed.setter
    def parsed(self, value: ParsedFile) -> None:
        _PARSED_SLOT.__set__(self, value)

    @property
    def is_decoded(self) -> bool:
        return not self._encoded

    @property
    def parse_errors(self) -> int:
        return self._parse_errors

    @property
    def has_conflicts(self) -> bool:
        return self._has_conflicts

    @property
    def has_sites(self) -> bool:
        return self._has_sites


@dataclass(frozen=True, slots=True)
class Target:
    """What a reference resolved to: a node id and its label."""

    id: str
    label: str


class SubgraphEmitter:
    """Collects the nodes and owned edges of one branch's files."""

    def __init__(self, repo: str, branch: str, files: list[ParsedSource]):
        self.repo = repo
        self.branch = branch
        self._graphs = {f.path: FileSubgraph(f.path, [], [], []) for f in files}
        self._unresolved: dict[tuple[str, str], Node] = {}

    def file(self, f: ParsedSource, file_id: str, qualname: str) -> None:
        """The file's own node."""
        self._graphs[f.path].nodes.append(
            Node(
                file_id,
                "File",
                f.path,
                {
                    "name": f.path.rsplit("/", 1)[-1],
                    "qualname": qualname,
                    "language": f.parsed.language,
                    "blob_sha": f.blob_sha,
                    "has_conflict": bool(f.conflict_lines),
                    "parse_errors": f.parsed.parse_errors,
                    "docstring": f.parsed.docstring[:MAX_DOCSTRING],
                    "line_count": f.parsed.line_count,
                },
            )
        )

    def definitions(self, f: ParsedSource, symbols: list[SymbolNode], file_id: str) -> None:
        """A node per definition (``symbols[i]`` names ``f.parsed.definitions[i]``), each
        defined by its enclosing definition or by the file."""
        defs = f.parsed.definitions
        extents = conflict_extents(defs, f.parsed.line_count) if f.conflict_lines else []
        graph = self._graphs[f.path]
        for index, (d, symbol) in enumerate(zip(defs, symbols, strict=True)):
            torn = bool(f.conflict_lines) and any(d.start_line <= line <= extents[index] for line in f.conflict_lines)
            graph.nodes.append(Node(symbol.id, symbol.label, f.path, _symbol_props(d, symbol, torn)))
            if symbol.definer is not None:
                graph.edges.append(Edge(symbol.definer.id, symbol.definer.label, "DEFINES", symbol.id, symbol.label))
            elif d.parent is None:
                graph.edges.append(Edge(file_id, "File", "DEFINES", symbol.id, symbol.label))
            else:
                parent = symbols[d.parent]
                graph.edges.append(Edge(parent.id, parent.label, "DEFINES", symbol.id, symbol.label))

    def reference(
        self,
        path: str,
        source: Target,
        edge_type: str,
        raw: str,
        line: int,
        target: Target | None,
        *,
        external: str | None = None,
        dynamic: bool = False,
    ) -> Edge:
        """An edge from ``source`` to what ``raw`` (written at ``line`` of ``path``) resolved
        to; with no target, a dangling edge to an ``Unresolved`` node: ``external`` names the
        library symbol when the reference leaves the repository, else the reason is
        ``unresolved`` (``dynamic`` when what runs is a value decided at run time, such as a
        function-typed variable) and the raw text is kept."""
        graph = self._graphs[path]
        if target is not None:
            edge = Edge(source.id, source.label, edge_type, target.id, target.label, raw=raw, line=line)
        else:
            reason = REASON_EXTERNAL if external is not None else REASON_DYNAMIC if dynamic else REASON_UNRESOLVED
            unresolved = self._unresolved_node(external if external is not None else raw, reason)
            graph.unresolved.append(unresolved)
            edge = Edge(
                source.id, source.label, edge_type, unresolved.id, "Unresolved", raw=raw, line=line, resolved=False
            )
        graph.edges.append(edge)
        return edge

    def inferred(
        self, path: str, source: Target, edge_type: str, target: Target, raw: str, line: int, *, via: str
    ) -> None:
        """An edge no call site writes but the language's run time makes (``via`` says how: a
        test's parameter naming a pytest fixture)."""
        self._graphs[path].edges.append(
            Edge(
                source.id, source.label, edge_type, target.id, target.label, raw=raw, line=line, inferred=True, via=via
            )
        )

    def tested_by(self, test_path: str, target: Target, test: Target, raw: str, line: int | None) -> None:
        """``target`` is exercised by the test ``test``; the test's file owns the edge, so it
        changes when the test changes."""
        self._graphs[test_path].edges.append(
            Edge(target.id, target.label, "TESTED_BY", test.id, test.label, raw=raw, line=line)
        )

    def subgraphs(self) -> list[FileSubgraph]:
        """Every file's subgraph, duplicate edges and shared targets collapsed."""
        for g in self._graphs.values():
            g.edges = dedupe_edges(g.edges)
            g.unresolved = list({n.id: n for n in g.unresolved}.values())
        return list(self._graphs.values())

    def _unresolved_node(self, raw: str, reason: str) -> Node:
        cached = self._unresolved.get((raw, reason))
        if cached is None:
            cached = self._unresolved[(raw, reason)] = Node(
                node_id(self.repo, self.branch, "", "Unresolved", f"{reason}:{raw}"),
                "Unresolved",
                "",
                {"raw": raw, "reason": reason, "name": raw.rsplit(".", 1)[-1]},
            )
        return cached


@dataclass(frozen=True, slots=True)
class SymbolNode:
    """What a resolver decided about a definition: its id, label, qualname, test flag."""

    id: str
    label: str
    qualname: str
    is_test: bool
    definer: Target | None = None  # who DEFINES it when not its lexical parent (a Go method's type)


def _symbol_props(d: Definition, symbol: SymbolNode, has_conflict: bool) -> dict[str, object]:
    return {
        "name": d.name,
        "qualname": symbol.qualname,
        "start_line": d.start_line,
        "end_line": d.end_line,
        "content_hash": d.content_hash,
        "signature": d.signature,
        "docstring": d.docstring[:MAX_DOCSTRING],
        "decorators": list(d.decorators),
        "is_test": symbol.is_test,
        "has_conflict": has_conflict,
    }


def dedupe_edges(edges: list[Edge]) -> list[Edge]:
    """One edge per (src, type, dst, raw), with the first use-site line, every use-site line
    and the number of uses (impact analysis cites each call site)."""
    uses: dict[tuple[str, str, str, str], list[Edge]] = {}
    for e in edges:
        uses.setdefault(e.key, []).append(e)
    out = []
    for group in uses.values():
        if len(group) == 1:  # most edges: already in their final form (``Edge.lines``)
            out.append(group[0])
            continue
        first = min(group, key=lambda e: e.line or 0)
        lines = tuple(sorted({e.line for e in group if e.line is not None}))
        out.append(dataclasses.replace(first, lines=lines, count=len(group)))
    return out
