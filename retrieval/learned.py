"""The learned ranking of context candidates: a logistic model over each candidate's search,
graph, path and recency evidence, which says how likely the candidate is code the question
is about.

The model is fitted by ``bench/fit_ranker.py`` on the tuning half of ``bench/real_tasks.py``
only (real tasks: commit messages asked at the parent commit, the changed functions as the
answer) and shipped as ``ranker.json`` beside this module; the held-out half is never seen
by the fit. Without the file the hand-tuned score (``ranking.final_scores``) ranks alone.
"""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np

from branchgraph.core.languages import is_declaration_path
from branchgraph.core.lexical import lexical_text
from branchgraph.retrieval.query import FileMentions, Words, shared_share
from branchgraph.retrieval.ranking import is_support, is_vendored_or_generated

if TYPE_CHECKING:
    from branchgraph.retrieval.assemble import Candidate
    from branchgraph.retrieval.ranking import PathHistory

FEATURES = (
    "hand_tuned",  # ranking.final_scores, relative to the best candidate
    "search",  # normalised fused search score
    "bm25",  # BM25 score relative to the best full-text hit
    "bm25_rank",  # 1 / rank in the full-text list
    "vector_rank",  # 1 / rank in the vector list
    "similarity",  # own cosine similarity to the question, relative to the best candidate
    "exact",  # the question names it
    "qualified",  # the question names it with a dotted name (requests.get, Flask.run)
    "entry",  # expanded from
    "graph",  # strongest link from an entry
    "links",  # entries linking to it (up to 3) / 3
    "member",  # a method of an entry class
    # No feature says class or function: the real-task gold holds only functions and methods,
    # and a model would learn that artefact of the benchmark instead of the question.
    "lines",  # log(1 + lines) / 5
    "recency",  # 1 / (1 + commits since its file changed / 10); 0 when not in the window
    "support",  # a test, example or doc, and the question is not about them
    "declaration",  # a stub
    "generated",
    "entry_file",  # in the file of the best entry
    "file_search",  # the best search score of any hit in its file
    "file_rank",  # 1 / rank of its file among files ordered by their best search score
    "file_hits",  # search hits in its file (up to 5) / 5
    "cochange",  # the most that its file changed together with the file of one of the 3 best entries
    # Words shared by the question and the candidate's name, a word allowed a
    # different ending (``serialization`` names ``_serialize``): evidence that needs no
    # search hit, so graph neighbours and class members have it too.
    "name_words",  # share of its qualified name's words the question says
    "query_words",  # share of the question's words its qualified name says
    "file_named",  # the question names its file (``in fields.py``, ``the validate module``)
    # (The share of the question's words its path says measured -0.003 in cross-validation.)
)


@dataclass(frozen=True, slots=True)
class LearnedRanker:
    weights: np.ndarray
    bias: float
    mean: np.ndarray
    scale: np.ndarray

    def probabilities(self, matrix: np.ndarray) -> np.ndarray:
        z = ((matrix - self.mean) / self.scale) @ self.weights + self.bias
        return np.asarray(1.0 / (1.0 + np.exp(-z)))


@cache
def shipped_ranker() -> LearnedRanker | None:
    """The model in ``ranker.json``, or None when none is shipped or its features differ."""
    source = resources.files("branchgraph.retrieval").joinpath("ranker.json")
    if not source.is_file():
        return None
    data = json.loads(source.read_text("utf-8"))
    if tuple(data["features"]) != FEATURES:
        return None  # fitted for another feature set: refit with bench/fit_ranker.py
    return LearnedRanker(
        np.asarray(data["weights"], dtype=np.float64),
        float(data["bias"]),
        np.asarray(data["mean"], dtype=np.float64),
        np.asarray(data["scale"], dtype=np.float64),
    )


