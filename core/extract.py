"""Turn a source file into records with its language's tag query and one generic loop.

There is no hand-written tree walker per language: the ``.scm`` capture names (see
``queries/python.scm``) say what each node is, nesting is recovered from byte spans, and what
differs between languages (docstrings, signatures) comes from the language registry's hooks.
"""

from __future__ import annotations

import bisect
import gc
import json
import multiprocessing
import os
import re
import zlib
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, fields

from tree_sitter import Node as TSNode
from tree_sitter import Query, QueryCursor, Tree

from branchgraph.core.files import MAX_NAME_CHARS, SKIP_IDENTIFIER_TOO_LONG, conflict_marker_lines
from branchgraph.core.languages import Conventions, language_named, new_parser, tag_query, ts_language
from branchgraph.core.model import content_hash

# Bumped whenever extraction output changes, so caches keyed by blob SHA are invalidated.
EXTRACTOR_VERSION = 51

_MAX_RAW = 200
# A builder chain with its arguments left out (``b.Int64(…).MustInt64(…)...``) is kept this long.
_MAX_CHAIN_RAW = 1000
# A type annotation is kept longer: a generic function type or builder type cut short says
# nothing (`(<L extends Event>(event: L) => Promise<...>)`), and only its names reach the graph.
_MAX_TYPE_RAW = 2000
_TYPE_CAPTURES = frozenset({"reference.param_type", "reference.return_type"})
# A call site keeps this many arguments: a route's path and handlers, a client's URL and options.
_MAX_SITE_ARGS = 4
# The captures that say what an assignment holds, and the kind of assignment each makes.
_ASSIGN_KINDS = (
    ("assign.partial", "partial"),  # before assign.value: `f = partial(g, ...)` holds g, not a call's result
    ("assign.cast", "cast"),  # before assign.value: `x = cast(T, y)` holds a T
    ("assign.bound", "bound"),  # before assign.value: `T = TypeVar("T", bound=B)` stands for B
    ("assign.caught", "caught"),
    ("assign.type_alias", "type_alias"),
    ("assign.value", "call"),
    ("assign.awaited", "awaited"),
    ("assign.alias", "alias"),
    ("assign.type", "annotation"),
    ("assign.type_parameter", "type_parameter"),
    ("assign.elements", "element"),
    ("assign.entered", "entered"),
    ("assign.iterated", "iterated"),
    ("assign.iterated_name", "iterated_name"),
    ("assign.literal", "literal"),
    ("assign.parameter", "parameter"),
    ("assign.callback", "callback"),
    ("assign.returned", "returned"),
    ("assign.unpacked", "unpacked"),
    ("assign.destructured", "destructured"),
    ("assign.jsx", "jsx"),
    ("assign.jsx_element", "jsx_element"),
    ("assign.property", "property"),
    ("assign.unpacked_call", "unpacked_call"),
    ("assign.unpacked_element", "unpacked_element"),
    ("assign.mapping_items", "mapping_items"),
    ("assign.mapping_values", "mapping_values"),
    ("assign.opaque", "opaque"),
)
# Assignment kinds whose name keeps its place in a pattern (`[a, b] = ...`, `a, b = f()`).
_POSITIONED = frozenset({"unpacked", "unpacked_call", "unpacked_element", "mapping_items"})
# Assignment kinds that say what a binding matched as other kinds on the same line holds.
_SUPERSEDES = {
    "partial": ("call",),
    "cast": ("call",),
    "bound": ("call", "type_parameter"),
    "type_parameter": ("call",),
    "type_alias": ("literal", "annotation"),
    "call": ("opaque",),  # `a, b = Store(), pair`: `a` is followed, `b` bound to what is not
    "alias": ("opaque",),
    "iterated": ("opaque",),  # `for i, line in enumerate(lines)`
    "iterated_name": ("opaque",),
    "unpacked_call": ("opaque",),
    "unpacked_element": ("opaque",),
    "mapping_items": ("opaque",),
    "mapping_values": ("iterated",),  # `for v in d.values()` matched as iterating a call too
}
_RETURN_KINDS = (("return.value", "call"), ("return.name", "alias"), ("return.module", "module"))
# A literal's builtin type (an ``assign.literal`` assignment's callee).
_LITERAL_KINDS = {
    "list": "list",
    "list_comprehension": "list",
    "list_splat_pattern": "tuple",
    "tuple": "tuple",
    "dictionary": "dict",
    "dictionary_comprehension": "dict",
    "dictionary_splat_pattern": "dict",
    "set": "set",
    "set_comprehension": "set",
    "string": "str",
    "concatenated_string": "str",
    "integer": "int",
    "float": "float",
}
# Nodes a broad capture such as `(argument_list (_) @reference.base)` may hit that name nothing.
# ECMAScript's `import("./m")` loads a module, it calls nothing: an import (ecmascript.scm).
_NOT_REFERENCES = frozenset({"keyword_argument", "comment", "list_splat", "dictionary_splat", "import"})
_NOT_ARGUMENTS = frozenset({"comment"})
# Calls a query captures whole (their raw is the callee, and their arguments are counted).
_WHOLE_CALLS = frozenset({"method_invocation", "object_creation_expression"})
# A receiver's type without its pointer and type arguments: `*Page[T]` -> `Page`.
_RECEIVER_TYPE = re.compile(r"\[.*\]$")


