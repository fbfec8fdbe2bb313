"""Two branches in one answer, for reviews and migrations: the context of a question on HEAD,
each item beside its BASE version where the two differ, and what only one side has.

Both answers are built as usual; a symbol one answer holds and the other does not is looked
up on the other branch by qualified name (``Lookup``), so "only on HEAD" means the symbol is
not on BASE at all, not merely that BASE's answer ranked it lower.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from branchgraph.core.model import SymbolText
from branchgraph.retrieval.context import ContextItem, ContextResult
from branchgraph.retrieval.render import render_item

SAME, CHANGED, ONLY_HEAD, ONLY_BASE = "same", "changed", "only on HEAD", "only on BASE"

# Qualified names -> the symbols a branch has by those names (absent ones left out).
Lookup = Callable[[Sequence[str]], dict[str, SymbolText]]


@dataclass(frozen=True, slots=True)
class ComparedItem:
    item: ContextItem  # as HEAD has it (as BASE has it, for ONLY_BASE)
    status: str  # SAME, CHANGED, ONLY_HEAD or ONLY_BASE
    base: SymbolText | None = None  # BASE's version, where it differs

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {**self.item.to_dict(), "status": self.status}
        if self.base is not None:
            out["base"] = {
                "path": self.base.path,
                "start_line": self.base.start_line,
                "end_line": self.base.end_line,
                "text": self.base.text,
            }
        return out


@dataclass(frozen=True, slots=True)
class ComparedContext:
    query: str
    repo: str
    head: ContextResult
    base: ContextResult
    items: list[ComparedItem]  # HEAD's items in rank order, then what only BASE has

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "repo": self.repo,
            "head": {"branch": self.head.branch, "indexed_commit": self.head.indexed_commit},
            "base": {"branch": self.base.branch, "indexed_commit": self.base.indexed_commit},
            "items": [i.to_dict() for i in self.items],
            "counts": {s: sum(1 for i in self.items if i.status == s) for s in (SAME, CHANGED, ONLY_HEAD, ONLY_BASE)},
            "warnings": [*self.head.warnings, *(f"{self.base.branch}: {w}" for w in self.base.warnings)],
            "tokens": self.head.tokens + sum(_tokens(i.base.text) for i in self.items if i.base is not None),
        }

    def to_markdown(self) -> str:
        head, base = self.head.branch, self.base.branch
        lines = [
            f"## Context for: {self.query}",
            "",
            f"Repository `{self.repo}`: `{head}` at `{self.head.indexed_commit[:12]}` compared with `{base}` at "
            f"`{self.base.indexed_commit[:12]}`.",
            "",
        ]
        for w in self.to_dict()["warnings"]:
            lines.append(f"> {w}")
        for c in self.items:
            label = {SAME: f"same on {base}", CHANGED: f"differs on {base}", ONLY_HEAD: f"only on {head}"}.get(
                c.status, f"only on {base}"
            )
            lines += ["", f"**{label}**", "", render_item(c.item)]
            if c.base is not None:
                lines += [
                    f"`{base}` version, `{c.base.path}:{c.base.start_line}-{c.base.end_line}`:",
                    "",
                    "```",
                    c.base.text,
                    "```",
                ]
        return "\n".join(lines) + "\n"


def _tokens(text: str) -> int:
    return (len(text) + 3) // 4


def compare_contexts(head: ContextResult, base: ContextResult, on_head: Lookup, on_base: Lookup) -> ComparedContext:
    base_items = {i.qualname: i for i in base.items}
    head_names = {i.qualname for i in head.items}
    base_only = [i for i in base.items if i.qualname not in head_names]
    # An outline shows a class without its method bodies: such a class is compared by its
    # full text on both branches, never outline against full text.
    outlined = {i.qualname for i in [*head.items, *base.items] if i.outline}
    head_full = on_head(sorted({*(i.qualname for i in base_only), *(q for q in outlined if q in head_names)}))
    base_full = on_base(sorted({i.qualname for i in head.items if i.qualname not in base_items} | outlined))
    out: list[ComparedItem] = []
    for item in head.items:
        mine = head_full.get(item.qualname) if item.qualname in outlined else _text_of(item)
        theirs = base_full.get(item.qualname) if item.qualname in base_full else None
        if theirs is None and item.qualname in base_items and item.qualname not in outlined:
            theirs = _text_of(base_items[item.qualname])
        if theirs is None:
            out.append(ComparedItem(item, ONLY_HEAD))
        elif mine is not None and _same(mine.text, theirs.text):
            out.append(ComparedItem(item, SAME))
        else:
            out.append(ComparedItem(item, CHANGED, theirs))
    for item in base_only:
        mine = head_full.get(item.qualname)
        theirs = base_full.get(item.qualname) if item.outline else _text_of(item)
        if mine is None:
            out.append(ComparedItem(item, ONLY_BASE))
        elif theirs is None or not _same(mine.text, theirs.text):
            out.append(ComparedItem(_as_item(mine, item), CHANGED, theirs or _text_of(item)))
    return ComparedContext(head.query, head.repo, head, base, out)


def _text_of(item: ContextItem) -> SymbolText:
    return SymbolText(item.id, item.kind, item.qualname, item.path, item.start_line, item.end_line, item.text)


def _as_item(symbol: SymbolText, like: ContextItem) -> ContextItem:
    """HEAD's version of a symbol BASE's answer chose, shown as HEAD's item."""
    return ContextItem.of_symbol(symbol, like.score, f"in the base's answer ({like.reason})")


def _same(a: str, b: str) -> bool:
    """Equal but for trailing whitespace."""
    return [line.rstrip() for line in a.strip().splitlines()] == [line.rstrip() for line in b.strip().splitlines()]
