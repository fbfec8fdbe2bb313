"""How much an item of a context is worth: the entry's search score, carried along the graph
edge that reached it (weighted by edge kind, decayed by distance), blended with its own
similarity to the question, raised for code changed recently on the branch, and lowered for
tests, examples and docs (unless the question is about them) and vendored or generated paths.

Scores are relative: the best entry is 1.0 and nothing else exceeds its own entry's score
times the boosts below.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dulwich.repo import Repo

from branchgraph.core import git
from branchgraph.core.languages import is_declaration_path, is_generated_path, is_support_path
from branchgraph.graph.protocols import IndexState

if TYPE_CHECKING:  # assemble imports this module for neighbour scores
    from branchgraph.retrieval.assemble import Candidate

# What an edge kind says about a neighbour's use to someone reading the entry: the code it
# calls explains its behaviour best, the types it handles next; callers and tests show use.
EDGE_WEIGHTS = {
    "callee": 0.7,
    "type": 0.65,
    "enclosing class": 0.6,
    "member": 0.6,
    "base": 0.55,
    "caller": 0.5,
    "test": 0.5,
}
# Each further hop keeps this share of the score (a callee's callee is half as relevant).
DISTANCE_DECAY = 0.5
# Recency by commits, not days (a quiet repository's last change is as telling as a busy
# one's): a file changed k commits before the indexed one is raised by
# 1 + RECENCY_BOOST * RECENCY_HALF / (RECENCY_HALF + k), over the newest RECENCY_DEPTH commits.
# On the tuning half of bench/real_tasks.py, 40% of the files a task changed had changed in
# the 5 commits before it, against 7% of all files.
RECENCY_DEPTH = 100
RECENCY_BOOST = 1.0
RECENCY_HALF = 10.0
PENALTY = 0.4  # vendored or generated code is rarely what the question is about
# Share of a candidate's score that comes from its own similarity to the query (the rest is
# structural: search rank, edge kind, distance). First chosen on the click golden set (0.3);
# with BM25 over source the weaker local vectors count less: 0.15 on the tuning half of
# bench/real_tasks.py (together with the other weights there, context R@10 0.45 -> 0.54).
SIMILARITY_WEIGHT = 0.15
# A vendored or generated copy of a function whose source is a candidate too (a bundle's
# ``buildFullPath`` beside ``lib/core/buildFullPath.js``) says nothing the source does not:
# on axios four bundles' copies took up to four of the top 10 places.
COPY_OF_CANDIDATE_FACTOR = 0.1

# Tests, examples, docs and benchmarks by directory, in any language; by file name, each
# language's own test conventions (``core.languages``).
_SUPPORT_DIRS = re.compile(r"(^|/)(tests?|testing_?utils|examples?|docs?|benchmarks?|bench)/")
_SUPPORT_WORDS = re.compile(
    r"\b(tests?|testing|unittests?|pytest|fixtures?|examples?|docs?|documentation|bench\w*)\b", re.IGNORECASE
)
SUPPORT_FACTOR = 0.6
# Stubs declare what other files implement; a task changes the implementation.
DECLARATION_FACTOR = 0.5

# Vendored or generated code by directory or name, in any language; each language adds its
# generators' file names (``core.languages``).
_PENALISED = re.compile(
    r"(^|/)(vendor|vendored|_vendor|third_party|thirdparty|node_modules|site-packages|generated|gen|build|dist)/"
    r"|(\.min\.js|_generated\.\w+|\.generated\.\w+)$",
)


def neighbour_score(entry_score: float, kind: str, distance: int) -> float:
    return entry_score * EDGE_WEIGHTS[kind] * DISTANCE_DECAY ** (distance - 1)


def recency_factor(commits_ago: int | None) -> float:
    if commits_ago is None:
        return 1.0
    return 1.0 + RECENCY_BOOST * RECENCY_HALF / (RECENCY_HALF + commits_ago)


def path_factor(path: str, recency: Mapping[str, int], about_support: bool = False) -> float:
    """Vendored or generated code down, recently changed code up, and tests, examples and
    docs down unless the question is about them (``about_support``): they show how code is
    used, they are rarely what a question is about."""
    factor = PENALTY if is_vendored_or_generated(path) else 1.0
    if is_declaration_path(path):
        factor *= DECLARATION_FACTOR
    if not about_support and is_support(path):
        factor *= SUPPORT_FACTOR
    return factor * recency_factor(recency.get(path))


def is_support(path: str) -> bool:
    """A test, example, doc or benchmark, by directory or by its language's conventions."""
    return bool(_SUPPORT_DIRS.search(path)) or is_support_path(path)


