"""TypeScript's and JavaScript's conventions (one module: the two share syntax, tests and
module layout). Pure functions of a syntax node or a path."""

from __future__ import annotations

import re

from tree_sitter import Node

# Extensions in the order a module specifier without one is tried (TypeScript's own order,
# then JavaScript's); `.d.ts` after `.ts`, so a declaration file stands in only for code
# that is not in the repository.
SOURCE_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")

_TEST_FILE = re.compile(r"\.(test|spec)\.[cm]?[jt]sx?$")
_SUPPORT_DIR = re.compile(r"(^|/)(__tests__|__mocks__|__fixtures__|test|tests|e2e|cypress)/")
_SUPPORT_FILE = re.compile(
    r"(^|/)(setupTests|jest\.setup|vitest\.setup|test-utils?)\.[cm]?[jt]sx?$|\.mock\.[cm]?[jt]sx?$"
)
_GENERATED = re.compile(
    r"\.min\.[cm]?js$|(\.generated|\.gen|_pb|_grpc_pb|\.pb)\.(d\.)?[cm]?[jt]sx?$|(^|/)(dist|build|out)/.*\.[cm]?js$"
)
_DECLARATION = re.compile(r"\.d\.[cm]?ts$")
_STRIP_EXTENSION = re.compile(r"(\.d)?\.[cm]?[jt]sx?$")


def clean_docstring(text: str) -> str:
    """A JSDoc block (``/** ... */``) without its delimiters and leading asterisks."""
    text = text.strip()
    if text.startswith("/*"):
        text = text[3:] if text.startswith("/**") else text[2:]
        text = text.removesuffix("*/")
    lines = [line.strip().removeprefix("*").strip() for line in text.splitlines()]
    return "\n".join(lines).strip()


def _definition_body(node: Node) -> Node | None:
    """The part of a definition that is not its header: a body block, or the expression an
    arrow function returns."""
    if node.type in ("variable_declarator", "public_field_definition", "field_definition", "assignment_expression"):
        value = node.child_by_field_name("value") or node.child_by_field_name("right")
        return value.child_by_field_name("body") if value is not None else None
    if node.type == "call_expression":  # a test callback: describe("...", () => {...})
        arguments = node.child_by_field_name("arguments")
        callback = arguments.named_children[-1] if arguments is not None and arguments.named_children else None
        return callback.child_by_field_name("body") if callback is not None else None
    return node.child_by_field_name("body")


def signature(node: Node, source: bytes) -> str:
    """A definition's header up to its body, on one line (``class A extends B``,
    ``async place(order: Order): Promise<string>``, ``f = (a: A): B =>``)."""
    body = None if node.type in ("method_signature", "abstract_method_signature") else _definition_body(node)
    end = body.start_byte if body is not None else node.end_byte
    header = source[node.start_byte : end].decode("utf-8", "replace")
    return " ".join(header.split()).rstrip("{ ;")


def _written(node: Node, source: bytes) -> str:
    return " ".join(source[node.start_byte : node.end_byte].decode("utf-8", "replace").split())


def _call_signatures(members: Node, source: bytes) -> list[str]:
    """Each call signature from its parameters on, its return type included: ``(c: C): R``."""
    signatures = []
    for member in members.named_children:
        parameters = member.child_by_field_name("parameters") if member.type == "call_signature" else None
        if parameters is not None:
            text = source[parameters.start_byte : member.end_byte].decode("utf-8", "replace")
            signatures.append(" ".join(text.split()))
    return signatures


def parameter_lists(node: Node, source: bytes) -> list[str]:
    """The parameter lists a definition is called with, as written (``(c: Context, next:
    Next)``): a function's or method's one, an interface's call signatures (with their return
    types: ``(path: string): App``), a type alias's function type. What a callback passed to
    it receives is read from them."""
    if node.type == "interface_declaration":
        body = node.child_by_field_name("body")
        return _call_signatures(body, source) if body is not None else []
    if node.type == "type_alias_declaration":
        value = node.child_by_field_name("value")
        if value is not None and value.type == "object_type":
            return _call_signatures(value, source)
        node = value if value is not None and value.type == "function_type" else node
    elif node.type in ("variable_declarator", "public_field_definition", "assignment_expression"):
        value = node.child_by_field_name("value") or node.child_by_field_name("right")
        if value is None:
            return []
        node = value
    parameters = node.child_by_field_name("parameters")
    if parameters is not None:
        return [_written(parameters, source)]
    parameter = node.child_by_field_name("parameter")  # `x => ...`
    return [f"({_written(parameter, source)})"] if parameter is not None else []


def _object_types(node: Node) -> list[Node]:
    """The object types a type is made of: itself, or the members of its unions and intersections."""
    if node.type == "object_type":
        return [node]
    if node.type in ("union_type", "intersection_type", "parenthesized_type"):
        return [found for child in node.named_children for found in _object_types(child)]
    return []


def property_types(node: Node, source: bytes) -> list[str]:
    """An interface's or object type alias's properties with their declared types, as
    ``name:type`` (``verifyToken:(token: string, c: Context) => boolean``); a union's or an
    intersection's object types all count. A callback given as that property takes its
    parameters' types from it."""
    bodies: list[Node] = []
    if node.type == "interface_declaration":
        body = node.child_by_field_name("body")
        bodies = [body] if body is not None else []
    elif node.type == "type_alias_declaration":
        value = node.child_by_field_name("value")
        bodies = _object_types(value) if value is not None else []
    found = []
    for body in bodies:
        for member in body.named_children:
            name = member.child_by_field_name("name") if member.type == "property_signature" else None
            annotation = member.child_by_field_name("type") if name is not None else None
            declared = annotation.named_children[0] if annotation is not None and annotation.named_children else None
            if name is not None and declared is not None:
                found.append(f"{_written(name, source)}:{_written(declared, source)}")
    return found


def aliased_type(node: Node, source: bytes) -> str:
    """What a type alias stands for, as written (``Handler<E> | MiddlewareHandler<E>``)."""
    value = node.child_by_field_name("value") if node.type == "type_alias_declaration" else None
    return _written(value, source) if value is not None else ""


def is_test_file(path: str) -> bool:
    """A file jest or vitest collects tests from: ``*.test.ts``, ``*.spec.js``, or any
    script under ``__tests__/``."""
    return bool(_TEST_FILE.search(path)) or "__tests__/" in path


def is_support_file(path: str) -> bool:
    """Tests and test-only code: mocks, fixtures, set-up files, test directories."""
    return is_test_file(path) or bool(_SUPPORT_DIR.search(path)) or bool(_SUPPORT_FILE.search(path))


def is_generated_file(path: str) -> bool:
    """Bundles and generated code: minified files, protobuf/gRPC output, ``*.generated.ts``,
    JavaScript under ``dist/``, ``build/`` or ``out/``."""
    return bool(_GENERATED.search(path))


def is_declaration_file(path: str) -> bool:
    """A ``.d.ts`` declaration file: the types of code that lives elsewhere."""
    return bool(_DECLARATION.search(path))


def module_name(path: str) -> str:
    """A module's qualname: its path without the extension (``src/cart/service``), the way
    an import specifier names it. Symbols continue it with dots: ``src/cart/service.Cart.add``."""
    return _STRIP_EXTENSION.sub("", path)