@dataclass(slots=True)
class Definition:
    """A class or function definition. ``parent`` indexes the enclosing definition."""

    kind: str  # "class" | "function"
    name: str
    start_line: int
    end_line: int
    start_byte: int
    end_byte: int
    content_hash: str = ""
    parent: int | None = None
    signature: str = ""
    docstring: str = ""
    decorators: list[str] = field(default_factory=list)
    # The type a method belongs to when it is not written inside it (a Go method's receiver).
    receiver: str | None = None
    # The parameter lists it is called with, as written, and what a type alias stands for
    # (TypeScript: a callback passed to it takes its parameters' types from them).
    parameters: list[str] = field(default_factory=list)
    aliased: str = ""
    properties: list[str] = field(default_factory=list)  # an object type's, as `name:type`
    # Declared for the type checker only (Python's `if TYPE_CHECKING:` block): what the name is
    # to its annotations, where a stand-in in the `else:` block runs instead.
    for_checker: bool = False


@dataclass(slots=True)
class Reference:
    """A use of a name. ``scope`` indexes the innermost enclosing definition (None: module)."""

    kind: str  # "call" | "base" | "metaclass" | "param_type" | "return_type" | "value" (named, not called)
    raw: str
    line: int
    scope: int | None
    param: str | None = None
    node_type: str = ""
    # How many arguments a call passes, where the query captures the whole call (Java's
    # `a.b(x, y)`, whose raw is then the callee `a.b`), and what each argument's type is when
    # its text says (`"s"` String, `2L` long, `new T()` T, `(T) x` T; `=x` a name or call for the
    # resolver to type; "" unknown): overloads are told apart by them.
    arguments: int | None = None
    argument_types: list[str] | None = None


@dataclass(slots=True)
class Import:
    """One imported binding: ``import module [as alias]`` or ``from module import name [as alias]``.

    ECMAScript also records what a module passes on: a re-export (``export { a as b } from
    "./m"``, ``export * from "./m"``; kind ``reexport``) and a local export under another name
    (``export { a as b }``, ``export default a``, ``module.exports = a``; kind ``export``,
    module ""). A default import is the name ``default``."""

    module: str  # as written, relative dots included
    name: str | None  # None for `import module`; "*" for a wildcard
    alias: str | None
    line: int
    scope: int | None
    kind: str = "import"  # "import" | "reexport" | "export"


@dataclass(slots=True)
class Assignment:
    """An assignment that says what a name holds, so calls on it can resolve: ``name =
    callee(...)`` (kind ``call``), ``name = other`` / ``self.attr = name`` (``alias``) or
    ``name: Type`` / ``self.attr: Type`` (``annotation``; ``callee`` holds the annotation).
    Instance attributes (``self.x``, ``this.x``) are named ``self.attr``; what a function
    returns is assigned to ``return``, what it yields to ``yield``; a generic's type parameter
    ``<T>`` is kind ``type_parameter``; an array callback's parameter is kind ``element``
    (``callee`` holds the array expression); ``with callee(...) as name`` is kind ``entered``
    and ``for name in callee(...)`` kind ``iterated`` (``for name in other``: ``iterated_name``);
    ``name = []`` (a literal, ``*args``, ``**kwargs``) kind ``literal``, its builtin type the callee;
    an untyped parameter kind ``parameter``; an ``isinstance(name, T)`` test kind ``narrowed``
    (``callee`` T, ``reach`` where it holds); ``Name = Union[A, B]`` at a module's top kind
    ``type_alias`` (``callee`` the type as written); an untyped parameter of a callback passed to a
    call (``app.get("/", (c) => ...)``) kind ``callback``, ``callee`` the call's callee,
    ``argument`` the callback's position among the arguments and ``position`` the parameter's
    (``key``: the property of the object literal argument it is given as, ``f({ verify: (t) =>
    ... })``);
    an element of an array pattern a call's result is unpacked into (``const [count,
    setCount] = useState(0)``) kind ``unpacked``, ``position`` the element's; a property of an
    object literal a name is bound to (``const Jwt = { sign }``) kind ``property``, named
    ``Jwt.sign``, ``callee`` what the property holds; a name a call's result is destructured
    into (``const { data } = useQuery()``) kind ``destructured``, ``key`` the property it takes;
    a name bound to a JSX expression kind ``jsx``; the ``Element`` a ``namespace JSX`` declares
    kind ``jsx_element``, named ``JSX``, ``callee`` the type it stands for (an interface: its name)."""

    name: str
    callee: str
    line: int
    scope: int | None
    kind: str = "call"
    argument: int | None = None
    position: int | None = None
    key: str | None = None  # a callback given as this property of an object literal argument
    # Python locals: the lines [first, last] where the binding surely holds, and the [start,
    # end] lines of each loop around it within its function (``Conventions.binding_reach``)
    reach: list[int] | None = None
    loops: list[list[int]] | None = None


