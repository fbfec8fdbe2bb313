"""Identifier-split text for PostgreSQL full-text search.

``get_user_by_id`` -> ``get user by id get_user_by_id`` and ``parseConfigFile`` ->
``parse config file parseconfigfile``, so a symbol is found by its parts and as a whole.
Ingest (documents) and retrieval (queries) must split the same way, hence one function here.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def split_identifier(word: str) -> list[str]:
    """The lower-cased parts of one identifier, without the whole."""
    parts: list[str] = []
    for chunk in word.split("_"):
        parts.extend(p.lower() for p in _CAMEL.findall(chunk))
    return parts


def lexical_text(*texts: str) -> str:
    """Every identifier of ``texts`` as its parts followed by the identifier itself."""
    out: list[str] = []
    for text in texts:
        for word in _WORD.findall(text or ""):
            parts = split_identifier(word)
            out.extend(parts)
            whole = word.lower()
            if len(parts) != 1 or parts[0] != whole:
                out.append(whole)
    return " ".join(out)
