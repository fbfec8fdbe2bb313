"""The token budget of a context.

Token estimate: one token per 4 characters of what the item renders to (its Markdown header
and text), rounded up. That is the usual ratio of BPE tokenizers (cl100k, o200k) on English
and source code; it over-counts dense identifiers a little, which errs on the safe side.
No tokenizer is loaded: the estimate must cost nothing next to a query.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


# Which leaf goes first: among the PROTECTED_ITEMS best-scoring items, the lowest-scoring;
# they go last, whatever their size. Before them, the leaf with the least score per token
# spent (score / tokens ** TOKEN_EXPONENT): a long weak item makes room for several short
# ones. On the tuning half of bench/real_tasks.py (8,000 tokens) budget recall 0.781 -> 0.790 at
# an equal recall@10; 1.0 (score per token) lost 0.003, and protecting only 5 items lost 0.015
# recall@10.
TOKEN_EXPONENT = 0.5
PROTECTED_ITEMS = 10
# Whether dropped items that fit the room left are put back (``_refill``).
REFILL = True


def _worth(item: Trimmable) -> float:
    return item.score / max(item.tokens, 1) ** TOKEN_EXPONENT


class Trimmable(Protocol):
    id: str
    score: float
    parent: str | None  # the included node that connects this one to its entry
    is_entry: bool  # an entry symbol: part of the spine
    tokens: int


T = TypeVar("T", bound=Trimmable)


def trim_to_budget(items: Sequence[T], budget: int, on_drop: Callable[[T], None] | None = None) -> list[T]:
    """Drop the weakest leaves (see ``TOKEN_EXPONENT``) until the items fit ``budget``.

    The spine stays: the best-scoring entry and every item another kept item hangs from. A
    parent, or an entry, becomes a leaf, and so droppable, once everything hanging from it is
    gone: an entry that ranked low once every candidate was scored costs no more room than
    any other weak item. When the spine alone exceeds the budget the spine is returned as it
    is; the caller warns. Then what was dropped and fits the room left is put back, best first.
    """
    kept = {item.id: item for item in items}
    total = sum(item.tokens for item in items)
    best = max((item for item in items if item.is_entry), key=lambda item: (item.score, item.id), default=None)
    ranked = sorted(items, key=lambda item: (-item.score, item.id))
    protected = {item.id for item in ranked[:PROTECTED_ITEMS]}
    dropped: list[T] = []
    while total > budget:
        parents = {item.parent for item in kept.values() if item.parent is not None}
        leaves = [item for item in kept.values() if item is not best and item.id not in parents]
        if not leaves:
            break
        drop = min(
            leaves,
            key=lambda item: (
                item.id in protected,
                item.score if item.id in protected else _worth(item),
                -item.tokens,
                item.id,
            ),
        )
        del kept[drop.id]
        total -= drop.tokens
        dropped.append(drop)
    if REFILL:
        _refill(kept, dropped, budget - total)
    if on_drop is not None:
        for item in dropped:
            if item.id not in kept:
                on_drop(item)
    return [item for item in items if item.id in kept]


def _refill(kept: dict[str, T], dropped: list[T], room: int) -> None:
    """Put back, best first, dropped items that fit the ``room`` left and hang from a kept
    one (or from nothing). Dropping goes by worth per token until the total fits, so a
    long item dropped last can leave room for many short ones dropped before it (a 3,000-token
    answer had come back with 1,184)."""
    used = 0
    best_first = sorted(dropped, key=lambda i: (-i.score, i.id))
    restored = True
    while restored:
        restored = False
        for item in best_first:
            if item.id in kept or item.tokens > room - used:
                continue
            if item.parent is not None and item.parent not in kept:
                continue
            kept[item.id] = item
            used += item.tokens
            restored = True  # its own leaves may hang from it