@dataclass(slots=True)
class CallSite:
    """A call whose arguments matter, not only its callee: web routes and their registration
    (``@app.get("/x")``, ``path("x/", view)``, ``app.use("/api", router)``) and HTTP clients
    (``fetch(url, {method})``, ``requests.post(url)``). The tag query picks them by the
    callee's name (``@site.*`` captures); ``args`` are the raw texts of the first arguments,
    keyword arguments as written (``url_prefix="/api"``)."""

    callee: str
    args: list[str]
    line: int
    scope: int | None
    decorates: int | None = None  # the definition a decorator call decorates
    assigned: str | None = None  # the name the call's value is assigned to


@dataclass(slots=True)
class ParsedFile:
    language: str
    definitions: list[Definition]
    references: list[Reference]
    imports: list[Import]
    assignments: list[Assignment]
    globals: list[str]  # module-level assigned names
    docstring: str
    parse_errors: int
    line_count: int
    size: int  # bytes
    conflict_lines: list[int]  # lines holding git conflict markers
    calls: list[CallSite] = field(default_factory=list)  # calls whose arguments say what they reach


def conflict_extents(defs: list[Definition], line_count: int) -> list[int]:
    """The last line each definition may own when conflict markers are about: up to the line
    before the next definition that starts after it ends. Markers break the parse, so a torn
    function's span often stops at its ``def`` line while its body sits between markers."""
    starts = sorted(d.start_line for d in defs)
    extents = []
    for d in defs:
        following = bisect.bisect_right(starts, d.end_line)
        extents.append(max(d.end_line, starts[following] - 1 if following < len(starts) else line_count))
    return extents


def _text(node: TSNode) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _callee(node: TSNode) -> str:
    """What a whole call captured calls, arguments left out: ``repo.find`` for
    ``repo.find(id)``, ``a.b(…).c`` for ``a.b(x).c(y)`` (``a.b().c`` when the inner call passes
    nothing, ``a.b(…, …).c`` for two arguments: overloads apart), ``new Order(…).total`` for a
    method of a new object; a constructor call (``new Order(x)``) is its class, ``Order``."""
    if node.type == "object_creation_expression":
        kind = node.child_by_field_name("type")
        return _raw(kind).split("<", 1)[0] if kind is not None else _raw(node)
    name = node.child_by_field_name("name")
    receiver = node.child_by_field_name("object")
    if name is None:
        return _raw(node)
    if receiver is None:
        return _text(name)
    if receiver.type == "method_invocation":
        head = _called(receiver)
    elif receiver.type == "object_creation_expression":
        head = f"new {_callee(receiver)}(…)"
    else:
        head = _raw(receiver)
    text = f"{head}.{_text(name)}"
    return text if len(text) <= _MAX_CHAIN_RAW else text[: _MAX_CHAIN_RAW - 1] + "…"


def _called(invocation: TSNode) -> str:
    """A call inside a chain or an argument: its callee and a `…` per argument (`()` when it
    passes nothing), so that overloads of different arities stay apart."""
    arguments = invocation.child_by_field_name("arguments")
    count = len([a for a in arguments.named_children if a.type not in _NOT_ARGUMENTS]) if arguments is not None else 1
    return _callee(invocation) + "(" + ", ".join("…" * count) + ")"


_LITERAL_TYPES = {
    "string_literal": "String",
    "text_block": "String",
    "true": "boolean",
    "false": "boolean",
    "character_literal": "char",
    "null_literal": "null",
    "class_literal": "Class",
}


def _argument_type(node: TSNode) -> str:
    """What a call argument's own text says its type is (see ``Reference.argument_types``)."""
    kind = node.type
    if kind in _LITERAL_TYPES:
        return _LITERAL_TYPES[kind]
    if kind.endswith("integer_literal"):
        return "long" if _text(node)[-1:] in "lL" else "int"
    if kind.endswith("floating_point_literal"):
        return "float" if _text(node)[-1:] in "fF" else "double"
    if kind == "object_creation_expression":
        return _callee(node)
    if kind == "cast_expression":
        cast = node.child_by_field_name("type")
        return _raw(cast).split("<", 1)[0] if cast is not None else ""
    if kind in ("identifier", "field_access", "this"):
        return "=" + _raw(node)
    if kind == "method_invocation":
        return "=" + _called(node)
    if kind == "binary_expression" and any(c.type == "string_literal" for c in node.named_children):
        return "String"  # a concatenation
    return ""


def _raw(node: TSNode, limit: int = _MAX_RAW) -> str:
    if node.type == "selector_expression":
        return _selector_raw(node)
    raw = " ".join(_text(node).split())
    return raw if len(raw) <= limit else raw[: limit - 1] + "…"


