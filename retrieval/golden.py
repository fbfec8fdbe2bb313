"""Recall of a retrieval function on a golden set: questions annotated with the symbols a
developer needs. Shared by the benchmark and the CI floor test."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class GoldenSet:
    package: str
    version: str
    questions: list[tuple[str, frozenset[str]]]

    @classmethod
    def load(cls, path: Path) -> GoldenSet:
        data = json.loads(Path(path).read_text("utf-8"))
        return cls(data["package"], data["version"], [(q["q"], frozenset(q["symbols"])) for q in data["questions"]])


def recall_at(
    golden: GoldenSet,
    retrieve: Callable[[str, int], list[str] | list[tuple[str, ...]]],
    ks: tuple[int, ...] = (5, 10, 20),
) -> dict[int, float]:
    """Mean over questions of the share of wanted symbols among the top k results. A result
    is a qualname, or a tuple of the qualnames one context item shows (a class in full shows
    its methods): the item takes one place in the ranking."""
    deepest = max(ks)
    totals = dict.fromkeys(ks, 0.0)
    for question, wanted in golden.questions:
        found = [(r,) if isinstance(r, str) else tuple(r) for r in retrieve(question, deepest)]
        for k in ks:
            totals[k] += len(wanted & {name for group in found[:k] for name in group}) / len(wanted)
    return {k: round(total / len(golden.questions), 4) for k, total in totals.items()}


def context_ranking(workspace, question: str) -> list[tuple[str, ...]]:
    """The items of ``context()`` in rank order, with no budget cut, each as the qualnames it
    shows: its own and those folded into it."""
    result = workspace.context(question, budget_tokens=10**7)
    return [(item.qualname, *item.folded) for item in result.items]


def search_ranking(workspace, question: str, k: int, mode: str) -> list[str]:
    return [hit.qualname for hit in workspace.search(question, k=k, mode=mode)]