def feature_matrix(
    candidates: Sequence[Candidate],
    similarity: Mapping[str, float],
    history: PathHistory,
    about_support: bool,
    question_words: list[str],
    mentions: FileMentions,
) -> np.ndarray:
    """One row of ``FEATURES`` per candidate (after ``final_scores``, whose score is the first)."""
    if not candidates:
        return np.zeros((0, len(FEATURES)))
    # A committed bundle or vendored copy of the code a question is about matches it as well
    # as its source does, or better, and takes the ranks the source would have had. The model
    # learned from repositories without such copies, so the source's rank features are those
    # of the list without them, and the copies keep their own (and their penalty, below).
    copies = {path for path in {c.path for c in candidates} if is_vendored_or_generated(path)}
    originals = [c for c in candidates if c.path not in copies] or list(candidates)
    top_hand = max(c.score for c in candidates) or 1.0
    top_bm25 = max((c.search.lexical_score or 0.0 for c in originals if c.search is not None), default=0.0) or 1.0
    top_similarity = max((s for s in similarity.values() if s > 0), default=1.0)
    ranks = _ranks_without_copies(candidates, copies)
    entries = sorted((c for c in candidates if c.is_entry), key=lambda c: (c.path in copies, -c.search_score))
    best_entry = entries[0] if entries else None
    entry_files = list(dict.fromkeys(c.path for c in entries[:3]))
    recency = history.ago
    file_best: dict[str, float] = {}
    file_hits: dict[str, int] = {}
    for c in candidates:
        if c.search is not None:
            file_best[c.path] = max(file_best.get(c.path, 0.0), c.search_score)
            file_hits[c.path] = file_hits.get(c.path, 0) + 1
    files_ranked = sorted(file_best, key=lambda p: -file_best[p])
    file_rank = {path: rank for rank, path in enumerate(files_ranked, 1)}
    file_rank.update((path, rank) for rank, path in enumerate((p for p in files_ranked if p not in copies), 1))
    question = Words.of(question_words)
    # What a path says, once per file: the path rules cost more than the rest of a row.
    path_features: dict[str, tuple[float, float, float, float]] = {}
    rows = []
    for c in candidates:
        hit = c.search
        by_path = path_features.get(c.path)
        if by_path is None:
            by_path = path_features[c.path] = (
                float(is_support(c.path) and not about_support),
                float(is_declaration_path(c.path)),
                float(c.path in copies),
                float(mentions.name(c.path)),
            )
        support, declaration, generated, file_named = by_path
        name_words = lexical_text(c.qualname).split()
        ago = recency.get(c.path)
        lexical_rank, dense_rank = ranks.get(c.id, (None, None))
        rows.append(
            [
                c.score / top_hand,
                c.search_score,
                min((hit.lexical_score or 0.0) / top_bm25, 1.0) if hit is not None else 0.0,  # a copy's may be more
                1.0 / lexical_rank if lexical_rank else 0.0,
                1.0 / dense_rank if dense_rank else 0.0,
                max(similarity.get(c.id, 0.0), 0.0) / top_similarity,
                float(c.named),
                float(c.qualified),
                float(c.is_entry),
                c.graph_score,
                min(len(c.linked_entries), 3) / 3,
                float("member" in c.link_kinds),
                math.log1p(c.span.end_line - c.span.start_line + 1) / 5,
                1.0 / (1.0 + ago / 10) if ago is not None else 0.0,
                support,
                declaration,
                generated,
                float(best_entry is not None and c.path == best_entry.path),
                file_best.get(c.path, 0.0),
                1.0 / file_rank[c.path] if c.path in file_rank else 0.0,
                min(file_hits.get(c.path, 0), 5) / 5,
                max((history.cochange(c.path, other) for other in entry_files), default=0.0),
                shared_share(name_words, question),
                shared_share(question_words, Words.of(name_words)),
                file_named,
            ]
        )
    return np.asarray(rows, dtype=np.float64)


def _ranks_without_copies(
    candidates: Sequence[Candidate], copies: set[str]
) -> dict[str, tuple[int | None, int | None]]:
    """Each search hit's rank in the full-text and the vector list: a copy's (a path in
    ``copies``) as it is, any other's with the copies ranked above it taken out."""
    hits = [(c, c.search) for c in candidates if c.search is not None]
    copied_lexical = sorted(h.lexical_rank for c, h in hits if c.path in copies and h.lexical_rank)
    copied_dense = sorted(h.dense_rank for c, h in hits if c.path in copies and h.dense_rank)

    def without(rank: int | None, copied: list[int]) -> int | None:
        return rank - bisect.bisect_left(copied, rank) if rank and copied else rank

    return {
        c.id: (h.lexical_rank, h.dense_rank)
        if c.path in copies
        else (without(h.lexical_rank, copied_lexical), without(h.dense_rank, copied_dense))
        for c, h in hits
    }