def _selector_raw(node: TSNode) -> str:
    """A Go selector as its resolver reads it: the calls it chains through show ``(…)`` for
    their arguments, on one line (``b.Int64(…).Bool`` for ``b.Int64("id", &id).Bool`` written
    across two), so that a long builder chain stays whole; ``new(T)`` keeps its type."""
    text = _text(node)
    if "(" not in text and len(text.split()) == 1:
        # A plain `a.b.c` (no call, one line): what the steps below would build, without
        # walking down its operands (each step of a chain is a reference of its own).
        return text if len(text) <= _MAX_CHAIN_RAW else text[: _MAX_CHAIN_RAW - 1] + "…"
    operand, field = node.child_by_field_name("operand"), node.child_by_field_name("field")
    if operand is None or field is None:
        return " ".join(text.split())
    if operand.type == "call_expression":
        function, arguments = operand.child_by_field_name("function"), operand.child_by_field_name("arguments")
        if function is None or arguments is None or _text(function) == "new":
            head = " ".join(_text(operand).split())
        else:
            head = _raw(function, _MAX_CHAIN_RAW) + ("(…)" if arguments.named_children else "()")
    else:
        head = _raw(operand, _MAX_CHAIN_RAW)
    raw = f"{head}.{_text(field)}"
    return raw if len(raw) <= _MAX_CHAIN_RAW else raw[: _MAX_CHAIN_RAW - 1] + "…"


@dataclass(slots=True)
class _Scopes:
    """Finds the innermost definition containing a byte span. Definitions are tree nodes, so
    their spans nest: the innermost container of a span is the last definition starting at or
    before it, or one of that definition's ancestors."""

    starts: list[int]
    order: list[int]  # definition indices sorted by start byte
    definitions: list[Definition]
    parents: list[int | None]  # each definition's innermost enclosing definition

    @classmethod
    def build(cls, definitions: list[Definition]) -> _Scopes:
        order = sorted(range(len(definitions)), key=lambda i: (definitions[i].start_byte, -definitions[i].end_byte))
        parents: list[int | None] = [None] * len(definitions)
        open_scopes: list[int] = []  # the definitions containing the one being placed, outermost first
        for index in order:
            d = definitions[index]
            while open_scopes and definitions[open_scopes[-1]].end_byte < d.end_byte:
                open_scopes.pop()
            parents[index] = open_scopes[-1] if open_scopes else None
            open_scopes.append(index)
        return cls([definitions[i].start_byte for i in order], order, definitions, parents)

    def innermost(self, start: int, end: int) -> int | None:
        pos = bisect.bisect_right(self.starts, start) - 1
        index = self.order[pos] if pos >= 0 else None
        while index is not None:
            d = self.definitions[index]
            if end <= d.end_byte:  # it starts at or before ``start``, as every ancestor does
                return index
            index = self.parents[index]
        return None

    def first_within(self, start: int, end: int) -> int | None:
        """The outermost definition that starts first inside [start, end)."""
        pos = bisect.bisect_left(self.starts, start)
        if pos < len(self.starts):
            index = self.order[pos]
            if self.definitions[index].end_byte <= end:
                return index
        return None


_ERROR_QUERIES: dict[str, Query] = {}


# A line of a member that starts with `<`: a generic call or construct signature.
_GENERIC_SIGNATURE_LINE = re.compile(rb"^([ \t])[ \t]*<", re.MULTILINE)
_MEMBER_LISTS = ("interface_body", "object_type")


def _parse(language: str, data: bytes) -> Tree:
    """The syntax tree of ``data``. TypeScript's grammar cannot parse a generic call signature
    that follows another member of an interface on a new line without a `;` (the whole file
    becomes one error node, as hono's ``types.ts`` does); then the whitespace before each line's
    `<` is read as the `;` TypeScript would insert, kept only where it separates the members of
    an interface or object type, and the repaired tree only when it has fewer errors. Offsets
    and lines are unchanged; what a definition keeps of its text (hash, header) is read from
    ``data``."""
    parser = new_parser(language)
    tree = parser.parse(data)
    if language != "typescript" or not tree.root_node.has_error:
        return tree
    positions = [m.start(1) for m in _GENERIC_SIGNATURE_LINE.finditer(data)]
    for _ in range(2):  # a second pass drops the separators the first one misplaced
        if not positions:
            return tree
        repaired = bytearray(data)
        for at in positions:
            repaired[at] = ord(";")
        candidate = parser.parse(bytes(repaired))
        kept = [at for at in positions if _separates_members(candidate.root_node, at)]
        if kept == positions:
            break
        positions = kept
    else:
        return tree
    if _count_errors(language, candidate.root_node) < _count_errors(language, tree.root_node):
        return candidate
    return tree


def _separates_members(root: TSNode, at: int) -> bool:
    node = root.descendant_for_byte_range(at, at + 1)
    return node is not None and node.type == ";" and node.parent is not None and node.parent.type in _MEMBER_LISTS


def _count_errors(language: str, root: TSNode) -> int:
    if not root.has_error:
        return 0
    query = _ERROR_QUERIES.get(language)
    if query is None:
        query = _ERROR_QUERIES[language] = Query(ts_language(language), "(ERROR) @error (MISSING) @missing")
    return sum(len(nodes) for nodes in QueryCursor(query).captures(root).values())


def _import(caps: dict[str, list[TSNode]], scopes: _Scopes) -> Import:
    """The import (or re-export, or local export) one match describes."""
    source = caps.get("import.module") or caps.get("import.from")
    default = caps.get("import.default")
    name = default or caps.get("import.name") or caps.get("import.wildcard")
    alias = default or caps.get("import.alias")
    # The statement, where the query captures it: a local export's names sit inside the
    # declaration they export, which is not the scope the export is made in.
    anchor = (caps.get("import.export") or caps.get("import.reexport") or source or name or [])[0]
    kind = "reexport" if "import.reexport" in caps else "export" if "import.export" in caps else "import"
    return Import(
        module=_text(source[0]) if source else "",
        name="default" if default else _text(name[0]) if name else None,
        alias="default" if "import.as_default" in caps else _text(alias[0]) if alias else None,
        line=anchor.start_point[0] + 1,
        scope=scopes.innermost(anchor.start_byte, anchor.end_byte),
        kind=kind,
    )


