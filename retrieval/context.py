"""``context()``: what an agent needs to read to answer a question about a branch, within a
token budget.

1. entry symbols from hybrid search (symbols with merge conflicts only when nothing else
   matches), and the next search hits as candidates that are not expanded;
2. bounded expansion with the named query ``cypher/expand.cypher`` (callees to depth 2,
   callers, types, bases, tests, enclosing class);
3. ranking (``ranking.py``): entry score, edge kind, distance, each candidate's own
   similarity to the question, recency, path factors;
4. assembly (``assemble.py``): text by span from the working tree or the indexed blob,
   drifted files relocated and flagged stale, nested text folded, definitions first;
5. budget (``budget.py``): lowest-scoring leaves dropped, the spine kept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from branchgraph.core.model import SymbolText
from branchgraph.retrieval.assemble import (
    Candidate,
    fold_nested,
    gather,
    merge_overloads,
    read_texts,
    reading_order,
    write_outlines,
)
from branchgraph.retrieval.budget import CHARS_PER_TOKEN, estimate_tokens, trim_to_budget
from branchgraph.retrieval.learned import FEATURES, feature_matrix, shipped_ranker
from branchgraph.retrieval.query import FileMentions, content_terms, dotted_names, names_symbol
from branchgraph.retrieval.ranking import (
    PENALTY,
    SIMILARITY_WEIGHT,
    PathHistory,
    PathRecency,
    asks_about_support,
    demote_copies_of_candidates,
    final_scores,
)
from branchgraph.retrieval.render import render_context, render_item
from branchgraph.retrieval.search import SearchHit, named_file_hits, search
from branchgraph.retrieval.session import IndexedBranch, RetrievalStores
from branchgraph.retrieval.source import BranchSources

# Sees every ranked candidate and its learned-ranker features (for fitting the model).
Observer = Callable[[list[Candidate], np.ndarray], None]
# The learned model ranks when one is shipped (retrieval/ranker.json); False: hand-tuned only.
USE_LEARNED_RANKER = True

DEFAULT_BUDGET_TOKENS = 6000
DEFAULT_ENTRIES = 10
# Entry search looks deeper than the entries it keeps, so that dropping conflicted symbols
# still leaves enough.
_SEARCH_DEPTH_FACTOR = 2
# Further search hits kept as candidates (not expanded): they compete with the neighbours, and
# the learned ranking sorts them. On the tuning half of bench/real_tasks.py the candidates held
# 77% of the gold symbols with 30, 82% with 60, 86% with 100 (leave-one-repository-out
# recall@10 of the ranked candidates 0.684, 0.711, 0.720).
MATCHES = 100
# Candidates whose text is read and measured: the best ones after ranking (a 6,000-token
# context holds 12-45 items), plus the spine.
SHORTLIST = 64
# Not candidates: the other functions of the files search leads to. On the tuning half of
# bench/real_tasks.py those of the 3 best files raised the gold among the candidates from 0.860
# to 0.886 but lowered the ranked recall@10 (0.727 -> 0.720, those of the best file alone 0.722).
# Also tried there and left out: lowering a file's third and later candidates by 0.7
# or 0.85 a place raised file recall@5 (0.861 -> 0.876-0.889) and lowered recall@10 (0.706 ->
# 0.667-0.688); 150 or 200 search matches instead of 100 (recall@10 0.704 / 0.701).

# Trim, re-outline and re-measure at most this many times.
_TRIM_ROUNDS = 4


@dataclass(frozen=True, slots=True)
class ContextItem:
    id: str
    kind: str
    qualname: str
    path: str
    start_line: int
    end_line: int
    score: float
    reason: str  # why it is here: "entry", "callee of X", "test of X", ...
    text: str
    stale: bool  # the file changed since indexing; the text is from the working tree
    outline: bool = False  # a class shown without its method bodies
    truncated: bool = False  # only its first lines: alone it did not fit the budget
    reasons: list[str] = field(default_factory=list)  # every path that led here, incl. folded symbols
    via: str | None = None  # the item that connects this one to its entry (None: an entry)
    folded: list[str] = field(default_factory=list)  # symbols inside this item's text, not repeated
    tokens: int = 0
    overlay: bool = False  # read from git for a branch not indexed yet (``overlay.py``)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def of_symbol(
        cls, s: SymbolText, score: float, reason: str, via: str | None = None, overlay: bool = False
    ) -> ContextItem:
        """An item showing a symbol read outside the index (another branch's version, a
        branch not indexed yet), its tokens measured."""
        item = cls(
            id=s.id,
            kind=s.kind,
            qualname=s.qualname,
            path=s.path,
            start_line=s.start_line,
            end_line=s.end_line,
            score=round(score, 4),
            reason=reason,
            text=s.text,
            stale=False,
            reasons=[reason],
            via=via,
            overlay=overlay,
        )
        return dataclasses.replace(item, tokens=estimate_tokens(render_item(item)))


@dataclass(frozen=True, slots=True)
class ContextResult:
    query: str
    repo: str
    branch: str
    indexed_commit: str
    behind_commits: int | None
    items: list[ContextItem]  # rank order, best first (a class outline after its best method shown)
    order: list[str]  # item ids in reading order: definitions before their users
    warnings: list[str]
    tokens: int
    budget_tokens: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "repo": self.repo,
            "branch": self.branch,
            "indexed_commit": self.indexed_commit,
            "behind_commits": self.behind_commits,
            "items": [item.to_dict() for item in self.items],
            "order": list(self.order),
            "warnings": list(self.warnings),
            "tokens": self.tokens,
            "budget_tokens": self.budget_tokens,
        }

    def to_markdown(self) -> str:
        return render_context(self)


def build_context(
    query: str,
    branch: IndexedBranch,
    stores: RetrievalStores,
    sources: BranchSources,
    recency: PathRecency,
    *,
    budget_tokens: int = DEFAULT_BUDGET_TOKENS,
    entries: int = DEFAULT_ENTRIES,
    observe: Observer | None = None,
) -> ContextResult:
    if budget_tokens < 1 or entries < 1:
        raise ValueError("budget_tokens and entries must be positive")
    warnings: list[str] = []
    embedder = stores.embedder
    query_vector = embedder.embed([query])[0] if embedder is not None else None
    hits = search(
        query, branch, stores, k=max(entries * _SEARCH_DEPTH_FACTOR, entries + MATCHES), query_vector=query_vector
    )
    chosen = _choose_entries(hits, entries, warnings)
    result: dict[str, Any] = dict(
        query=query,
        repo=branch.repo,
        branch=branch.branch,
        indexed_commit=branch.indexed_commit,
        behind_commits=branch.behind_commits,
        budget_tokens=budget_tokens,
    )
    if branch.behind_commits:
        warnings.append(
            f"the index is {branch.behind_commits} commits behind {branch.branch}; "
            f"run `branchgraph ingest --branch {branch.branch}`"
        )
    if not chosen:
        warnings.append("nothing in the index matches the query")
        return ContextResult(items=[], order=[], warnings=warnings, tokens=0, **result)

    top = max(hit.score for hit in hits) or 1.0  # all-zero scores: a list weighted 0 found them
    chosen_ids = {hit.id for hit in chosen}
    matches = [hit for hit in hits if hit.id not in chosen_ids and not hit.has_conflict][:MATCHES]
    mentions = FileMentions.of(query)
    found = {hit.id for hit in hits}
    matches += [
        hit for hit in named_file_hits(mentions, branch, stores) if hit.id not in found and not hit.has_conflict
    ]
    rows = stores.graph.expand(branch.repo, branch.branch, [h.qualname for h in chosen])
    candidates, uses, conflicted = gather(
        [(hit, hit.score / top) for hit in chosen], [(hit, hit.score / top) for hit in matches], rows
    )
    dotted = dotted_names(query)
    for c in candidates.values():
        c.qualified = names_symbol(dotted, c.kind, c.qualname)
    similarity = _similarity(stores, branch, query_vector, list(candidates))
    history = recency.history(branch.repo, sources.repo, branch.indexed_commit)
    about_support = asks_about_support(query)
    final_scores(candidates, similarity, history.ago, SIMILARITY_WEIGHT, about_support)
    _learned_scores(
        list(candidates.values()), similarity, history, about_support, content_terms(query), mentions, observe
    )
    demote_copies_of_candidates(list(candidates.values()))
    if conflicted:
        warnings.append(f"{conflicted} related symbols with unresolved merge conflicts were left out")
    merge_overloads(candidates)
    candidates = _shortlist(candidates, SHORTLIST)
    _fetch_members(stores, candidates)
    read_texts(candidates, sources, warnings)
    fold_nested(candidates)
    stale = sorted({c.path for c in candidates.values() if c.stale})
    if stale:
        warnings.append(
            f"{len(stale)} files changed since indexing ({', '.join(stale[:5])}{', ...' if len(stale) > 5 else ''}); "
            "their symbols were relocated by re-parsing and are flagged stale"
        )

    kept, dropped = _fit_budget(list(candidates.values()), budget_tokens)
    tokens = sum(c.tokens for c in kept)
    if dropped:
        warnings.append(f"{dropped} lower-ranked items left out to fit {budget_tokens} tokens")
    cut = [c.qualname for c in kept if c.truncated]
    if cut:
        warnings.append(f"{', '.join(cut)} shown in part (first lines only) to fit {budget_tokens} tokens")
    if tokens > budget_tokens:
        warnings.append(
            f"the entry symbols and the items connecting them need {tokens} tokens, over the budget of {budget_tokens}"
        )
    items = [_item(c) for c in _outlines_after_members(kept)]
    return ContextResult(items=items, order=reading_order(kept, uses), warnings=warnings, tokens=tokens, **result)


def _learned_scores(
    candidates: list[Candidate],
    similarity: dict[str, float],
    history: PathHistory,
    about_support: bool,
    question_words: list[str],
    mentions: FileMentions,
    observe: Observer | None,
) -> None:
    """Rank by the shipped learned model (``learned.py``) when there is one: each candidate's
    score becomes its probability of being what the question is about. ``observe`` sees
    every candidate with its features first (``bench/fit_ranker.py`` fits the model so)."""
    ranker = shipped_ranker() if USE_LEARNED_RANKER else None
    if observe is None and ranker is None:
        return
    matrix = feature_matrix(candidates, similarity, history, about_support, question_words, mentions)
    if observe is not None:
        observe(candidates, matrix)
    if ranker is not None and len(candidates):
        # The model's data (Python projects) held no generated code, so it gives the feature no
        # weight: bundles (``dist/axios.js``) and minified files, copies of the source a task
        # changes, ranked as high as that source. The hand-tuned factor ranks them down.
        generated = matrix[:, FEATURES.index("generated")]
        for c, p, g in zip(candidates, ranker.probabilities(matrix), generated, strict=True):
            c.score = float(p) * (PENALTY if g else 1.0)


def _shortlist(candidates: dict[str, Candidate], limit: int) -> dict[str, Candidate]:
    """The ``limit`` best candidates, plus every entry and every item a kept one hangs from:
    reading the text of candidates that could never fit a budget cost most of a context's
    time once search matches were ranked by the learned model (django p50 59 ms -> see README)."""
    ranked = sorted(candidates.values(), key=lambda c: (-c.score, c.qualname))
    kept = {c.id: c for c in ranked[:limit]}
    kept.update((c.id, c) for c in ranked if c.is_entry)
    pending = [c.parent for c in kept.values() if c.parent]
    while pending:
        parent = candidates.get(pending.pop())
        if parent is not None and parent.id not in kept:
            kept[parent.id] = parent
            if parent.parent:
                pending.append(parent.parent)
    return kept


def _fit_budget(candidates: list[Candidate], budget_tokens: int) -> tuple[list[Candidate], int]:
    """The candidates that fit the budget, best first, each with its token count; and how
    many were dropped."""
    kept = sorted(candidates, key=lambda c: (-c.score, c.qualname))
    dropped: list[Candidate] = []
    for _ in range(_TRIM_ROUNDS):
        for c in kept:
            c.tokens = _rendered_tokens(c)
            if c.tokens > budget_tokens:
                # Alone over the whole budget (a minified bundle, a 2,000-line function): cut
                # to half of it before anything is dropped. Cut last, it took the whole answer
                # once everything else had been dropped to make room for it.
                _cut(c, budget_tokens // 2)
        if sum(c.tokens for c in kept) <= budget_tokens:
            break
        kept = trim_to_budget(kept, budget_tokens, on_drop=dropped.append)
        # Outlines regain the signatures of methods just dropped, which costs a few tokens:
        # measure again, and trim again if that tipped the total over.
        write_outlines(kept)
    for c in kept:
        c.tokens = _rendered_tokens(c)
    _cut_to_fit(kept, budget_tokens)
    return kept, len(dropped)


def _rendered_tokens(c: Candidate) -> int:
    """What the candidate costs as rendered: its text with its header."""
    return estimate_tokens(render_item(_item(c)))


# A cut item keeps at least its first lines' worth (its signature and docstring); the line
# saying what was left out, and the header's note, take about this many tokens.
_MIN_CUT_TOKENS = 64
_CUT_NOTE_TOKENS = 32


def _cut_to_fit(kept: list[Candidate], budget_tokens: int) -> None:
    """When what cannot be dropped (the best entry and what connects it) is still over the
    budget, cut the longest of those items to their first lines until the whole fits: a
    minified bundle or a 2,000-line function must not turn an 8,000-token answer into 30,000."""
    for c in sorted(kept, key=lambda c: (-c.tokens, c.qualname)):
        over = sum(k.tokens for k in kept) - budget_tokens
        if over <= 0:
            return
        _cut(c, c.tokens - over)


def _cut(c: Candidate, target_tokens: int) -> None:
    """Cut ``c`` to its first lines (and a long line to its start) so that it costs about
    ``target_tokens``, or ``_MIN_CUT_TOKENS`` if that is more."""
    lines = c.text.splitlines()
    target = max(target_tokens, _MIN_CUT_TOKENS)
    text_room = (target - _CUT_NOTE_TOKENS - (c.tokens - estimate_tokens(c.text))) * CHARS_PER_TOKEN
    shown: list[str] = []
    used = 0
    for line in lines:
        room = text_room - used
        if room <= 0:
            break
        shown.append(line[:room])  # a minified file is one long line
        used += len(shown[-1]) + 1
    if shown == lines:
        return
    left_out = len(lines) - len(shown) + (shown[-1] != lines[len(shown) - 1] if shown else 0)
    c.text = "\n".join(shown) + f"\n... ({left_out} more lines left out to fit the budget)"
    c.truncated = True
    c.tokens = _rendered_tokens(c)


def _outlines_after_members(kept: list[Candidate]) -> list[Candidate]:
    """Rank order, with each class outline right after the best of its methods shown: the
    outline is the map around the method a question is about, and ahead of it, it took one of
    the first places from code (two of the top 10 on the tuning half of bench/real_tasks.py).
    A class the question names keeps its place."""
    out = list(kept)
    for c in kept:
        if not c.outline or c.named or c.qualified:
            continue
        at = out.index(c)
        member = next((i for i in range(at + 1, len(out)) if _member_of(out[i], c)), None)
        if member is not None:
            out.insert(member, out.pop(at))  # the pop shifts the member up one: it lands after it
    return out


def _member_of(item: Candidate, outline: Candidate) -> bool:
    """Whether ``item`` is code of the outlined type: inside its span, or a method continuing
    its name from outside it (Go declares a struct's methods apart from the struct, in any file
    of its package)."""
    if item.outline:
        return False
    if item.qualname.startswith(outline.qualname + ".") and item.kind == "Method":
        return True
    return (
        item.path == outline.path
        and outline.span.start_line <= item.span.start_line
        and item.span.end_line <= outline.span.end_line
    )


def _fetch_members(stores: RetrievalStores, candidates: dict[str, Candidate]) -> None:
    """Members of the classes that came from search (expansion rows carry theirs): an outline
    built from them needs no decoding of the file's whole parse (13 ms a django question)."""
    ids = [c.id for c in candidates.values() if c.kind == "Class" and c.members is None]
    for class_id, members in stores.graph.class_members(ids).items():
        candidates[class_id].members = members


