"""How much an item of a context is worth: the entry's search score, carried along the graph
edge that reached it (weighted by edge kind, decayed by distance), blended with its own
similarity to the question, raised for code changed recently on the branch, and lowered for
tests, examples and docs (unless the question is about them) and vendored or generated paths.

Scores are relative: the best entry is 1.0 and nothing else exceeds its own entry's score
times the boosts below.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from dulwich.repo import Repo

from branchgraph.core import git
from branchgraph.core.languages import is_generated_path, is_support_path
from branchgraph.graph.protocols import IndexState

if TYPE_CHECKING:  # assemble imports this module for neighbour scores
    from branchgraph.retrieval.assemble import Candidate

# What an edge kind says about a neighbour's use to someone reading the entry: the code it
# calls explains its behaviour best, the types it handles next; callers and tests show use.
EDGE_WEIGHTS = {
    "callee": 0.7,
    "type": 0.65,
    "enclosing class": 0.6,
    "base": 0.55,
    "caller": 0.5,
    "test": 0.5,
}
# Each further hop keeps this share of the score (a callee's callee is half as relevant).
DISTANCE_DECAY = 0.5
RECENT_DAYS = 30
RECENT_BOOST = 1.15
PENALTY = 0.4  # vendored or generated code is rarely what the question is about
# Share of a candidate's score that comes from its own similarity to the query (the rest is
# structural: search rank, edge kind, distance). Chosen on the golden set (bench/retrieval.py):
# recall@10 0.47 at 0 (structure only), 0.55 at 0.5, no better at 0.7; mixing in full-text
# rank as well lowered it.
SIMILARITY_WEIGHT = 0.3

# Tests, examples, docs and benchmarks by directory, in any language; by file name, each
# language's own test conventions (``core.languages``).
_SUPPORT_DIRS = re.compile(r"(^|/)(tests?|testing_?utils|examples?|docs?|benchmarks?|bench)/")
_SUPPORT_WORDS = re.compile(
    r"\b(tests?|testing|unittests?|pytest|fixtures?|examples?|docs?|documentation|bench\w*)\b", re.IGNORECASE
)
SUPPORT_FACTOR = 0.6

# Vendored or generated code by directory or name, in any language; each language adds its
# generators' file names (``core.languages``).
_PENALISED = re.compile(
    r"(^|/)(vendor|vendored|_vendor|third_party|thirdparty|node_modules|site-packages|generated|gen|build|dist)/"
    r"|(\.min\.js|_generated\.\w+|\.generated\.\w+)$",
)


def neighbour_score(entry_score: float, kind: str, distance: int) -> float:
    return entry_score * EDGE_WEIGHTS[kind] * DISTANCE_DECAY ** (distance - 1)


def path_factor(path: str, recent: frozenset[str], about_support: bool = False) -> float:
    """Vendored or generated code down, recently changed code up, and tests, examples and
    docs down unless the question is about them (``about_support``): they show how code is
    used, they are rarely what a question is about."""
    factor = PENALTY if _PENALISED.search(path) or is_generated_path(path) else 1.0
    if not about_support and (_SUPPORT_DIRS.search(path) or is_support_path(path)):
        factor *= SUPPORT_FACTOR
    return factor * (RECENT_BOOST if path in recent else 1.0)


def asks_about_support(query: str) -> bool:
    return bool(_SUPPORT_WORDS.search(query))


def final_scores(
    candidates: dict[str, Candidate],
    similarity: dict[str, float],
    recent: frozenset[str],
    weight: float,
    about_support: bool,
) -> None:
    """Blend each candidate's structural score with its own similarity to the query (scaled
    so the most similar candidate has 1), then apply the path factors. Similarity re-ranks
    what the graph brought in: a callee about the question beats one that is not."""
    top = max((s for s in similarity.values() if s > 0), default=1.0)
    for c in candidates.values():
        own = max(similarity.get(c.id, 0.0), 0.0) / top
        c.score = ((1 - weight) * c.score + weight * own) * path_factor(c.path, recent, about_support)


class RecentPaths:
    """Paths changed in the ``RECENT_DAYS`` before a commit: from PostgreSQL when a previous
    query computed them, else from git history (then stored), and kept in memory for a
    long-running server."""

    def __init__(self, pg: IndexState, days: int = RECENT_DAYS):
        self.pg = pg
        self.days = days
        self._memory: dict[tuple[str, str], frozenset[str]] = {}

    def of(self, repo_name: str, repo: Repo, commit: str) -> frozenset[str]:
        key = (repo_name, commit)
        if key not in self._memory:
            stored = self.pg.recent_paths(repo_name, commit, self.days)
            if stored is None:
                stored = sorted(git.paths_changed_within(repo, commit, self.days * 86400))
                self.pg.put_recent_paths(repo_name, commit, self.days, stored)
            self._memory[key] = frozenset(stored)
        return self._memory[key]