def _narrowing(caps: dict[str, list[TSNode]], scopes: _Scopes, conventions: Conventions) -> Assignment | None:
    """An ``isinstance(subject, T)`` test inside a function (kind ``narrowed``, ``callee`` T as
    written, ``reach`` where the subject surely is a T): a name, or an attribute of the
    function's receiver (``self.title``)."""
    subject = caps["narrow.subject"][0]
    if subject.type == "attribute":
        receiver = subject.child_by_field_name("object")
        if receiver is None or receiver.type != "identifier" or _text(receiver) not in conventions.attribute_receivers:
            return None
    scope = scopes.innermost(subject.start_byte, subject.end_byte)
    guarded, test = caps.get("narrow.block"), caps.get("narrow.after")
    reach = conventions.narrowing_reach(guarded[0] if guarded else None, test[0] if test else None, subject)
    if scope is None or reach is None:
        return None
    callee = _raw(caps["narrow.type"][0], _MAX_TYPE_RAW)
    return Assignment(_text(subject), callee, subject.start_point[0] + 1, scope, "narrowed", reach=reach)


def _place_rebound_locals(unplaced: list[tuple[Assignment, TSNode]], conventions: Conventions) -> None:
    """Where each binding of a local bound on more than one line of its function surely holds
    (``Assignment.reach``): the resolver reads such a local's value where it is used. A local
    bound once holds that everywhere, and placing it would cost a walk up the tree."""
    lines: dict[tuple[int | None, str], set[int]] = {}
    for a, _ in unplaced:
        lines.setdefault((a.scope, a.name), set()).add(a.line)
    for a, node in unplaced:
        if len(lines[(a.scope, a.name)]) > 1 and (placed := conventions.binding_reach(node)) is not None:
            a.reach, a.loops = placed


