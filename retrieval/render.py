"""Markdown for a context: ready to paste into a prompt. The token estimate of an item is
taken over exactly what ``render_item`` prints, so the budget is the budget of this text."""

from __future__ import annotations

from branchgraph.core.languages import language_for_path


def render_item(item) -> str:
    language = language_for_path(item.path)
    fence = "```" + (language.name if language else "")
    notes = [item.kind, f"score {item.score:.2f}"]
    if item.outline:
        notes.append("outline: bodies left out")
    if item.truncated:
        notes.append("TRUNCATED: first lines only, to fit the budget")
    if item.stale:
        notes.append("STALE: the file changed since it was indexed")
    if item.overlay:
        notes.append("OVERLAY: the branch's version, not indexed yet")
    header = f"### `{item.qualname}` — {item.reason}\n`{item.path}:{item.start_line}-{item.end_line}` · " + " · ".join(
        notes
    )
    return f"{header}\n\n{fence}\n{item.text}\n```\n"


def render_context(result) -> str:
    lines = [f"## Context for: {result.query}", ""]
    status = f"Repository `{result.repo}`, branch `{result.branch}`, indexed at `{result.indexed_commit[:12]}`"
    if result.behind_commits:
        status += f" ({result.behind_commits} commits behind the branch head)"
    elif result.behind_commits is None:
        status += " (the branch head is unknown to git)"
    lines.append(f"{status}; {len(result.items)} items, about {result.tokens} tokens.")
    lines.append("")
    for warning in result.warnings:
        lines.append(f"> **Warning:** {warning}")
    if result.warnings:
        lines.append("")
    by_id = {item.id: item for item in result.items}
    # Reading order: definitions before the code that uses them.
    for item_id in result.order:
        lines.append(render_item(by_id[item_id]))
    return "\n".join(lines).rstrip() + "\n"
