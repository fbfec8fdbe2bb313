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
elided_body = ": ..."  # a member's body in a class outline, as a stub writes it


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
            # `if (user := find(uid)):` holds from the test on, its own statement's body too.
            first = (
                name.start_point[0] + 1 if name.parent is not None and name.parent.type == "named_expression" else None
            )
            reach = [first or node.end_point[0] + 2, parent.end_point[0] + 1]
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


# Where a name is bound again: the field of each statement that binds it.
_BINDING_FIELDS = {
    "assignment": "left",
    "augmented_assignment": "left",
    "for_statement": "left",
    "for_in_clause": "left",
    "named_expression": "name",
    "as_pattern": "alias",
    "function_definition": "name",
    "class_definition": "name",
}
# What a bound name may sit inside within that field (`a, (b, c) = ...`, `with f() as (a, b)`).
_PATTERNS = frozenset(
    {"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "parenthesized_expression"}
    | {"list_splat_pattern", "as_pattern_target", "expression_list"}
)


def narrowing_reach(guarded: Node | None, test: Node | None, subject: Node) -> list[int] | None:
    """Where an ``isinstance(subject, T)`` test surely holds, as lines [first, last]: the block
    it ``guarded`` (``if isinstance(...):``), or the rest of the block after the ``test``
    statement (``assert isinstance(...)``, ``if not isinstance(...): return``), up to the line
    before the subject is bound again (``del`` included) — before the loop that binds it, when
    one does (it comes round to its start with the new value). None when that leaves nothing."""
    if guarded is not None:
        scanned = [guarded]
        reach = [guarded.start_point[0] + 1, guarded.end_point[0] + 1]
    else:
        holder = test.parent if test is not None else None
        if test is None or holder is None or holder.type not in ("block", "module"):
            return None
        scanned = [n for n in holder.children if n.start_byte >= test.end_byte]
        reach = [test.end_point[0] + 2, holder.end_point[0] + 1]
    name = subject.text
    stack = list(scanned)
    while stack:
        node = stack.pop()
        if node.type == subject.type and node.text == name and _is_bound(node):
            reach[1] = min(reach[1], _first_line_bound(node, scanned) - 1)
        stack.extend(node.children)
    return reach if reach[0] <= reach[1] else None


def _first_line_bound(node: Node, scanned: list[Node]) -> int:
    """The first line where a binding at ``node`` may be what the name holds: its own, or
    the start of the outermost loop around it within ``scanned``."""
    line = node.start_point[0] + 1
    roots = {n.id for n in scanned}
    current: Node | None = node
    while current is not None and current.id not in roots:
        if current.type in _LOOPS:
            line = current.start_point[0] + 1
        current = current.parent
    return line


def _is_bound(node: Node) -> bool:
    """Whether a name (or ``self.x``) node is where a statement binds it."""
    child, parent = node, node.parent
    while parent is not None and parent.type in _PATTERNS:
        child, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type == "delete_statement":
        return True
    binding_field = _BINDING_FIELDS.get(parent.type)
    bound = parent.child_by_field_name(binding_field) if binding_field else None
    return bound is not None and bound.id == child.id