def extract(language: str, data: bytes) -> ParsedFile:
    """Parse ``data`` and return its definitions, references, imports and assignments."""
    conventions = language_named(language).conventions
    tree = _parse(language, data)
    root = tree.root_node
    matches = QueryCursor(tag_query(language)).matches(root)

    definitions: list[Definition] = []
    by_span: dict[tuple[int, int], int] = {}
    for _, caps in matches:
        for capture, nodes in caps.items():
            if capture.startswith("definition."):
                node = nodes[0]
                if (node.start_byte, node.end_byte) in by_span:
                    continue  # matched twice (a pattern with alternatives): one definition
                name = caps["name"][0]
                definitions.append(
                    Definition(
                        kind=capture.split(".", 1)[1],
                        # A string names a test by its content (`it("adds a line", ...)`).
                        name=_text(name)[1:-1] if name.type == "string" else _text(name),
                        start_line=node.start_point[0] + 1,
                        end_line=node.end_point[0] + 1,
                        start_byte=node.start_byte,
                        end_byte=node.end_byte,
                        # The hash and the header from the file's own bytes: a repaired parse
                        # (``_parse``) differs from them by separators.
                        content_hash=content_hash(data[node.start_byte : node.end_byte].decode("utf-8", "replace")),
                        signature=conventions.signature(node, data),
                        parameters=conventions.parameter_lists(node, data),
                        aliased=conventions.aliased_type(node, data),
                        properties=conventions.property_types(node, data),
                    )
                )
                by_span[(node.start_byte, node.end_byte)] = len(definitions) - 1
    scopes = _Scopes.build(definitions)
    for d, parent in zip(definitions, scopes.parents, strict=True):
        d.parent = parent

    references: list[Reference] = []
    imports: list[Import] = []
    assignments: list[Assignment] = []
    unplaced: list[tuple[Assignment, TSNode]] = []  # a function's locals, with their name nodes
    module_globals: list[str] = []
    sites: dict[int, CallSite] = {}
    module_doc = ""
    for _, caps in matches:
        first_capture = next(iter(caps))
        if first_capture.startswith("definition."):
            continue
        if "doc" in caps:
            node = caps["doc"][0]
            # Go documents a declaration with its run of line comments: one text.
            doc_text = "\n".join(_text(n) for n in caps["doc"])
            documented = caps.get("documented")
            if documented is not None:
                # A comment before its declaration (JSDoc): it documents the first definition
                # the declaration holds.
                owner = scopes.first_within(documented[0].start_byte, documented[0].end_byte)
                if owner is not None:
                    definitions[owner].docstring = conventions.clean_docstring(doc_text)
                continue
            owner = scopes.innermost(node.start_byte, node.end_byte)
            if owner is None:
                module_doc = conventions.clean_docstring(_text(node))
            else:
                definitions[owner].docstring = conventions.clean_docstring(_text(node))
        elif "decorator" in caps:
            target = caps["decorated"][0]
            owner = by_span.get((target.start_byte, target.end_byte))
            if owner is not None:
                decorator = caps["decorator"][0]
                d = definitions[owner]
                d.decorators.append(_raw(decorator).lstrip("@"))
                # The line span includes decorators (assembled text needs them); the byte span
                # stays the definition's, because decorators run in the enclosing scope.
                d.start_line = min(d.start_line, decorator.start_point[0] + 1)
                d.content_hash = content_hash(_text(decorator) + "\n" + d.content_hash)
        elif "checker.declared" in caps:
            node = caps["checker.declared"][0]
            owner = by_span.get((node.start_byte, node.end_byte))
            if owner is not None:
                definitions[owner].for_checker = True
        elif "site.callee" in caps:
            _add_site(sites, caps, scopes, by_span)
        elif "import.module" in caps or "import.from" in caps or "import.export" in caps:
            imports.append(_import(caps, scopes))
        elif "global" in caps:
            module_globals.append(_text(caps["global"][0]))
        elif "return.value" in caps or "return.name" in caps or "return.module" in caps:
            # Kept as an assignment to the function's own "return" or "yield" (``return Store()``,
            # ``yield pm``, ``return import("./m")``: kind ``module``, the specifier as callee), so
            # an unannotated function's result can have a type.
            kind, node = next((k, caps[c][0]) for c, k in _RETURN_KINDS if c in caps)
            scope = scopes.innermost(node.start_byte, node.end_byte)
            if scope is not None:
                returned_to = "yield" if "return.yield" in caps else "return"
                assignments.append(Assignment(returned_to, _raw(node), node.start_point[0] + 1, scope, kind))
        elif "narrow.subject" in caps:
            narrowed = _narrowing(caps, scopes, conventions)
            if narrowed is not None:
                assignments.append(narrowed)
        elif "assign.name" in caps:
            node = caps["assign.name"][0]
            attribute_of = caps.get("assign.object")
            if attribute_of is not None and _text(attribute_of[0]) not in conventions.attribute_receivers:
                continue  # another object's attribute says nothing about this scope's names
            kind, value = next((k, caps[c][0]) for c, k in _ASSIGN_KINDS if c in caps)
            is_member = attribute_of is not None or "assign.member" in caps
            # `window.x = ...`: bound on the global object, whatever scope assigns it.
            literal = caps.get("assign.property_of") or caps.get("assign.global")
            slot = _callback_slot(node, caps.get("assign.key")) if kind == "callback" else None
            assignments.append(
                Assignment(
                    name=f"self.{_text(node)}"
                    if is_member
                    else f"{_text(literal[0])}.{_text(node)}"
                    if literal
                    else _text(node),
                    callee=_LITERAL_KINDS.get(value.type, value.type)
                    if kind == "literal"
                    else _callee(value)
                    if value.type in _WHOLE_CALLS
                    else ""
                    if kind == "jsx"
                    else _raw(
                        value, _MAX_TYPE_RAW if kind in ("annotation", "jsx_element", "type_alias") else _MAX_RAW
                    ),
                    line=node.start_point[0] + 1,
                    scope=scopes.innermost(node.start_byte, node.end_byte),
                    kind=kind,
                    argument=slot.argument if slot else None,
                    position=slot.position
                    if slot
                    else _element_position(node)
                    if kind in _POSITIONED
                    else _parameter_position(node)
                    if kind == "returned"
                    else None,
                    key=slot.key if slot else _destructured_key(caps, node) if kind == "destructured" else None,
                )
            )
            if not is_member and assignments[-1].scope is not None:
                unplaced.append((assignments[-1], node))
        else:
            for capture, nodes in caps.items():
                if not capture.startswith("reference."):
                    continue
                node = nodes[0]
                if node.type in _NOT_REFERENCES or (capture == "reference.parameter" and _in_function_type(node)):
                    continue
                param = caps.get("param")
                if param and _in_function_type(param[0]):
                    param = None  # `cb: (stream: Api) => void`: `stream` names no parameter of the function
                arguments = node.child_by_field_name("arguments") if node.type in _WHOLE_CALLS else None
                references.append(
                    Reference(
                        kind=capture.split(".", 1)[1],
                        raw=_callee(node)
                        if arguments is not None
                        else _raw(node, _MAX_TYPE_RAW if capture in _TYPE_CAPTURES else _MAX_RAW),
                        line=node.start_point[0] + 1,
                        scope=scopes.innermost(node.start_byte, node.end_byte),
                        param=_text(param[0]) if param else None,
                        node_type=node.type,
                        arguments=len(arguments.named_children) if arguments is not None else None,
                        argument_types=[_argument_type(a) for a in arguments.named_children]
                        if arguments is not None
                        else None,
                    )
                )
    for ref in references:
        if ref.kind == "receiver" and ref.scope is not None:
            definitions[ref.scope].receiver = _RECEIVER_TYPE.sub("", ref.raw).strip().lstrip("*").strip()
    # An element of a collection bound to a name matched as an element too: one reference, the
    # one that names the collection.
    named = {(r.raw, r.line, r.scope) for r in references if r.kind == "value" and r.param}
    if named:
        references = [r for r in references if r.kind != "value" or r.param or (r.raw, r.line, r.scope) not in named]
    # `f = partial(g, ...)`, `x = cast(T, y)` and `T = TypeVar("T", bound=B)` matched as calls
    # too: g, T and B say what they hold; `T: TypeAlias = "Text"` matched as an annotation and
    # a literal too: the alias says it.
    superseding: dict[tuple[str, int, int | None], set[str]] = {}
    for a in assignments:
        superseding.setdefault((a.name, a.line, a.scope), set()).update(_SUPERSEDES.get(a.kind, ()))
    if superseding:
        assignments = [a for a in assignments if a.kind not in superseding.get((a.name, a.line, a.scope), ())]
    # An array method's callback takes the array's elements (kind element), whatever the
    # method's declared parameters would say.
    elements = {(a.name, a.line, a.scope) for a in assignments if a.kind == "element"}
    if elements:
        assignments = [a for a in assignments if a.kind != "callback" or (a.name, a.line, a.scope) not in elements]
    _place_rebound_locals(unplaced, conventions)
    return ParsedFile(
        language=language,
        definitions=definitions,
        references=references,
        imports=imports,
        assignments=assignments,
        globals=module_globals,
        docstring=module_doc,
        parse_errors=_count_errors(language, root),
        line_count=data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1),
        size=len(data),
        conflict_lines=conflict_marker_lines(data),
        calls=[sites[start] for start in sorted(sites)],
    )