def _similarity(
    stores: RetrievalStores, branch: IndexedBranch, query_vector: np.ndarray | None, ids: list[str]
) -> dict[str, float]:
    """Cosine similarity of each candidate's stored vector to the query's."""
    embedder = stores.embedder
    if embedder is None or query_vector is None:
        return {}
    return stores.rows.node_similarities(branch.repo, branch.branch, embedder.model_id, query_vector, ids)


def _choose_entries(hits: list[SearchHit], entries: int, warnings: list[str]) -> list[SearchHit]:
    """The best hits without merge conflicts, unless only conflicted symbols match the query.

    "Match" means the query's words or an identifier of it hit the symbol's name or text:
    vector search always returns *something*, so its nearest neighbours alone do not count.
    """
    clean = [hit for hit in hits if not hit.has_conflict]
    matching = [hit for hit in hits if hit.lexical_rank is not None or hit.exact]
    if not any(not hit.has_conflict for hit in matching) and any(hit.has_conflict for hit in matching):
        torn = [hit for hit in matching if hit.has_conflict]
        warnings.append(
            "only symbols with unresolved merge conflicts match the query; they are included and their "
            f"text holds conflict markers: {', '.join(hit.qualname for hit in torn[:entries])}"
        )
        return (torn + clean)[:entries]
    if hits and not clean:
        warnings.append("every symbol that matches has unresolved merge conflicts; their text holds conflict markers")
        return hits[:entries]
    return clean[:entries]


def _item(c: Candidate) -> ContextItem:
    return ContextItem(
        id=c.id,
        kind=c.kind,
        qualname=c.qualname,
        path=c.path,
        start_line=c.span.start_line,
        end_line=c.span.end_line,
        score=round(c.score, 4),
        reason=c.reason,
        text=c.text,
        stale=c.stale,
        outline=c.outline,
        truncated=c.truncated,
        reasons=list(dict.fromkeys(c.reasons)),
        via=c.parent,
        folded=list(c.folded),
        tokens=c.tokens,
    )
