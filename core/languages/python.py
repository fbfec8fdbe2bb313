"""Python's conventions: what a docstring and a signature look like, where tests live,
which files are generated. Pure functions of a syntax node or a path."""

from __future__ import annotations

import re

from tree_sitter import Node

_STRING_PREFIXES = ("r", "u", "b", "R", "U", "B")
_QUOTES = ('"""', "'''", '"', "'")
_GENERATED = re.compile(r"_pb2(_grpc)?\.pyi?$")
# `cls.engine = Engine()` in a classmethod (unittest's `setUpClass`) sets what `self.engine`
# reads in every method, as `self.engine = ...` does.
attribute_receivers = frozenset({"self", "cls"})


def clean_docstring(text: str) -> str:
    """The text of a string literal captured as a docstring, without prefix and quotes."""
    for prefix in _STRING_PREFIXES:
        if text.startswith(prefix):
            text = text[1:]
            break
    for quote in _QUOTES:
        if text.startswith(quote) and text.endswith(quote) and len(text) >= 2 * len(quote):
            return text[len(quote) : -len(quote)].strip()
    return text.strip()


def signature(node: Node, source: bytes) -> str:
    """A definition's header up to its body, on one line, without the trailing colon."""
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None else node.end_byte
    header = source[node.start_byte : end].decode("utf-8", "replace")
    return " ".join(header.rstrip().rstrip(":").split())


def is_test_file(path: str) -> bool:
    """A file pytest collects tests from: ``test_*.py`` or ``*_test.py``."""
    name = path.rsplit("/", 1)[-1]
    return (name.startswith("test_") or name.endswith("_test.py")) and name.endswith(".py")


def is_support_file(path: str) -> bool:
    """Tests and what only tests use (``conftest.py`` fixtures, ``*_tests.py`` suites)."""
    name = path.rsplit("/", 1)[-1]
    return is_test_file(path) or name == "conftest.py" or name.endswith("_tests.py")


def is_declaration_file(path: str) -> bool:
    """A type stub (``.pyi``): signatures of code that lives in a ``.py`` file or a library."""
    return path.endswith(".pyi")


def is_generated_file(path: str) -> bool:
    """Code written by a generator (protobuf/gRPC stubs)."""
    return bool(_GENERATED.search(path))


def module_name(path: str) -> str:
    """The importable dotted name of a module file.

    The source root is a ``src/`` layout root when the path has one, else the repository
    root: ``src/shop/billing/__init__.py`` -> ``shop.billing``.
    """
    stem = path.rsplit(".", 1)[0]
    parts = stem.split("/")
    if "src" in parts[:-1]:
        parts = parts[parts.index("src") + 1 :]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


_LOOPS = ("for_statement", "while_statement")
_SCOPE_NODES = ("function_definition", "class_definition", "lambda", "module")


def binding_reach(name: Node) -> tuple[list[int], list[list[int]]] | None:
    """Where a local bound at ``name`` surely holds what it was bound to, as lines [first,
    last]: the rest of the block its statement is in (a parameter: the function's body; a
    ``for``, ``with`` or ``except`` target: that statement's body; a comprehension's target:
    the comprehension, from its first line), and the spans of the loops around it
    in its function (a later binding inside a loop reaches the loop's start again). None for
    a binding this cannot place."""
    node: Node | None = name
    reach: list[int] | None = None
    while node is not None and node.parent is not None:
        parent = node.parent
        kind = parent.type
        if kind in ("parameters", "lambda_parameters"):
            function = parent.parent
            body = function.child_by_field_name("body") if function is not None else None
            if body is None:
                return None
            reach = [body.start_point[0] + 1, body.end_point[0] + 1]
            node = function
            break
        if kind in ("for_statement", "with_statement", "except_clause") and node.type != "block":
            body = parent.child_by_field_name("body") or next((c for c in parent.children if c.type == "block"), None)
            if body is None:
                return None
            reach = [body.start_point[0] + 1, body.end_point[0] + 1]
            node = parent
            break
        if kind == "for_in_clause" and parent.parent is not None:
            # A comprehension's target holds within the comprehension only, on its own lines too.
            node = parent.parent
            reach = [node.start_point[0] + 1, node.end_point[0] + 1]
            break
        if kind in ("block", "module"):
            reach = [node.end_point[0] + 2, parent.end_point[0] + 1]
            break
        if kind in _SCOPE_NODES:
            return None
        node = parent
    if reach is None or node is None:
        return None
    loops: list[list[int]] = []
    while node is not None and node.type not in _SCOPE_NODES:
        if node.type in _LOOPS:
            loops.append([node.start_point[0] + 1, node.end_point[0] + 1])
        node = node.parent
    return reach, loops
