"""The language registry: file extension -> tree-sitter grammar, tag query and conventions.

Adding a language is one entry here, one conventions module beside this file, one
``core/queries/<language>.scm`` tag query and one resolver registered in
``branchgraph.ingest.resolvers``. Grammars come from the official per-language wheels
(``tree-sitter-python``, ...), never downloaded at run time.

Ingest uses the registry to parse and resolve; retrieval uses it to re-parse drifted files and
to tell tests and generated files apart when ranking.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources

from tree_sitter import Language, Node, Parser, Query

from branchgraph.core.languages import python


@dataclass(frozen=True, slots=True)
class Conventions:
    """The per-language hooks the generic extractor and the ranking call."""

    clean_docstring: Callable[[str], str]  # a captured @doc node's text -> the docstring
    signature: Callable[[Node], str]  # a definition node -> its one-line header
    is_test_file: Callable[[str], bool]  # a path where the test runner collects tests
    is_support_file: Callable[[str], bool]  # tests and test-only helpers (ranked down)
    is_generated_file: Callable[[str], bool]  # written by a generator (ranked down)
    is_declaration_file: Callable[[str], bool]  # declarations only, the code is elsewhere (stubs)
    module_name: Callable[[str], str]  # a file's path -> the dotted name its symbols' qualnames start with


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    name: str
    extensions: tuple[str, ...]
    grammar_module: str  # the official grammar wheel's module; it exposes ``language()``
    conventions: Conventions


LANGUAGES = (
    LanguageSpec(
        "python",
        (".py", ".pyi"),
        "tree_sitter_python",
        Conventions(
            clean_docstring=python.clean_docstring,
            signature=python.signature,
            is_test_file=python.is_test_file,
            is_support_file=python.is_support_file,
            is_generated_file=python.is_generated_file,
            is_declaration_file=python.is_declaration_file,
            module_name=python.module_name,
        ),
    ),
)

_BY_NAME = {spec.name: spec for spec in LANGUAGES}
_BY_EXTENSION = {ext: spec for spec in LANGUAGES for ext in spec.extensions}


def language_for_path(path: str) -> LanguageSpec | None:
    """The language of a path by its extension, or None when branchgraph does not parse it."""
    dot = path.rfind(".")
    if dot < 0 or "/" in path[dot:]:
        return None
    return _BY_EXTENSION.get(path[dot:].lower())


def language_named(name: str) -> LanguageSpec:
    return _BY_NAME[name]


def is_support_path(path: str) -> bool:
    """Whether the file's language calls it a test or a test-only helper."""
    spec = language_for_path(path)
    return spec is not None and spec.conventions.is_support_file(path)


def is_generated_path(path: str) -> bool:
    """Whether the file's language calls it generated."""
    spec = language_for_path(path)
    return spec is not None and spec.conventions.is_generated_file(path)


def is_declaration_path(path: str) -> bool:
    """Whether the file only declares what is implemented elsewhere (a type stub)."""
    spec = language_for_path(path)
    return spec is not None and spec.conventions.is_declaration_file(path)


@cache
def ts_language(name: str) -> Language:
    module = importlib.import_module(language_named(name).grammar_module)
    return Language(module.language())


@cache
def tag_query(name: str) -> Query:
    source = resources.files("branchgraph.core").joinpath("queries", f"{name}.scm").read_text("utf-8")
    return Query(ts_language(name), source)


def new_parser(name: str) -> Parser:
    return Parser(ts_language(name))