@dataclass(frozen=True, slots=True)
class _CallbackSlot:
    argument: int
    position: int
    key: str | None


def _destructured_key(caps: dict[str, list[TSNode]], name: TSNode) -> str:
    """The property a destructured name takes (``{ a: b }`` -> a; ``{ a }`` -> a)."""
    key = caps.get("assign.key")
    return _text(key[0]) if key else _text(name)


def _callback_slot(parameter: TSNode, key: list[TSNode] | None) -> _CallbackSlot | None:
    """Where a callback's parameter sits: the callback's position among the call's arguments
    and the parameter's among the callback's (`f(x, (a, b) => ...)`: b is argument 1's 1); a
    callback given as a property of an object literal argument (`f({ verify: (t) => ... })`)
    sits at the object's position, under its key."""
    holder = parameter.parent  # a required_parameter, or the arrow function of `x => ...`
    if holder is None:
        return None
    function: TSNode | None = holder
    position = 0
    if holder.type != "arrow_function":
        listed = holder.parent  # formal_parameters
        if listed is None:
            return None
        position = [n.id for n in listed.named_children if n.type not in _NOT_ARGUMENTS].index(holder.id)
        function = listed.parent
    if key and function is not None:
        while function is not None and function.type != "object":  # the pair, or the method itself
            function = function.parent
    arguments = function.parent if function is not None else None
    if function is None or arguments is None:
        return None
    argument = [n.id for n in arguments.named_children if n.type not in _NOT_ARGUMENTS].index(function.id)
    return _CallbackSlot(argument, position, _text(key[0]) if key else None)


def _parameter_position(name: TSNode) -> int | None:
    """The place of the parameter ``name`` names in its function's parameter list."""
    parameter = name.parent
    listed = parameter.parent if parameter is not None else None
    if parameter is None or listed is None:
        return None
    return [n.id for n in listed.named_children if n.type not in _NOT_ARGUMENTS].index(parameter.id)


def _in_function_type(node: TSNode) -> bool:
    """Whether a parameter is one of a function *type*'s (TypeScript's `(x: T) => U`), not of
    the function being defined."""
    parent = node.parent
    while parent is not None:
        if parent.type in ("function_type", "constructor_type"):
            return True
        if (
            parent.type == "formal_parameters"
            and parent.parent is not None
            and parent.parent.type
            not in (
                "function_type",
                "constructor_type",
            )
        ):
            return False
        parent = parent.parent
    return False


def _element_position(element: TSNode) -> int:
    """An array pattern element's position, holes counted (``[, setCount]``: 1)."""
    pattern = element.parent
    siblings = pattern.children if pattern is not None else []
    return sum(1 for n in siblings[: [n.id for n in siblings].index(element.id)] if n.type == ",")


def _add_site(
    sites: dict[int, CallSite], caps: dict[str, list[TSNode]], scopes: _Scopes, by_span: dict[tuple[int, int], int]
) -> None:
    """Record one call site; the same call matched by several patterns (a decorator that is
    also a route call, an assignment's value) is one site with what each pattern adds."""
    callee = caps["site.callee"][0]
    site = sites.get(callee.start_byte)
    if site is None:
        args = [a for a in caps["site.args"][0].named_children if a.type not in _NOT_ARGUMENTS]
        site = sites[callee.start_byte] = CallSite(
            callee=_raw(callee),
            args=[_raw(a) for a in args[:_MAX_SITE_ARGS]],
            line=callee.start_point[0] + 1,
            scope=scopes.innermost(callee.start_byte, callee.end_byte),
        )
    decorated = caps.get("site.decorated")
    if decorated is not None:
        site.decorates = by_span.get((decorated[0].start_byte, decorated[0].end_byte))
    assigned = caps.get("site.assigned")
    if assigned is not None:
        site.assigned = _text(assigned[0])


