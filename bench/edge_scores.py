"""Scores of branchgraph's edges against a language's own checker (bench/resolution_go.py,
bench/resolution_java.py): precision and recall per edge type, and disagreements to read."""

from __future__ import annotations

import random
from collections import Counter

Edge = tuple[str, str, str]  # (source qualname, type, target qualname)


def print_scores(
    truth: set[Edge], found: set[Edge], types: tuple[str, ...], checker: str, sample: int, rng: random.Random
) -> None:
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
