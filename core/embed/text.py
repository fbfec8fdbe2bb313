"""The enriched text embedded for a symbol: where it lives, what it is, what it says."""

from __future__ import annotations

MAX_BODY_CHARS = 1_500


def enriched_text(
    *,
    path: str,
    label: str,
    qualname: str,
    signature: str,
    docstring: str,
    body: str,
    enclosing_class: str | None = None,
) -> str:
    """Path, kind and qualname, enclosing class, signature, docstring, body (truncated)."""
    lines = [f"path: {path}", f"{label.lower()}: {qualname}"]
    if enclosing_class:
        lines.append(f"class: {enclosing_class}")
    if signature:
        lines.append(signature)
    if docstring:
        lines.append(docstring.strip())
    lines.append(body[:MAX_BODY_CHARS])
    return "\n".join(lines)