def is_vendored_or_generated(path: str) -> bool:
    return bool(_PENALISED.search(path)) or is_generated_path(path)


def asks_about_support(query: str) -> bool:
    return bool(_SUPPORT_WORDS.search(query))


def final_scores(
    candidates: dict[str, Candidate],
    similarity: dict[str, float],
    recency: Mapping[str, int],
    weight: float,
    about_support: bool,
) -> None:
    """Blend each candidate's structural score with its own similarity to the query (scaled
    so the most similar candidate has 1), then apply the path factors. Similarity re-ranks
    what the graph brought in: a callee about the question beats one that is not."""
    top = max((s for s in similarity.values() if s > 0), default=1.0)
    for c in candidates.values():
        own = max(similarity.get(c.id, 0.0), 0.0) / top
        c.score = ((1 - weight) * c.score + weight * own) * path_factor(c.path, recency, about_support)


def demote_copies_of_candidates(candidates: Sequence[Candidate]) -> None:
    """Rank a copy below the rest when a candidate outside vendored and generated code has
    its name (``COPY_OF_CANDIDATE_FACTOR``): shown after its source, if there is room."""
    copies = [c for c in candidates if is_vendored_or_generated(c.path)]
    if not copies:
        return
    names = {c.qualname.rsplit(".", 1)[-1] for c in candidates if not is_vendored_or_generated(c.path)}
    for c in copies:
        if c.qualname.rsplit(".", 1)[-1] in names:
            c.score *= COPY_OF_CANDIDATE_FACTOR


@dataclass(frozen=True, slots=True)
class PathHistory:
    """What a commit's recent history says of each path: how many commits ago it changed, and
    which paths changed with it."""

    ago: dict[str, int]
    commits_of: dict[str, frozenset[int]]  # path -> indexes of the recent commits changing it

    @classmethod
    def of_changes(cls, changes: list[list[str]]) -> PathHistory:
        commits_of: dict[str, set[int]] = {}
        for index, paths in enumerate(changes):
            for path in paths:
                commits_of.setdefault(path, set()).add(index)
        return cls(git.recency_of(changes), {p: frozenset(s) for p, s in commits_of.items()})

    def cochange(self, path: str, other: str) -> float:
        """The share of ``other``'s recent commits that changed ``path`` too."""
        theirs = self.commits_of.get(other)
        if not theirs or path == other:
            return 0.0
        return len(theirs & self.commits_of.get(path, frozenset())) / len(theirs)


class PathRecency:
    """The recent history of a commit (``PathHistory``): from PostgreSQL when a previous query
    walked it, else from git (then stored), and kept in memory for a long-running server."""

    def __init__(self, pg: IndexState, depth: int = RECENCY_DEPTH):
        self.pg = pg
        self.depth = depth
        self._memory: dict[tuple[str, str], PathHistory] = {}

    def history(self, repo_name: str, repo: Repo, commit: str) -> PathHistory:
        key = (repo_name, commit)
        if key not in self._memory:
            changes = self.pg.path_changes(repo_name, commit, self.depth)
            if changes is None:
                changes = git.recent_changes(repo, commit, self.depth)
                self.pg.put_path_changes(repo_name, commit, self.depth, changes)
            self._memory[key] = PathHistory.of_changes(changes)
        return self._memory[key]
