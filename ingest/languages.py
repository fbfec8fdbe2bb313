"""The languages branchgraph parses: extension -> tree-sitter grammar and tag query.

Grammars come from the official per-language wheels (``tree-sitter-python``, ...), never
downloaded at run time. Queries live in ``ingest/queries/<language>.scm``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from importlib import resources

from tree_sitter import Language, Parser, Query


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    name: str
    extensions: tuple[str, ...]
    grammar_module: str


LANGUAGES = (LanguageSpec("python", (".py", ".pyi"), "tree_sitter_python"),)

_BY_EXTENSION = {ext: spec for spec in LANGUAGES for ext in spec.extensions}


def language_for_path(path: str) -> LanguageSpec | None:
    """The language of a path by its extension, or None when branchgraph does not parse it."""
    dot = path.rfind(".")
    if dot < 0 or "/" in path[dot:]:
        return None
    return _BY_EXTENSION.get(path[dot:].lower())


@cache
def ts_language(name: str) -> Language:
    spec = next(s for s in LANGUAGES if s.name == name)
    module = importlib.import_module(spec.grammar_module)
    return Language(module.language())


@cache
def tag_query(name: str) -> Query:
    source = resources.files("branchgraph.ingest").joinpath("queries", f"{name}.scm").read_text("utf-8")
    return Query(ts_language(name), source)


def new_parser(name: str) -> Parser:
    return Parser(ts_language(name))
