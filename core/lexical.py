"""Identifier-split text for PostgreSQL full-text search.

``get_user_by_id`` -> ``get user by id getuserbyid`` and ``parseConfigFile`` ->
``parse config file parseconfigfile``, so a symbol is found by its parts and as a whole. The
whole is written without underscores because PostgreSQL's text parser splits words at them
(a whole ``get_user_by_id`` would only repeat its parts); so ``parse_config_file`` and
``parseConfigFile`` share one. Ingest (documents) and retrieval (queries) must split the same
way, hence one function here.
"""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def split_identifier(word: str) -> list[str]:
    """The lower-cased parts of one identifier, without the whole."""
    parts: list[str] = []
    for chunk in word.split("_"):
        parts.extend(p.lower() for p in _CAMEL.findall(chunk))
    return parts


def lexical_text(*texts: str) -> str:
    """Every identifier of ``texts`` as its parts followed by the identifier itself (lower
    case, without underscores), when that differs from its only part."""
    out: list[str] = []
    for text in texts:
        for word in _WORD.findall(text or ""):
            out.extend(_identifier_terms(word))
    return " ".join(out)


@lru_cache(maxsize=1 << 18)
def _identifier_terms(word: str) -> tuple[str, ...]:
    """``lexical_text`` of one identifier. Memoised: a repository's identifiers repeat, and
    splitting each occurrence again was most of the embed stage on django (documents of its
    40,000 symbols: 28 s of 46 s, profiled)."""
    parts = split_identifier(word)
    whole = word.lower().replace("_", "")
    if whole and (len(parts) != 1 or parts[0] != whole):
        return (*parts, whole)
    return tuple(parts)


# Words a question is made of but no identifier is about. Left in, they match most rows and
# full-text ranking of every match dominates query time (measured on django: 310 ms a query).
_STOPWORDS = frozenset(
    "a an and are as at be been but by can could did do does for from has have how i if in into is it its "
    "me my not of on or should so than that the their them then there these they this to was we what when "
    "where which while who why will with would you your".split()
)


def is_stopword(word: str) -> bool:
    return word.lower() in _STOPWORDS


# Words joined by hyphens: a question writes identifiers kebab-case (a command-line option
# ``--skip-magic-trailing-comma``, ``f-string``) where the code has ``skip_magic_trailing_comma``
# or ``fstring``.
_HYPHENATED = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+")


def query_terms(query: str) -> list[str]:
    """The full-text terms of a query: its identifier-split words without stopwords (all of
    them, when the query is nothing but stopwords), and each hyphenated word also as one
    (``f-string`` is ``fstring`` too)."""
    joined = [w.replace("-", "").lower() for w in _HYPHENATED.findall(query or "") if not w.replace("-", "").isdigit()]
    words = sorted(set(lexical_text(query).split()) | set(joined))
    kept = [w for w in words if w not in _STOPWORDS]
    return kept or words
