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


class Trimmable(Protocol):
    id: str
    score: float
    parent: str | None  # the included node that connects this one to its entry
    is_entry: bool  # an entry symbol: part of the spine
    tokens: int


T = TypeVar("T", bound=Trimmable)


def trim_to_budget(items: Sequence[T], budget: int, on_drop: Callable[[T], None] | None = None) -> list[T]:
    """Drop the lowest-scoring leaves until the items fit ``budget``.

    The spine stays: entries and every item another kept item hangs from. A
    parent becomes a leaf, and so droppable, once everything hanging from it is gone. When the
    spine alone exceeds the budget the spine is returned as it is; the caller warns.
    """
    kept = {item.id: item for item in items}
    total = sum(item.tokens for item in items)
    while total > budget:
        parents = {item.parent for item in kept.values() if item.parent is not None}
        leaves = [item for item in kept.values() if not item.is_entry and item.id not in parents]
        if not leaves:
            break
        drop = min(leaves, key=lambda item: (item.score, -item.tokens, item.id))
        del kept[drop.id]
        total -= drop.tokens
        if on_drop is not None:
            on_drop(drop)
    return [item for item in items if item.id in kept]
