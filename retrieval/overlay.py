"""Context for a branch that is not indexed yet: the answer on its nearest indexed base,
overlaid with the files the branch changed, as the branch has them.

The base's items from files the branch changed are replaced by the branch's version of the
same symbol (or dropped, when the branch deleted it); symbols only the branch has compete for
a place by how well they match the question, measured the same way for them and for the
base's entries, so a new function the question names gets in and an unrelated one does not.
Every item taken from the branch is flagged ``overlay``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from branchgraph.core.embed import Embedder
from branchgraph.core.lexical import lexical_text
from branchgraph.core.model import SymbolText
from branchgraph.retrieval.context import ContextItem, ContextResult
from branchgraph.retrieval.query import Words, content_terms

OVERLAY_REASON = "changed on this branch (not indexed yet)"
# Weights of the two halves of a match: the question's words the symbol says, and the
# embedding similarity of the two (without an embedder, the words alone).
WORDS_WEIGHT = 0.5


@dataclass(frozen=True, slots=True)
class Overlay:
    branch: str
    head_commit: str
    base_branch: str
    base_commit: str
    hidden: frozenset[str]  # base paths the branch changed, renamed or deleted
    symbols: list[SymbolText]  # the branch's symbols in the files it changed


def overlay_context(
    query: str, base: ContextResult, overlay: Overlay, embedder: Embedder | None, budget_tokens: int
) -> ContextResult:
    by_qualname = {s.qualname: s for s in overlay.symbols}
    items: list[ContextItem] = []
    replaced: set[str] = set()
    for item in base.items:
        if item.path not in overlay.hidden:
            items.append(item)
            continue
        mine = by_qualname.get(item.qualname)
        if mine is None:
            continue  # the branch deleted or renamed it
        replaced.add(mine.qualname)
        items.append(_from_branch(mine, item.score, item.reason, item.via))
    fresh = [s for s in overlay.symbols if s.qualname not in replaced]
    items.extend(_competing(query, fresh, [i for i in base.items if i.reason == "entry"], embedder))
    items, dropped = _fit(items, budget_tokens)
    kept = {i.id for i in items}
    order = [i for i in base.order if i in kept] + [i.id for i in items if i.id not in set(base.order)]
    warnings = [
        *base.warnings,
        f"{overlay.branch} is not indexed yet: answered from {overlay.base_branch} at {overlay.base_commit[:12]} "
        f"overlaid with the {len(overlay.hidden)} files {overlay.branch} changed, read from git at "
        f"{overlay.head_commit[:12]} and parsed now (items flagged `overlay`)",
    ]
    if dropped:
        warnings.append(f"{dropped} lower-ranked items left out to fit {budget_tokens} tokens")
    return dataclasses.replace(
        base,
        branch=overlay.branch,
        items=items,
        order=order,
        warnings=warnings,
        tokens=sum(i.tokens for i in items),
    )


def _from_branch(s: SymbolText, score: float, reason: str, via: str | None) -> ContextItem:
    return ContextItem.of_symbol(s, score, reason, via, overlay=True)


def _competing(
    query: str, fresh: list[SymbolText], entries: list[ContextItem], embedder: Embedder | None
) -> list[ContextItem]:
    """The branch's new symbols that match the question at least as well as the weakest
    entry of the base's answer, scored on the entries' scale; a symbol inside (or around)
    one already taken is left out, so no text shows twice."""
    if not fresh:
        return []
    texts = [(s.qualname, s.text) for s in fresh] + [(e.qualname, e.text) for e in entries]
    matches = _matches(query, texts, embedder)
    mine, theirs = matches[: len(fresh)], matches[len(fresh) :]
    bar = min(theirs) if theirs else 0.0
    best_match = max(theirs, default=0.0) or 1.0
    best_score = max((e.score for e in entries), default=1.0)
    taken: list[ContextItem] = []
    for s, m in sorted(zip(fresh, mine, strict=True), key=lambda pair: -pair[1]):
        if m <= 0 or m < bar or any(_overlaps(s, t) for t in taken):
            continue
        taken.append(_from_branch(s, best_score * min(1.0, m / best_match), OVERLAY_REASON, None))
    return taken


def _overlaps(s: SymbolText, item: ContextItem) -> bool:
    return s.path == item.path and s.start_line <= item.end_line and item.start_line <= s.end_line


def _matches(query: str, texts: list[tuple[str, str]], embedder: Embedder | None) -> list[float]:
    terms = content_terms(query)
    said = []
    for qualname, text in texts:
        document = Words.of(lexical_text(qualname, text).split())
        said.append(sum(1 for t in terms if document.say(t)) / max(len(terms), 1))
    if embedder is None:
        return said
    vectors = embedder.embed([query, *(f"{q}\n{t}" for q, t in texts)])
    q, rest = np.asarray(vectors[0], dtype=np.float32), np.asarray(vectors[1:], dtype=np.float32)
    sims = rest @ q / (np.linalg.norm(rest, axis=1) * (np.linalg.norm(q) or 1.0) + 1e-12)
    return [WORDS_WEIGHT * w + (1 - WORDS_WEIGHT) * max(float(x), 0.0) for w, x in zip(said, sims, strict=True)]


def _fit(items: list[ContextItem], budget_tokens: int) -> tuple[list[ContextItem], int]:
    """The best items that fit the budget (always the best one); how many were left out."""
    ranked = sorted(items, key=lambda i: (-i.score, i.qualname))
    kept: list[ContextItem] = []
    used = 0
    for item in ranked:
        if kept and used + item.tokens > budget_tokens:
            continue
        kept.append(item)
        used += item.tokens
    return kept, len(ranked) - len(kept)
