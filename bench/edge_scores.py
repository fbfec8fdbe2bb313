"""Scores of branchgraph's edges against a language's own checker (bench/resolution_go.py,
bench/resolution_java.py, bench/resolution_ts.py): precision and recall per edge type, the
unresolved rate, and disagreements to read."""

from __future__ import annotations

import random
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from branchgraph.core.model import Edge as GraphEdge
from branchgraph.core.model import FileSubgraph, Node

Edge = tuple[str, str, str]  # (source qualname, type, target qualname)


def cloned(specs: list[str], scratch: Path) -> Iterator[tuple[str, Path, str]]:
    """(name, checkout, short commit) of each ``NAME=GIT_DIR``, cloned at its tip into ``scratch``."""
    for spec in specs:
        name, _, git_dir = spec.partition("=")
        root = scratch / name
        subprocess.run(["git", "clone", "-q", git_dir, str(root)], check=True)
        yield name, root, subprocess.check_output(["git", "rev-parse", "--short", "HEAD"], cwd=root, text=True).strip()


def checkable_edges(graph: list[FileSubgraph], types: tuple[str, ...]) -> Iterator[tuple[Node, GraphEdge, Node]]:
    """(source, edge, target) of each resolved edge of ``types`` a checker could see: an
    inferred HTTP edge (a request to a route) is no call a type checker sees."""
    nodes = {n.id: n for s in graph for n in s.nodes}
    for s in graph:
        for e in s.edges:
            if e.resolved and e.type in types and not e.inferred:
                yield nodes[e.src], e, nodes[e.dst]


def unresolved_rate(graph: list[FileSubgraph], counted_types: tuple[str, ...]) -> float:
    """Dangling ``unresolved`` references over all in-repo references (resolved ones too) of
    the counted edge types."""
    reasons = {n.id: n.props["reason"] for s in graph for n in s.unresolved}
    counted = [e for s in graph for e in s.edges if e.type in counted_types]
    resolved = sum(e.resolved for e in counted)
    unresolved = sum(1 for e in counted if not e.resolved and reasons.get(e.dst) == "unresolved")
    return unresolved / (resolved + unresolved) if resolved + unresolved else 0.0


def print_scores(truth: set[Edge], found: set[Edge], types: tuple[str, ...], checker: str, sample: int) -> None:
    rng = random.Random(7)
    both = truth & found
    for edge_type in types:
        t = {e for e in truth if e[1] == edge_type}
        f = {e for e in found if e[1] == edge_type}
        hit = len(t & f)
        precision = hit / len(f) if f else 1.0
        recall = hit / len(t) if t else 1.0
        print(
            f"  {edge_type:14} {checker} {len(t):5}  branchgraph {len(f):5}  precision {precision:.3f}  recall {recall:.3f}"
        )
    print(
        f"  all            precision {len(both) / max(len(found), 1):.3f}  recall {len(both) / max(len(truth), 1):.3f}"
    )
    missed, extra = Counter(e[1] for e in truth - found), Counter(e[1] for e in found - truth)
    print(f"  missed by type {dict(missed)}; not seen by {checker} {dict(extra)}")
    for title, edges in (("missed", truth - found), (f"not seen by {checker}", found - truth)):
        for edge in rng.sample(sorted(edges), min(sample, len(edges))):
            print(f"    {title}: {edge}")