# Below this many bytes of source a process pool costs more than it saves: starting one takes
# about 60 ms here, and parsing 500 KiB in one process about 150 ms (echo's 104 Go files,
# 1.2 MiB: 0.36 s in one process, 0.24 s on two cores). Bytes, not files: jsoup's 197 Java
# files hold 2.2 MiB and were parsed in one process under a 200-file threshold.
_PARALLEL_MIN_BYTES = 512 * 1024


def local_names(defs: list[Definition]) -> list[str]:
    """Each definition's dotted name inside its file (``Class.method``; a Go method is named
    after its receiver type), in order."""
    names: list[str] = []
    for d in defs:
        parts, parent = [d.name], d.parent
        while parent is not None and len(parts) <= len(defs):  # bounded: a cycle would be a bug, not a hang
            parts.append(defs[parent].name)
            parent = defs[parent].parent
        if d.receiver:
            parts.append(d.receiver)
        names.append(".".join(reversed(parts)))
    return names


def name_problem(parsed: ParsedFile) -> str | None:
    """A skip reason when a name the file defines or imports is too long to be an index key
    (``files.MAX_NAME_CHARS``; a nested definition counts its enclosing names), else None."""
    lengths = [len(name) for name in local_names(parsed.definitions)]
    lengths.extend(len(i.module) + len(i.name or "") + len(i.alias or "") for i in parsed.imports)
    return SKIP_IDENTIFIER_TOO_LONG if lengths and max(lengths) > MAX_NAME_CHARS else None


def _extract_job(job: tuple[str, bytes]) -> bytes:
    return encode_parsed(extract(*job))


def extract_all(jobs: list[tuple[str, bytes]], workers: int | None = None) -> Iterator[tuple[ParsedFile, bytes]]:
    """``extract`` over (language, data) jobs, in order, on every core for large inputs: each
    file's parse with its parse-cache encoding (``encode_parsed``)."""
    workers = workers or os.cpu_count() or 1
    if workers == 1 or sum(len(data) for _, data in jobs) < _PARALLEL_MIN_BYTES:
        for job in jobs:
            parsed = extract(*job)
            yield parsed, encode_parsed(parsed)
        return
    # fork, where there is one: spawn and forkserver re-import the caller's __main__, which
    # breaks API users whose scripts lack a main guard. The children only parse; the parent
    # runs no threads while they start (the database drivers here are synchronous).
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    # A fork inherits a paused collector (``core.collector``); a child parsing file after file
    # collects as usual. A child sends the cache's encoding, not a pickle: a sixth of the bytes,
    # and decoding it costs the parent a third of unpickling and encoding (django: 3 s less in
    # the parent, which every result passes through). The parse the parent gets is the one a
    # cache hit gives.
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=gc.enable) as pool:
        # Chunks of 16 files save round trips; fewer files are dealt out finer, or one child
        # would get most of them.
        chunksize = max(1, min(16, len(jobs) // (workers * 4)))
        for encoded in pool.map(_extract_job, jobs, chunksize=chunksize):
            yield decode_parsed(encoded), encoded


def encode_parsed(parsed: ParsedFile) -> bytes:
    """Compact, version-independent bytes for the parse cache (JSON, zlib)."""
    document = [
        parsed.language,
        [[getattr(d, f) for f in _DEF_FIELDS] for d in parsed.definitions],
        [[getattr(r, f) for f in _REF_FIELDS] for r in parsed.references],
        [[getattr(i, f) for f in _IMPORT_FIELDS] for i in parsed.imports],
        [[getattr(a, f) for f in _ASSIGN_FIELDS] for a in parsed.assignments],
        parsed.globals,
        parsed.docstring,
        parsed.parse_errors,
        parsed.line_count,
        parsed.size,
        parsed.conflict_lines,
        [[getattr(c, f) for f in _SITE_FIELDS] for c in parsed.calls],
    ]
    # Level 1: a third of level 6's time (a first ingest compresses every file) for 8% more bytes.
    return zlib.compress(json.dumps(document, separators=(",", ":")).encode("utf-8"), 1)


def decode_parsed(blob: bytes) -> ParsedFile:
    (language, defs, refs, imports, assigns, module_globals, doc, errors, lines, size, conflicts, sites) = json.loads(
        zlib.decompress(blob)
    )
    # Rows hold every field in declaration order (the cache is keyed by EXTRACTOR_VERSION):
    # positional construction, several times faster than keywords on every update.
    return ParsedFile(
        language=language,
        definitions=[Definition(*row) for row in defs],
        references=[Reference(*row) for row in refs],
        imports=[Import(*row) for row in imports],
        assignments=[Assignment(*row) for row in assigns],
        globals=module_globals,
        docstring=doc,
        parse_errors=errors,
        line_count=lines,
        size=size,
        conflict_lines=conflicts,
        calls=[CallSite(*row) for row in sites],
    )


_DEF_FIELDS = tuple(f.name for f in fields(Definition))
_REF_FIELDS = tuple(f.name for f in fields(Reference))
_IMPORT_FIELDS = tuple(f.name for f in fields(Import))
_ASSIGN_FIELDS = tuple(f.name for f in fields(Assignment))
_SITE_FIELDS = tuple(f.name for f in fields(CallSite))
