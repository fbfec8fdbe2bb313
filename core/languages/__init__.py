"""The language registry: file extension -> tree-sitter grammar, tag query and conventions.

Adding a language is one entry here, one conventions module beside this file, a tag query
in ``core/queries/`` and one resolver registered in ``branchgraph.ingest.resolvers``.
Languages that import each other (TypeScript, TSX and JavaScript) share a ``family``: one
resolver sees all their files, and their tag queries share a common part. Grammars come from
the official per-language wheels (``tree-sitter-python``, ...), never downloaded at run time.

Ingest uses the registry to parse and resolve; retrieval uses it to re-parse drifted files and
to tell tests and generated files apart when ranking.
"""

from __future__ import annotations

import fnmatch
import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import ModuleType

from tree_sitter import Language, Node, Parser, Query

from branchgraph.core.languages import ecmascript, go, java, python


@dataclass(frozen=True, slots=True)
class Conventions:
    """The per-language hooks the generic extractor and the ranking call."""

    clean_docstring: Callable[[str], str]  # a captured @doc node's text -> the docstring
    # a definition node and the file's bytes -> its one-line header (read from the bytes: a
    # repaired parse, ``extract._parse``, differs from them by separators)
    signature: Callable[[Node, bytes], str]
    is_test_file: Callable[[str], bool]  # a path where the test runner collects tests
    is_support_file: Callable[[str], bool]  # tests and test-only helpers (ranked down)
    is_generated_file: Callable[[str], bool]  # written by a generator (ranked down)
    is_declaration_file: Callable[[str], bool]  # declarations only, the code is elsewhere (stubs)
    module_name: Callable[[str], str]  # a file's path -> the dotted name its symbols' qualnames start with
    # a definition node and the file's bytes -> the parameter lists it is called with, and what
    # a type alias stands for (languages whose callbacks take their types from them)
    parameter_lists: Callable[[Node, bytes], list[str]] = lambda node, source: []
    aliased_type: Callable[[Node, bytes], str] = lambda node, source: ""
    property_types: Callable[[Node, bytes], list[str]] = lambda node, source: []
    # a bound name's node -> the lines where the binding surely holds and the loops around it
    # (languages whose resolver reads a local's value where it is used)
    binding_reach: Callable[[Node], tuple[list[int], list[list[int]]] | None] = lambda node: None
    # a type test's guarded block, or its statement, and its subject -> where the test holds
    narrowing_reach: Callable[[Node | None, Node | None, Node], list[int] | None] = lambda guarded, test, subject: None
    # the receivers whose attribute assignments are the class's attributes (``self.x = ...``)
    attribute_receivers: frozenset[str] = frozenset({"self", "this"})
    # what follows a member's signature in a class outline, standing for its body
    elided_body: str = " { ... }"
    # Types are nominal (Java): code typed by a library type reaches the repository's code only
    # through an in-repo subtype of it, where duck or structural typing (Python, Go's implicit
    # interfaces, TypeScript) lets a library's call reach anything with the method's name.
    nominal_types: bool = False


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    name: str
    extensions: tuple[str, ...]
    grammar_module: str  # the official grammar wheel's module
    conventions: Conventions
    grammar_function: str = "language"  # what in the module returns the grammar
    queries: tuple[str, ...] = ()  # tag query files in core/queries/, concatenated (default: <name>.scm)
    family: str = ""  # languages resolved together (default: the language alone)
    # Files a resolver reads beside the sources (module maps, path aliases), as name patterns.
    project_files: tuple[str, ...] = ()

    @property
    def resolver(self) -> str:
        return self.family or self.name


# The hooks only languages whose callbacks take types from what they are passed to define.
_TYPE_HOOKS = ("parameter_lists", "aliased_type", "property_types")


def _conventions(module: ModuleType) -> Conventions:
    return Conventions(
        clean_docstring=module.clean_docstring,
        signature=module.signature,
        is_test_file=module.is_test_file,
        is_support_file=module.is_support_file,
        is_generated_file=module.is_generated_file,
        is_declaration_file=module.is_declaration_file,
        module_name=module.module_name,
        **{
            hook: getattr(module, hook)
            for hook in (
                *_TYPE_HOOKS,
                "binding_reach",
                "narrowing_reach",
                "attribute_receivers",
                "elided_body",
                "nominal_types",
            )
            if hasattr(module, hook)
        },
    )


def _ecmascript(
    name: str, extensions: tuple[str, ...], grammar: str, function: str, queries: tuple[str, ...]
) -> LanguageSpec:
    """A member of the ECMAScript family: its conventions, the shared part of the tag query,
    and the project files (tsconfig.*.json: what a tsconfig.json `extends` is often called)."""
    return LanguageSpec(
        name,
        extensions,
        grammar,
        _conventions(ecmascript),
        grammar_function=function,
        queries=("ecmascript", *queries),
        family="ecmascript",
        project_files=("package.json", "tsconfig*.json", "jsconfig*.json"),
    )


LANGUAGES = (
    LanguageSpec("python", (".py", ".pyi"), "tree_sitter_python", _conventions(python)),
    _ecmascript(
        "typescript", (".ts", ".mts", ".cts"), "tree_sitter_typescript", "language_typescript", ("typescript",)
    ),
    _ecmascript("tsx", (".tsx",), "tree_sitter_typescript", "language_tsx", ("typescript", "jsx")),
    _ecmascript(
        "javascript", (".js", ".jsx", ".mjs", ".cjs"), "tree_sitter_javascript", "language", ("javascript", "jsx")
    ),
    # go.mod names the module: its path is the prefix of the repository's import paths.
    LanguageSpec("go", (".go",), "tree_sitter_go", _conventions(go), project_files=("go.mod",)),
    LanguageSpec("java", (".java",), "tree_sitter_java", _conventions(java)),
)
_PROJECT_FILE = re.compile("|".join(fnmatch.translate(p) for spec in LANGUAGES for p in spec.project_files))


def is_project_file(path: str) -> bool:
    """Whether a resolver reads this file beside the sources (``package.json``, ``tsconfig.json``)."""
    return bool(_PROJECT_FILE.match(path.rsplit("/", 1)[-1]))


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
    spec = language_named(name)
    module = importlib.import_module(spec.grammar_module)
    return Language(getattr(module, spec.grammar_function)())


@cache
def tag_query(name: str) -> Query:
    queries = resources.files("branchgraph.core").joinpath("queries")
    parts = language_named(name).queries or (name,)
    return Query(ts_language(name), "\n".join(queries.joinpath(f"{part}.scm").read_text("utf-8") for part in parts))


def new_parser(name: str) -> Parser:
    return Parser(ts_language(name))
