"""Resolve the references of a commit's TypeScript, TSX and JavaScript files (one module
system, so one resolver) into graph nodes and edges.

Qualnames: a module is its path without the extension (``src/cart/service``); its symbols
continue it with dots (``src/cart/service.CartService.add``); a jest/vitest/mocha test is
named by its title and continues its ``describe`` titles (``src/cart.test.Cart.adds an item``).
Labels: classes and enums are ``Class``; interfaces and type aliases ``Interface``; functions,
arrow functions bound to a ``const`` and ``exports.x = function`` are ``Function``; class
members (methods, arrow-function fields) and interface method signatures are ``Method``.

Lookup follows the language closely enough for a static index: block-free function scopes
(class bodies are not scopes for their methods), then the module's declarations and imports,
then the globals of ECMAScript, browsers, Node and test runners. Imports follow
``ecmascript_modules`` (relative, tsconfig aliases, workspace packages) into the target's
exports: declarations, ``export { a as b }``, ``export default``, named and ``*`` re-exports,
CommonJS ``module.exports``/``exports.x``. Attributes go through namespaces, classes and their
in-repo bases, ``this`` and ``super``, parameters, fields, constructor parameter properties
and locals with a type annotation or a ``new``/call initialiser, and the declared (or, when
every ``return`` agrees, the inferred) return types of in-repo functions, getters and callable
interfaces. A callback's untyped parameters take their types from the parameter lists of what
it is passed to (overloads, aliases and unions of function types must agree), an array pattern
unpacks a declared tuple, and an object literal of functions is a namespace. Declared types
read as the checker reads them: an intersection has each part's members, a primitive its
wrapper object's (``string``: ``String``), an interface its properties' declared types,
``typeof x`` is ``x`` and ``ReturnType<F>`` what an ``F`` returns; a method that is a field's
function value returns what the field's type does. ``import("./m")`` loads a module (awaited or
returned, its namespace), a call's result destructured binds its members, and a JSX expression
is the ``JSX.Element`` the repository's ``namespace JSX`` declares, else a library's.

A reference is never dropped: it resolves or dangles, with reason ``external`` for packages,
globals and members whose name no symbol of the repository carries (such a call cannot land
in the repository), else ``unresolved``.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from branchgraph.core.extract import Assignment, Definition, Import
from branchgraph.core.languages.ecmascript import module_name
from branchgraph.core.model import Edge, FileSubgraph, node_id
from branchgraph.ingest.ecmascript_modules import External as ExternalModule
from branchgraph.ingest.ecmascript_modules import ModuleMap
from branchgraph.ingest.incremental import fact
from branchgraph.ingest.read_log import GLOBAL, JSX_ELEMENT, stored_key
from branchgraph.ingest.resolution import Binding, Resolver, is_computed_callee
from branchgraph.ingest.resolution import Elements as _Elements
from branchgraph.ingest.resolution import External as _Ext
from branchgraph.ingest.resolution import Instance as _Inst
from branchgraph.ingest.resolution import Module as _Mod
from branchgraph.ingest.resolution import ResolvedSymbol as _Symbol
from branchgraph.ingest.resolution import SymbolValue as _Sym
from branchgraph.ingest.subgraphs import ParsedSource, SubgraphEmitter, Target

_IDENTIFIER = r"[A-Za-z_$][\w$]*"
# A member may be a class's private one (`this.#dispatch`).
_MEMBER = rf"#?{_IDENTIFIER}"
_NAME = re.compile(_IDENTIFIER)
_DOTTED = re.compile(rf"^{_IDENTIFIER}(\.{_MEMBER})*$")
# `make(...).send`, `new Order(id).addLine`: an attribute of what a call returns.
_CONSTRUCTED = re.compile(
    rf"^(new\s+)?({_IDENTIFIER}(?:\.{_MEMBER})*)(?:<[^()]*>)?\(.*\)\.({_MEMBER}(?:\.{_MEMBER})*)$"
)
# Type names in an annotation; a name followed by `:`/`?:`/`(` is a property or method of an
# object type, not a type.
_TYPE_NAME = re.compile(rf"{_IDENTIFIER}(?:\.{_IDENTIFIER})*(?!\s*\??\s*[:(\w$.])")
_STRING_LITERAL = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")
# A callee that is a function written in place (`(() => { ... })()`, `(function () {})()`).
_INLINE_FUNCTION = re.compile(rf"^\(+\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*=>|{_IDENTIFIER}\s*=>)")
# A method of a literal: `/^is[A-Z]/.test`, `'a,b'.split`, `[a, b].forEach`, `(1.5).toFixed`.
_LITERAL_RECEIVER = re.compile(r"^(?:(/.+/[a-z]*)|('.*'|\".*\"|`.*`)|(\[.*\])|\(?(\d[\d_.]*)\)?)\??\.(#?[\w$]+)$", re.S)
_LITERAL_TYPES = ("RegExp", "String", "Array", "Number")
_GLOBAL_OBJECTS = frozenset({"window", "globalThis", "global"})
_GENERIC_ARGS = re.compile(r"<.*>$")
# Files whose classes declare every member they have (TypeScript, declarations aside).
_TYPED_SOURCE = re.compile(r"(?<!\.d)\.[mc]?tsx?$")
# What every object has from Object.prototype.
_OBJECT_PROTOTYPE = frozenset(
    "toString toLocaleString valueOf hasOwnProperty isPrototypeOf propertyIsEnumerable constructor".split()
)
_GENERIC_TYPE = re.compile(rf"^({_IDENTIFIER}(?:\.{_IDENTIFIER})*)\s*<")
_WRAPPERS = ("Promise", "PromiseLike", "Readonly", "Partial", "Required", "NonNullable", "Awaited")
_ARRAY_OF = re.compile(r"(?:Readonly)?Array<(.+)>")
_COLLECTIONS = ("Array", "ReadonlyArray", "Set", "ReadonlySet", "Map", "ReadonlyMap", "Record", "WeakMap", "WeakSet")
_TYPE_KEYWORDS = frozenset(
    "string number boolean void undefined null any unknown never object symbol bigint this true false keyof "
    "typeof infer readonly unique asserts is extends in out new".split()
)
_NULLISH = frozenset({"null", "undefined", "void", ""})
# A value declared with a primitive type has the members of its wrapper object.
_PRIMITIVES = {"string": "String", "number": "Number", "boolean": "Boolean", "bigint": "BigInt", "symbol": "Symbol"}
# Names every ECMAScript program sees without importing them (the language, browsers, Node,
# and the globals test runners inject).
GLOBAL_NAMES = frozenset(
    """
    globalThis undefined NaN Infinity eval isFinite isNaN parseFloat parseInt decodeURI decodeURIComponent
    encodeURI encodeURIComponent escape unescape Object Function Boolean Symbol Error AggregateError EvalError
    RangeError ReferenceError SyntaxError TypeError URIError Number BigInt Math Date String RegExp Array
    Int8Array Uint8Array Uint8ClampedArray Int16Array Uint16Array Int32Array Uint32Array Float32Array
    Float64Array BigInt64Array BigUint64Array Map Set WeakMap WeakSet WeakRef FinalizationRegistry ArrayBuffer
    SharedArrayBuffer DataView Atomics JSON Promise Reflect Proxy Intl Iterator console setTimeout
    clearTimeout setInterval clearInterval setImmediate clearImmediate queueMicrotask structuredClone
    fetch Request Response Headers FormData URL URLSearchParams AbortController AbortSignal Blob File
    FileReader TextEncoder TextDecoder ReadableStream WritableStream TransformStream WebSocket Event
    EventTarget CustomEvent MessageChannel Worker crypto performance atob btoa window document navigator
    location history localStorage sessionStorage alert confirm prompt requestAnimationFrame
    cancelAnimationFrame getComputedStyle matchMedia HTMLElement Element Node MutationObserver
    IntersectionObserver ResizeObserver XMLHttpRequest process Buffer global require module exports
    __dirname __filename describe it test expect beforeEach afterEach beforeAll afterAll jest vi suite
    context before after expectTypeOf assertType bench onTestFailed onTestFinished xit xdescribe fit
    fdescribe xtest fail pending
    """.split()
)


@dataclass(frozen=True, slots=True)
class _FunctionType:
    """A value declared with a function type written out (``onError: (e: Error) => void``):
    calling it runs whatever function it holds; its parameter list and return type are read
    in ``path``'s ``scope`` (where it is written does not tell two such values apart: a field's
    declared type and the parameter assigned to it agree)."""

    path: str = field(compare=False)
    scope: int | None = field(compare=False)
    parameters: str = ""
    returns: str = ""


@dataclass(frozen=True, slots=True)
class _Object:
    """An object literal bound to ``name`` in ``path``'s ``scope`` (``const Jwt = { sign }``):
    its members are what its properties hold."""

    path: str
    scope: int | None
    name: str


@dataclass(frozen=True, slots=True)
class _ObjectType:
    """An object type written out in an annotation (``{ isEscaped: true }``): the names it declares."""

    keys: frozenset[str]


@dataclass(frozen=True, slots=True)
class _Intersection:
    """A value of an intersection type (``Response & TypedResponse<T>``, ``string & Escaped``):
    it has the members of each part; a part nothing is known of is None. ``promised`` holds
    what its ``Promise<T>`` parts hold: awaiting the value gives that."""

    parts: tuple[_Value | _ObjectType, ...]
    promised: tuple[_Value, ...] = ()


_Value = (
    _Mod | _Sym | _Inst | _Ext | _Elements | _FunctionType | _Object | _Intersection | None
)  # _Mod names a module by its path
# The bindings of callback parameters, which callbacks in one scope share (see
# ``_bind_callback_parameter``), and the extractor's kinds of them.
_PARAMETER_KINDS = frozenset({"element", "callback", "returned", "param"})
_CALLBACK_KINDS = frozenset({"element", "callback", "returned"})
# A labelled tuple element: `[count: number, set: Setter]`.
_NAMED_ELEMENT = re.compile(rf"^{_IDENTIFIER}\??\s*:")
# A getter's header: `get req(): HonoRequest`, `static get instance()`.
_GETTER = re.compile(r"^(?:(?:public|private|protected|static|override|declare|abstract)\s+)*get\s+[\w$#\[]")
# A type as written, with the file and scope its names are read in.
_Typed = tuple[str, int | None, str]
# How many aliases a handler type is followed through (`H` -> `Handler | MiddlewareHandler`).
_MAX_ALIAS_DEPTH = 8
_Binding = Binding


class EcmaScriptResolver(Resolver):
    """Resolves all TypeScript and JavaScript files of one commit of one branch."""

    TYPE_LABELS = ("Class", "Interface")
    DOTTED = _DOTTED
    TRACKS_READS = True
    READS_PROJECT_FILES = True

    def __init__(self, repo: str, branch: str, files: list[ParsedSource], project_files: Mapping[str, bytes]):
        super().__init__(repo, branch, files, project_files)
        # Probing the commit's paths logs each path probed, found or not.
        self.modules = ModuleMap(self._files_by_path, project_files)
        self.file_ids.update((f.path, node_id(repo, branch, f.path, "File", module_name(f.path))) for f in files)
        self.exports: dict[str, dict[str, _Binding]] = self._path_table()  # path -> exported name -> binding
        self.star_exports: dict[str, list[str]] = self._path_table()  # path -> `export * from` specifiers
        self.return_types: dict[tuple[str, int], str] = self._table()
        self.type_parameters: dict[tuple[str, int | None], set[str]] = self._table()
        self._base_refs: dict[tuple[str, int], list[tuple[str, int]]] = self._table()
        # (path, scope) -> the parameter names of the functions there (inline callbacks' too).
        self.parameters: dict[tuple[str, int | None], set[str]] = self._table()
        # (path, scope, object literal's name) -> property -> what it holds
        self.properties: dict[tuple[str, int | None, str], dict[str, _Binding]] = self._table()
        # path -> the type its `namespace JSX` declares `Element` to be (read under JSX_ELEMENT)
        self.jsx_elements: dict[str, str] = {}
        # name -> where a script sets it on the global object (`window.axios = axios`), with what
        self.globals: dict[str, list[tuple[str, _Binding]]] = {}
        for f in files:
            self._index_file(f)
        self._by_id = {s.id: s for s in self.symbols.values()}

    # ----- indexing -------------------------------------------------------------------

    def _index_file(self, f: ParsedSource) -> None:
        module = module_name(f.path)
        defs = f.parsed.definitions
        seen: Counter[tuple[str, str]] = Counter()
        qualnames: dict[int, str] = {}
        for index in sorted(range(len(defs)), key=lambda i: (defs[i].start_byte, -defs[i].end_byte)):
            d = defs[index]
            qualname = f"{qualnames[d.parent] if d.parent is not None else module}.{d.name}"
            qualnames[index] = qualname
            label = _label(d, defs)
            symbol = self._add_symbol(f, index, label, qualname, seen)
            symbol.is_test = d.kind == "test"
            self._add_member_name(f.path, d.name)
            if d.kind != "test":
                # Later declarations shadow earlier ones; TypeScript merges a class with an
                # interface of its name, and the class is what code calls.
                known = self.children.get((f.path, d.parent), {}).get(d.name)
                if known is None or known.label != "Class" or label == "Class":
                    self.children.setdefault((f.path, d.parent), {})[d.name] = symbol
                    self._bind(f.path, d.parent, d.name, ("def", symbol))
        for imp in f.parsed.imports:
            self._index_import(f, imp)
        for a in f.parsed.assignments:
            self._index_assignment(f, a)
        typed_callbacks = {(a.name, a.line) for a in f.parsed.assignments if a.kind in _CALLBACK_KINDS}
        for ref in f.parsed.references:
            if ref.kind == "parameter":
                self.parameters.setdefault((f.path, ref.scope), set()).add(ref.raw)
                if (ref.raw, ref.line) not in typed_callbacks:
                    # A parameter shadows the outer names it is called like; only a name nothing
                    # else binds there (an annotation, a definition) is bound, and one that
                    # another callback's parameter binds there is either.
                    self._bind_callback_parameter(f.path, ref.scope, ref.raw, ("param",))
                continue
            if ref.scope is None:
                continue
            if ref.kind == "return_type":
                self.return_types.setdefault((f.path, ref.scope), ref.raw)
            elif ref.kind == "base":
                self._base_refs.setdefault((f.path, ref.scope), []).append((ref.raw, ref.line))
            elif ref.kind == "param_type" and ref.param:
                # An annotation says what the name holds, whatever callbacks of the scope bound.
                self._bind_declared(f.path, ref.scope, ref.param, ("annotated", ref.raw, ref.scope))

    def _index_import(self, f: ParsedSource, imp: Import) -> None:
        if imp.kind == "export":
            # `export { a as b }`, `export default a`, `module.exports = a`: b names the
            # module's own a.
            self.exports.setdefault(f.path, {})[imp.alias or imp.name or ""] = ("local", imp.name, imp.scope)
        elif imp.kind == "reexport":
            if imp.name == "*":
                self.star_exports.setdefault(f.path, []).append(imp.module)
            else:
                exported = imp.alias or imp.name or ""
                self.exports.setdefault(f.path, {})[exported] = ("import", imp.module, imp.name)
        elif imp.alias or imp.name:
            self._bind(f.path, imp.scope, imp.alias or imp.name or "", ("import", imp.module, imp.name))

    def _index_assignment(self, f: ParsedSource, a: Assignment) -> None:
        defs = f.parsed.definitions
        if a.kind == "type_parameter":
            self.type_parameters.setdefault((f.path, a.scope), set()).add(a.name)
            return
        # A callback's parameter: the callback is no scope of its own.
        if a.kind == "element":
            self._bind_callback_parameter(f.path, a.scope, a.name, ("element", a.callee, a.scope))
            return
        if a.kind == "callback":
            passed: _Binding = ("callback", a.callee, a.scope, a.argument, a.position, a.key)
            self._bind_callback_parameter(f.path, a.scope, a.name, passed)
            return
        if a.kind == "returned" and a.scope is not None and a.position is not None:
            self._bind_callback_parameter(f.path, a.scope, a.name, ("returned", a.scope, a.position))
            return
        binding: _Binding
        if a.kind == "property":
            literal, key = a.name.split(".", 1)
            # Not a member name of the repository: most object literals are data (`{ headers, body }`),
            # and a call of `x.headers()` on an unknown `x` stays what it was.
            self.properties.setdefault((f.path, a.scope, literal), {})[key] = ("alias", a.callee, a.scope)
            self._bind_declared(f.path, a.scope, literal, ("object", literal, a.scope))
            return
        if a.kind == "unpacked":
            self._bind_declared(f.path, a.scope, a.name, ("unpacked", a.callee, a.scope, a.position))
            return
        if a.kind == "jsx_element":
            self.jsx_elements[f.path] = a.callee
            return
        if a.kind == "jsx":
            self._bind_declared(f.path, a.scope, a.name, ("jsx",))
            return
        if a.kind == "destructured":
            self._bind_declared(f.path, a.scope, a.name, ("destructured", a.callee, a.scope, a.key or a.name))
            return
        if a.kind == "annotation":
            binding = ("annotated", a.callee, a.scope)
        elif a.kind == "alias":
            binding = ("alias", a.callee, a.scope)
        elif a.kind == "module":  # `return import("./m")`
            binding = ("module", a.callee)
        elif a.kind == "awaited":  # `const reply = await send()`
            binding = ("awaited", a.callee, a.scope)
        else:
            binding = ("call_result", a.callee, a.scope)
        head, dot, global_name = a.name.partition(".")
        if dot and head in _GLOBAL_OBJECTS:
            self.globals.setdefault(global_name, []).append((f.path, binding))
            return
        if a.name == "return":
            if a.scope is not None:
                self.returns.setdefault((f.path, a.scope), []).append(binding)
            return
        owner = None
        if a.name.startswith("self."):  # this.x = ... in a method, or a parameter property
            method = defs[a.scope] if a.scope is not None else None
            if method is not None and method.parent is not None and defs[method.parent].kind == "class":
                owner = method.parent
        elif a.scope is not None and defs[a.scope].kind == "class":  # a field
            owner = a.scope
        else:
            owner = _function_field_owner(defs, a)  # `text: TextRespond = (...) => ...`
        if owner is not None:
            name = a.name.removeprefix("self.")
            self._add_member_name(f.path, name)
            self.attributes.setdefault((f.path, owner), {}).setdefault(name, []).append(binding)
        elif not a.name.startswith("self."):
            self._bind_declared(f.path, a.scope, a.name, binding)

    def _bind_declared(self, path: str, scope: int | None, name: str, binding: _Binding) -> None:
        """A declaration (``const ws = connect()``) binds its name unless an earlier one did; it
        wins over callbacks' parameters of that name, wherever they come in the file."""
        table = self.bindings.setdefault((path, scope), {})
        existing = table.get(name)
        if existing is None or _is_callback_parameter(existing):
            table[name] = binding

    def _bind_callback_parameter(self, path: str, scope: int | None, name: str, binding: _Binding) -> None:
        """Callbacks in one scope share its names: a name two callbacks' parameters bind holds
        what both agree on (``app.get("/", (c) => ...)`` beside ``users.map((c) => ...)`` is
        neither); a name bound otherwise (an annotation, an import, a definition) keeps it."""
        table = self.bindings.setdefault((path, scope), {})
        existing = table.get(name)
        if existing is None:
            table[name] = binding
        elif existing[0] == "any_of":
            if binding not in existing[1]:
                table[name] = ("any_of", (*existing[1], binding))
        elif existing[0] in _PARAMETER_KINDS and existing != binding:
            table[name] = ("any_of", (existing, binding))

    # ----- modules and exports --------------------------------------------------------

    def _module(self, importer: str, specifier: str) -> _Value:
        # Memoised with what the lookup probed (the map's own cache would hide the probes).
        return self._memo(
            ("module", posixpath.dirname(importer), specifier), lambda: self._module_uncached(importer, specifier)
        )

    def _module_uncached(self, importer: str, specifier: str) -> _Value:
        found = self.modules.resolve(importer, specifier)
        if isinstance(found, ExternalModule):
            return _Ext(found.name)
        return _Mod(found) if found is not None else None

    def _imported(self, importer: str, specifier: str, name: str | None) -> _Value:
        """What ``import { name } from specifier`` (None: the namespace) binds."""
        module = self._module(importer, specifier)
        if isinstance(module, _Ext):
            return module if name in (None, "default") else _Ext(f"{module.name}.{name}")
        if not isinstance(module, _Mod):
            return None
        if name is None:
            # A namespace import or a require(): a CommonJS module's `module.exports = x` is x.
            cjs = self._export(module.name, "default") if self._has_commonjs_default(module.name) else None
            return cjs or module
        found = self._export(module.name, name)
        if found is None:
            # What a JavaScript module exports but the code does not say (axios's default export
            # is `createInstance(defaults)`, its named ones destructured from it) is what the
            # declaration file beside it declares, as the checker reads it.
            twin = _declaration_twin(module.name)
            if twin is not None and twin in self.modules.paths:
                found = self._export(twin, name)
        if name == "default":
            # With esModuleInterop, a module with no default export gives its namespace.
            return found or module
        return found

    def _has_commonjs_default(self, path: str) -> bool:
        binding = self.exports.get(path, {}).get("default")
        return binding is not None and binding[0] == "local" and path.endswith((".js", ".cjs"))

    def _export(self, path: str, name: str) -> _Value:
        return self._memo(("export", path, name), lambda: self._export_uncached(path, name))

    def _export_uncached(self, path: str, name: str) -> _Value:
        binding = self.exports.get(path, {}).get(name)
        if binding is not None:
            if binding[0] == "local":
                return self._lookup(path, binding[2], binding[1])
            return self._imported(path, binding[1], binding[2])
        if name == "default":
            return None
        declared = self.bindings.get((path, None), {}).get(name)
        if declared is not None and declared[0] != "import":
            return self._resolve_binding(path, declared)
        for specifier in self.star_exports.get(path, ()):
            module = self._module(path, specifier)
            if isinstance(module, _Mod):
                found = self._export(module.name, name)
                if found is not None:
                    return found
            elif isinstance(module, _Ext):
                return _Ext(f"{module.name}.{name}")
        return None

    # ----- name resolution ------------------------------------------------------------

    def _resolve_binding(self, path: str, binding: _Binding) -> _Value:
        kind = binding[0]
        if kind == "def":
            return _Sym(binding[1])
        if kind == "import":
            return self._imported(path, binding[1], binding[2])
        if kind == "annotated":
            return self._declared_value(path, binding[1], binding[2])
        if kind == "call_result":
            return self._call_result(self._resolve_dotted(path, binding[2], binding[1]))
        if kind == "awaited":
            return self._awaited(self._call_result(self._resolve_dotted(path, binding[2], binding[1])))
        if kind == "alias":  # `this.store = store`, `const css = context.css`
            return self._resolve_dotted(path, binding[2], binding[1])
        if kind == "element":  # `lines.map((line) => ...)`: an element of `lines`
            return self._element_of(path, binding[2], binding[1])
        if kind == "callback":  # `app.get("/", (c) => ...)`: what app.get passes its callback
            return self._memo((kind, path, *binding[1:]), lambda: self._callback_parameter(path, *binding[1:]))
        if kind == "returned":  # `(): MiddlewareHandler => async (c, next) => ...`
            return self._memo((kind, path, *binding[1:]), lambda: self._returned_parameter(path, *binding[1:]))
        if kind == "object":
            return _Object(path, binding[2], binding[1])
        if kind == "unpacked":  # `const [count, setCount] = useState(0)`: an element of what it returns
            return self._unpacked(self._resolve_dotted(path, binding[2], binding[1]), binding[3])
        if kind == "destructured":  # `const { jsx } = await load()`: that member of what it returns
            return self._member(self._call_result(self._resolve_dotted(path, binding[2], binding[1])), binding[3])
        if kind == "module":
            return self._imported(path, binding[1], None)
        if kind == "jsx":
            return self._memo(("jsx",), self._jsx_element)
        if kind == "any_of":
            return self._agreed(path, list(binding[1]))
        if kind == "param":  # an untyped parameter: whatever the caller passes
            return None
        raise AssertionError(f"unknown binding {binding!r}")

    def _callback_parameter(
        self, path: str, callee_raw: str, scope: int | None, argument: int, parameter: int, key: str | None
    ) -> _Value:
        """The type a callback's ``parameter``-th parameter has when the callback is the
        ``argument``-th argument of a call of ``callee_raw`` (or that argument's property
        ``key``): read from every parameter list the callee is called with (overloads, a
        handler type's union of function types); they must all agree. A list whose argument
        there takes no function (a path string) says nothing."""
        callee = self._resolve_dotted(path, scope, callee_raw)
        if not isinstance(callee, (_Sym, _Inst, _FunctionType)):
            return None
        # Every handler passed to `app.get` asks the same: memoised by the callee, not the call
        # (a function type by where it is written too: its names are read there).
        where = (callee.path, callee.scope) if isinstance(callee, _FunctionType) else ()
        return self._memo(
            ("passed", callee, *where, argument, parameter, key),
            lambda: self._passed_to(callee, argument, parameter, key),
        )

    def _passed_to(
        self, callee: _Sym | _Inst | _FunctionType, argument: int, parameter: int, key: str | None
    ) -> _Value:
        values: set[_Value] = set()
        for where, at, parameters in self._parameter_lists(callee):
            passed = _argument_type(_parameter_types(parameters), argument)
            if passed is None:
                continue
            given = [(where, at, passed)] if key is None else self._property_types(where, at, passed, key, 0)
            functions = [found for place in given for found in self._function_types(*place, 0)]
            if not self._received(functions, parameter, values):
                return None
        return values.pop() if len(values) == 1 else None

    def _returned_parameter(self, path: str, scope: int, parameter: int) -> _Value:
        """The type the ``parameter``-th parameter of a function returned by the definition
        ``scope`` has: that of the function type its return type names."""
        declared = self.return_types.get((path, scope))
        values: set[_Value] = set()
        if declared is None or not self._received(self._function_types(path, scope, declared, 0), parameter, values):
            return None
        return values.pop() if len(values) == 1 else None

    def _received(self, functions: list[_Typed], parameter: int, values: set[_Value]) -> bool:
        """Add to ``values`` what the ``parameter``-th parameter of each function type is;
        False when one of them leaves it untyped (or takes the rest)."""
        for function_path, function_scope, function_parameters in functions:
            received = _parameter_types(function_parameters)
            declared = received[parameter] if parameter < len(received) else ""
            if not declared or declared.startswith("..."):
                return False
            values.add(self._instance_of(self._resolve_type(function_path, declared, function_scope)))
        return True

    def _property_types(self, path: str, scope: int | None, raw: str, key: str, depth: int) -> list[_Typed]:
        """The declared types of property ``key`` of the object types an annotation names
        (an interface, its in-repo bases, an object type alias, the alternatives of a union)."""
        if depth > _MAX_ALIAS_DEPTH:
            return []
        alternatives = _alternatives(raw, lambda part: self._property_types(path, scope, part, key, depth + 1))
        if alternatives is not None:
            return alternatives
        symbol = self._named_interface(path, scope, raw)
        if symbol is None:
            return []
        found: list[_Typed] = [
            (symbol.file.path, symbol.index, declared)
            for name, _, declared in (p.partition(":") for p in symbol.definition.properties)
            if name == key
        ]
        # The named types an alias is made of (`type Options = Base & { verify: V }`): the
        # object types written out in it are among its properties already.
        for part in _split_top_level(symbol.definition.aliased.replace("&", "|"), "|"):
            part = _unparenthesised(part)
            if part and not part.startswith("{") and part != symbol.definition.aliased:
                found += self._property_types(symbol.file.path, symbol.index, part, key, depth + 1)
        for base_raw, _line, base in self._class_bases(symbol):
            if isinstance(base, _Sym) and base.symbol.label == "Interface":
                found += self._property_types(symbol.file.path, symbol.definition.parent, base_raw, key, depth + 1)
        return found

    def _parameter_lists(self, callee: _Value) -> list[_Typed]:
        """The parameter lists calling ``callee`` goes through, each with the file and scope its
        types are written in: an in-repo function's own, or a callable type's."""
        if isinstance(callee, _FunctionType):
            return [(callee.path, callee.scope, callee.parameters)]
        if not isinstance(callee, (_Sym, _Inst)):
            return []
        symbol = callee.symbol
        if symbol.label in ("Function", "Method") and isinstance(callee, _Sym):
            return [(symbol.file.path, symbol.index, p) for p in symbol.definition.parameters]
        if symbol.label == "Interface" and isinstance(callee, _Inst):
            return self._callable_type(symbol, 0)
        return []

    def _callable_type(self, symbol: _Symbol, depth: int) -> list[_Typed]:
        """An interface's call signatures, or the function types a type alias stands for."""
        d = symbol.definition
        lists: list[_Typed] = [(symbol.file.path, symbol.index, p) for p in d.parameters]
        if d.aliased and not lists:
            lists = self._function_types(symbol.file.path, symbol.index, d.aliased, depth + 1)
        return lists

    def _function_types(self, path: str, scope: int | None, raw: str, depth: int) -> list[_Typed]:
        """The parameter lists of the function types an annotation names: a function type
        written out (``(c: Context) => R``), the alternatives of a union, or a named type
        (``H<E, P>``) that is a callable interface or an alias of one."""
        if depth > _MAX_ALIAS_DEPTH:
            return []
        # Every handler of a file names the same few types: memoised (an alias cycle finds nothing).
        return self._memo(
            ("function_types", path, scope, raw), lambda: self._function_types_uncached(path, scope, raw, depth), []
        )

    def _function_types_uncached(self, path: str, scope: int | None, raw: str, depth: int) -> list[_Typed]:
        alternatives = _alternatives(raw, lambda part: self._function_types(path, scope, part, depth + 1))
        if alternatives is not None:
            return alternatives
        parameters = _function_type_parameters(_unparenthesised(raw))
        if parameters is not None:
            return [(path, scope, parameters)]
        symbol = self._named_interface(path, scope, raw)
        return list(self._callable_type(symbol, depth)) if symbol is not None else []

    def _named_interface(self, path: str, scope: int | None, raw: str) -> _Symbol | None:
        """The in-repo interface or type alias an annotation names (``H<E, P>`` -> ``H``)."""
        names = self._type_names(path, _GENERIC_ARGS.sub("", _unparenthesised(raw)), scope)
        named = self._resolve_dotted(path, scope, names[0]) if len(names) == 1 else None
        return named.symbol if isinstance(named, _Sym) and named.symbol.label == "Interface" else None

    def _call_result(self, callee: _Value) -> _Value:
        """What calling (or ``new``-ing) ``callee`` gives: a class's instance, or a function's
        declared return type, else what all its ``return`` statements agree on; calling a value
        of a callable interface gives what all its call signatures return."""
        if isinstance(callee, _FunctionType):
            return self._instance_of(self._resolve_type(callee.path, callee.returns, callee.scope))
        if isinstance(callee, _Inst) and callee.symbol.label == "Interface":
            symbol = callee.symbol
            if symbol.definition.aliased:  # `type Next = () => Promise<void>`
                aliased = self._resolve_type(symbol.file.path, symbol.definition.aliased, symbol.index)
                return self._call_result(aliased) if isinstance(aliased, _FunctionType) else None
            values = {
                self._instance_of(self._resolve_type(symbol.file.path, returned, symbol.index))
                for returned in map(_signature_return, symbol.definition.parameters)
            }
            return values.pop() if len(values) == 1 else None
        if isinstance(callee, _Ext):
            # `new Map()` is a Map; `express()` is whatever express returns.
            constructor = callee.name.rsplit(".", 1)[-1][:1].isupper()
            return callee if constructor else _Ext(f"{callee.name}()")
        if not isinstance(callee, _Sym):
            return None
        symbol = callee.symbol
        if symbol.label == "Class":
            return _Inst(symbol)
        field_type = self._field_annotation(symbol)
        if field_type is not None:
            # `text: TextRespond = (...) => ...`: callers see the field's declared type.
            return self._call_result(self._resolve_binding(symbol.file.path, field_type))
        declared = self.return_types.get((symbol.file.path, symbol.index))
        if declared is None:
            return self._memo(("returns", symbol.id), lambda: self._returned(symbol))
        if declared.strip() == "this":
            owner = self._enclosing_class(symbol.file.path, symbol.definition.parent)
            return _Inst(owner) if owner is not None else None
        return self._declared_value(symbol.file.path, declared, symbol.index)

    def _jsx_element(self) -> _Value:
        """What a JSX expression gives (``JSX.Element``): the type the repository's own ``namespace
        JSX`` declares (every declaration agreeing), else the library's whose runtime it uses."""
        if self.reads is not None:
            self.reads.add(JSX_ELEMENT)
        if not self.jsx_elements:
            return _Ext("JSX.Element")
        values = {self._declared_value(path, raw, None) for path, raw in sorted(self.jsx_elements.items())}
        return values.pop() if len(values) == 1 else None

    def _declared_facts(self) -> dict[str, set[str]]:
        """The files declaring JSX's element type (one appearing, changing or vanishing changes
        what every JSX expression is), and the globals each file sets, with what."""
        facts = {path: {fact(stored_key(JSX_ELEMENT), raw)} for path, raw in self.jsx_elements.items()}
        for name, sites in self.globals.items():
            for path, binding in sites:
                facts.setdefault(path, set()).add(fact(stored_key((GLOBAL, name)), repr(binding)))
        return facts

    def _field_annotation(self, method: _Symbol) -> _Binding | None:
        """The declared type of the field a method is the initial value of (``text: TextRespond = ...``)."""
        owner = method.definition.parent
        if method.label != "Method" or owner is None:
            return None
        bindings = self.attributes.get((method.file.path, owner), {}).get(method.definition.name, [])
        return next((b for b in bindings if b[0] == "annotated"), None)

    def _declared_value(self, path: str, raw: str, scope: int | None) -> _Value:
        """What a value declared with type ``raw`` is; ``typeof x`` is what ``x`` is, and
        ``ReturnType<F>`` what calling an ``F`` gives."""
        written = _unwrapped(raw)
        queried = written.removeprefix("typeof ").strip()
        if queried != written and _DOTTED.match(queried):
            # `let css: typeof cssHelper`: the type of that value, so the value itself.
            return self._resolve_dotted(path, scope, queried)
        if written.startswith("ReturnType<") and _closing(written, len("ReturnType")) == len(written) - 1:
            return self._call_result(self._declared_value(path, written[len("ReturnType<") : -1], scope))
        return self._instance_of(self._resolve_type(path, raw, scope))

    def _unpacked(self, callee: _Value, position: int) -> _Value:
        """The ``position``-th element of what calling ``callee`` returns: of a declared tuple
        (``[T, UpdateStateFunction<T>]``) or array; a library's call gives the library's."""
        if isinstance(callee, _Ext):
            return self._call_result(callee)
        if not isinstance(callee, _Sym) or callee.symbol.label not in ("Function", "Method"):
            return None
        symbol = callee.symbol
        # `const [a, b] = await load()`: a `Promise<[A, B]>` unpacks as the tuple.
        element = _element_type(_unwrapped(self.return_types.get((symbol.file.path, symbol.index), "")), position)
        if not element or element.startswith("..."):
            return None
        return self._instance_of(self._resolve_type(symbol.file.path, element, symbol.index))

    def _returned(self, function: _Symbol) -> _Value:
        only = self._agreed(function.file.path, self.returns.get((function.file.path, function.index), []))
        return only if isinstance(only, (_Inst, _Ext, _Mod)) else None

    def _lookup_uncached(self, path: str, scope: int | None, name: str) -> _Value:
        if name == "this":
            owner = self._enclosing_class(path, scope)
            return _Inst(owner) if owner is not None else None
        binding = self._nearest_binding(path, scope, name)
        if binding is not None:
            return self._resolve_binding(path, binding)
        return _Ext(name) if name in GLOBAL_NAMES else self._global(name)

    def _global(self, name: str) -> _Value:
        """What a name nothing binds is as a global some script set (`window.axios = axios` in a
        test helper, read bare by the specs the browser loads after it), when every one agrees."""
        if self.reads is not None:
            self.reads.add((GLOBAL, name))
        values = {self._resolve_binding(path, binding) for path, binding in self.globals.get(name, ())}
        return values.pop() if len(values) == 1 else None

    def _nearest_binding(self, path: str, scope: int | None, name: str) -> _Binding | None:
        """What binds ``name`` seen from ``scope``: its functions outward, then the module."""
        defs = self._file(path).parsed.definitions
        current, innermost = scope, True
        while current is not None:
            # A class body's names (its members) are reached through `this`, not bare.
            if defs[current].kind != "class" or innermost:
                binding = self.bindings.get((path, current), {}).get(name)
                if binding is not None:
                    return binding
            innermost = False
            current = defs[current].parent
        return self.bindings.get((path, None), {}).get(name)

    @staticmethod
    def _instance_of(value: _Value) -> _Value:
        return value if isinstance(value, (_FunctionType, _Intersection)) else Resolver._instance_of(value)

    def _member_uncached(self, value: _Value, attr: str) -> _Value:
        if isinstance(value, _Ext):
            if value.name in _GLOBAL_OBJECTS:
                # `window.axios` is the `axios` a script set there (the read is logged either way).
                found = self._global(attr)
                if found is not None or attr in self.globals:
                    return found
            return _Ext(f"{value.name}.{attr}")
        if isinstance(value, _FunctionType):
            return _Ext(f"Function.{attr}")  # call, apply, bind
        if isinstance(value, _Object):
            held = self.properties.get((value.path, value.scope, value.name), {}).get(attr)
            return self._resolve_binding(value.path, held) if held is not None else None
        if isinstance(value, _Elements):
            return _Ext(f"Array.{attr}")
        if isinstance(value, _Mod):
            return self._export(value.name, attr)
        if isinstance(value, _Intersection):
            return self._intersection_member(value, attr)
        if isinstance(value, (_Sym, _Inst)) and value.symbol.label in ("Class", "Interface"):
            found = self._class_member(value.symbol, attr, set())
            if found is None and isinstance(value, _Inst) and value.symbol.label == "Interface":
                found = self._property_value(value.symbol, attr, set())
            aliased = value.symbol.definition.aliased
            if found is None and isinstance(value, _Inst) and aliased and not aliased.startswith("{"):
                # A value of `type Escaped = string & HtmlEscaped` has the members of what it stands for.
                symbol = value.symbol
                return self._member(
                    self._instance_of(self._resolve_type(symbol.file.path, aliased, symbol.index)), attr
                )
            return found
        return None

    def _awaited(self, value: _Value, depth: int = 0) -> _Value:
        """What ``await`` gives for a value, as the checker's ``Awaited<T>`` reads its type: the
        value its promise part holds (``{ text(): ... } & Promise<Reply>``, an interface that
        extends ``Promise<Reply>``: a Reply; two promise parts that disagree: nothing known).
        Any other value is itself, the same object (a declared ``Promise<T>`` is read as T)."""
        if isinstance(value, _Intersection) and value.promised:
            held = set(value.promised)
            return held.pop() if len(held) == 1 else None
        if not isinstance(value, _Inst) or depth > _MAX_ALIAS_DEPTH:
            return value
        symbol = value.symbol
        aliased = symbol.definition.aliased
        object_type = aliased.startswith("{") and _closing(aliased, 0) == len(aliased) - 1
        if aliased and not object_type:  # `type ReplyPromise = { ... } & Promise<Reply>`
            stands_for = self._instance_of(self._resolve_type(symbol.file.path, aliased, symbol.index))
            awaited = self._awaited(stands_for, depth + 1)
            return value if awaited is stands_for else awaited
        for raw, _line in self._base_refs.get((symbol.file.path, symbol.index), ()):
            held_type = _promised(raw)
            if held_type is not None:
                return self._instance_of(self._resolve_type(symbol.file.path, held_type, symbol.definition.parent))
        return value

    def _property_value(self, interface: _Symbol, attr: str, seen: set[str]) -> _Value:
        """A property an interface or object type alias declares (``css: CssType``), or one of
        its in-repo bases does: a value of its declared type."""
        if interface.id in seen or len(seen) > _MAX_ALIAS_DEPTH:
            return None
        seen.add(interface.id)
        declared = _property_declared(interface, attr)
        if declared is not None:
            return self._declared_value(interface.file.path, declared, interface.index)
        for _raw, _line, base in self._class_bases(interface):
            if isinstance(base, _Sym) and base.symbol.label == "Interface":
                found = self._property_value(base.symbol, attr, seen)
                if found is not None:
                    return found
        return None

    def _intersection_member(self, value: _Intersection, attr: str) -> _Value:
        """A member of an intersection: the in-repo one a part has, else a library's; nothing
        when a part declares it with a type written out or nothing is known of a part."""
        external, unknown = None, False
        for part in value.parts:
            if isinstance(part, _ObjectType):
                if attr in part.keys:
                    return None
                continue
            if part is None:
                unknown = True
                continue
            found = self._member(part, attr)
            if isinstance(found, _Ext):
                external = external or found
            elif found is not None:
                return found
            elif isinstance(part, (_Sym, _Inst)) and _property_declared(part.symbol, attr) is not None:
                return None  # a property of that part whose declared type says nothing known
        return None if unknown else external

    def _attribute(self, value: _Value, attr: str) -> _Value:
        # A getter read on the way (`c.req.param`) stands for what it returns.
        if (
            isinstance(value, _Sym)
            and value.symbol.label == "Method"
            and _GETTER.match(value.symbol.definition.signature)
        ):
            value = self._call_result(value)
        return self._member(value, attr)

    def _bases_uncached(self, cls: _Symbol) -> list[tuple[str, int, _Value]]:
        parent = cls.definition.parent
        return [
            (raw, line, self._resolve_dotted(cls.file.path, parent, _GENERIC_ARGS.sub("", raw)))
            for raw, line in self._base_refs.get((cls.file.path, cls.index), ())
        ]

    def _resolve_dotted(self, path: str, scope: int | None, raw: str) -> _Value:
        """Resolve a callee or an expression as written in ``scope`` of ``path``."""
        # A chain written over lines (`new Hono()\n  .get(...)`) reads as one.
        raw = raw.replace(" .", ".").replace("?.", ".").replace("!.", ".").rstrip("!")
        if raw.startswith("(await ") and (close := _closing(raw, 0)) is not None and raw[close + 1 : close + 2] == ".":
            # `(await app.request("/")).json`: what the promise gives, which a declared
            # `Promise<T>` already is (return types are read through it); a value whose type
            # only has a promise part (`{ text(): ... } & Promise<Reply>`) gives that part's.
            awaited, rest = raw[len("(await ") : close].strip(), raw[close + 1 :]
            opening = _call_opening(awaited)
            head = (
                self._call_result(self._resolve_dotted(path, scope, awaited[:opening]))
                if opening is not None
                else self._resolve_dotted(path, scope, awaited)
            )
            value = self._awaited(head)
            if value is not head and _DOTTED.match(rest[1:]):
                for attr in rest[1:].split("."):
                    value = self._attribute(value, attr) if value is not None else None
                return value
            raw = awaited + rest
        constructed = _CONSTRUCTED.match(raw)
        if constructed:
            callee = self._resolve_dotted(path, scope, constructed.group(2))
            value = self._call_result(callee)
            for attr in constructed.group(3).split("."):
                value = self._member(value, attr) if value is not None else None
            return value
        if (raw == "super" or raw.startswith("super.")) and _DOTTED.match(raw):
            owner = self._enclosing_class(path, scope)
            bases = self._class_bases(owner) if owner is not None else []
            base = bases[0][2] if bases else None
            if raw == "super":  # the base constructor
                return base
            value = base
            for attr in raw.split(".")[1:]:
                value = self._member(value, attr) if value is not None else None
            return value
        if not _DOTTED.match(raw):
            return None
        return self._dotted_chain(path, scope, raw)

    def _attribute_origin(
        self, path: str, scope: int | None, head: str, attr: str, depth: int
    ) -> tuple[str, str] | None:
        module = self._resolve_dotted(path, scope, head)
        return self._export_origin(module.name, attr, depth) if isinstance(module, _Mod) else None

    def _imported_origin(self, path: str, binding: _Binding, depth: int) -> tuple[str, str] | None:
        module = self._module(path, binding[1])
        return self._export_origin(module.name, binding[2] or "default", depth) if isinstance(module, _Mod) else None

    def _export_origin(self, path: str, name: str, depth: int) -> tuple[str, str] | None:
        binding = self.exports.get(path, {}).get(name)
        if binding is not None and binding[0] == "local":
            return self.origin(path, binding[2], binding[1] or "", depth + 1)
        if binding is not None and binding[0] == "import":
            module = self._module(path, binding[1])
            return (
                self._export_origin(module.name, binding[2] or "default", depth + 1)
                if isinstance(module, _Mod)
                else None
            )
        return (path, name)

    def _type_names(self, path: str, raw: str, scope: int | None) -> list[str]:
        """The type names an annotation uses, without keywords and type parameters."""
        params = self._visible_type_parameters(path, scope)
        names = []
        for name in _TYPE_NAME.findall(_STRING_LITERAL.sub("", raw)):
            if name not in _TYPE_KEYWORDS and name not in params:
                names.append(name)
        return names

    def _visible_type_parameters(self, path: str, scope: int | None) -> set[str]:
        defs = self._file(path).parsed.definitions
        names: set[str] = set()
        while scope is not None:
            names |= self.type_parameters.get((path, scope), set())
            scope = defs[scope].parent
        return names

    def _resolve_type(self, path: str, raw: str, scope: int | None) -> _Value:
        """The class or interface an annotation gives a value (``Promise<Order | undefined>``
        -> Order); a collection (``Order[]``, ``Map<K, V>``) is the external collection."""
        # A file's annotations name the same few types again and again: memoised.
        return self._memo(("type", path, scope, raw), lambda: self._resolve_type_uncached(path, raw, scope))

    def _resolve_type_uncached(self, path: str, raw: str, scope: int | None) -> _Value:
        raw = _unwrapped(raw)
        written = _unparenthesised(raw)
        parameters = _function_type_parameters(written)
        if parameters is not None:  # before unions: `(a: A) => B | C` returns the union
            returns = written[written.index(parameters) + len(parameters) :].strip().removeprefix("=>").strip()
            return _FunctionType(path, scope, parameters, returns)
        element = _array_element(raw)
        if element is not None:
            # `OrderLine[]`: its elements are what array callbacks receive.
            found = self._resolve_type(path, element, scope)
            if isinstance(found, _Sym) and found.symbol.label in ("Class", "Interface"):
                return _Elements(found.symbol)
            return _Ext("Array")
        if raw.startswith(tuple(f"{c}<" for c in _COLLECTIONS)):
            return _Ext(raw.split("<", 1)[0])
        alternatives = _top_level_union(raw)
        if len(alternatives) > 1:
            # `Order | undefined`, `Response | Promise<Response>`: the one type every
            # alternative but null and undefined names.
            values = {self._resolve_type(path, part, scope) for part in alternatives if part not in _NULLISH}
            return values.pop() if len(values) == 1 else None
        if raw in _PRIMITIVES:
            return _Ext(_PRIMITIVES[raw])
        parts = _split_top_level(raw, "&") if "&" in raw else [raw]
        if len(parts) > 1:
            parts = [_unparenthesised(part) for part in parts]
            return _Intersection(
                tuple(
                    _ObjectType(_object_type_keys(part))
                    if part.startswith("{")
                    else self._instance_of(self._resolve_type(path, part, scope))
                    for part in parts
                ),
                tuple(
                    self._instance_of(self._resolve_type(path, held, scope))
                    for held in map(_promised, parts)
                    if held is not None
                ),
            )
        generic = _GENERIC_TYPE.match(raw)
        if generic is not None and _closing(raw, generic.end() - 1) == len(raw) - 1:
            raw = generic.group(1)  # `HonoBase<E, S & ToSchema<P>>` is a HonoBase, whatever its arguments name
        names = self._type_names(path, raw, scope)
        return self._resolve_dotted(path, scope, names[0]) if len(names) == 1 else None

    # ----- graph output ---------------------------------------------------------------

    def _module_qualname(self, path: str) -> str:
        return module_name(path)

    def _emit_references(self, f: ParsedSource, out: SubgraphEmitter, file_target: Target) -> None:
        for symbol in (self.symbols[(f.path, index)] for index in range(len(f.parsed.definitions))):
            if symbol.label in ("Class", "Interface"):
                for raw, line, base in self._class_bases(symbol):
                    self._emit(out, f.path, Target(symbol.id, symbol.label), "INHERITS_FROM", raw, line, base)
        for imp in f.parsed.imports:
            if imp.kind != "export":
                self._emit_import(out, f, file_target, imp)
        for ref in f.parsed.references:
            source = self.scope_target(f.path, ref.scope)
            if ref.kind == "render" and ref.raw[:1].islower() and "." not in ref.raw:
                # <div>, <button>: an element of the DOM (or the JSX host), not a component.
                self._emit(out, f.path, source, "CALLS", ref.raw, ref.line, _Ext(f"<{ref.raw}>"))
            elif ref.kind in ("call", "render"):
                if _INLINE_FUNCTION.match(ref.raw):
                    continue  # its code is the enclosing scope's own: no reference to anything
                value = self._resolve_dotted(f.path, ref.scope, ref.raw)
                if value is None:
                    value = _literal_method(ref.raw)
                if (
                    value is None
                    and self._leaves_repository(ref.raw)
                    and not self._lacks_method(f.path, ref.scope, ref.raw)
                ):
                    value = _Ext(ref.raw)
                # Calling a parameter (`next()`, `resolve(x)`) runs what the caller passed;
                # calling a value of an in-repo type (a field declared `get: HandlerInterface`)
                # runs whatever function it holds; calling what an expression gives
                # (`(parser || JSON.parse)(s)`, `callbacks.shift()()`, `table[key]()`): all
                # decided at run time.
                dynamic = (
                    value is None
                    and (
                        self._is_parameter(f, ref.scope, ref.raw)
                        or is_computed_callee(ref.raw.replace("?.", "."))
                        or self._holds_computed_function(f.path, ref.scope, ref.raw)
                    )
                ) or isinstance(value, (_Inst, _FunctionType))
                edge = self._emit(out, f.path, source, "CALLS", ref.raw, ref.line, value, dynamic=dynamic)
                if edge.resolved and ref.scope is not None:
                    self._emit_tested_by(out, f, ref.scope, edge)
            elif ref.kind == "value":  # a callback handed on, a handler kept, `this.save`
                self._emit_named_value(out, f.path, source, ref)
            elif ref.kind == "implements":
                value = self._resolve_dotted(f.path, self._outer(f, ref.scope), _GENERIC_ARGS.sub("", ref.raw))
                self._emit(out, f.path, source, "IMPLEMENTS", ref.raw, ref.line, value)
            elif ref.kind in ("param_type", "return_type"):
                edge_type = "PARAM_TYPE" if ref.kind == "param_type" else "RETURNS_TYPE"
                for name in self._type_names(f.path, ref.raw, ref.scope):
                    value = self._resolve_dotted(f.path, self._outer(f, ref.scope), name)
                    if value is None and name.rsplit(".", 1)[-1] not in self.member_names:
                        # No definition of the repository has that name: a type of the
                        # standard library (RequestInit) or of a package's ambient types.
                        value = _Ext(name)
                    self._emit(out, f.path, source, edge_type, name, ref.line, value)

    def _receiver_certain(self, path: str, scope: int | None, head: str, method: str) -> bool:
        """Only through ``this`` in TypeScript (a local's binding may be another block's:
        ``const router = ...`` in two callbacks), never for a method of ``Object.prototype``;
        JavaScript's classes take methods on their prototype at run time."""
        return head == "this" and method not in _OBJECT_PROTOTYPE and _TYPED_SOURCE.search(path) is not None

    def _members_known(self, cls: _Symbol, method: str) -> bool:
        """A TypeScript class (not an interface: declarations merge) into which no interface
        of its name merges."""
        return (
            cls.label == "Class"
            and _TYPED_SOURCE.search(cls.file.path) is not None
            and not any(d.kind == "interface" and d.name == cls.definition.name for d in cls.file.parsed.definitions)
        )

    @staticmethod
    def _outer(f: ParsedSource, scope: int | None) -> int | None:
        return f.parsed.definitions[scope].parent if scope is not None else None

    def _emit_import(self, out: SubgraphEmitter, f: ParsedSource, file_target: Target, imp: Import) -> None:
        module = self._module(f.path, imp.module)
        raw = imp.module if imp.name in (None, "*") else f"{imp.module}:{imp.name}"
        value: _Value = module
        if isinstance(module, _Mod) and imp.name not in (None, "*"):
            named = self._imported(f.path, imp.module, imp.name)
            # A name that is no symbol node (a constant, a namespace) imports its module.
            value = named if isinstance(named, _Sym) else module
        elif isinstance(module, _Ext) and imp.name not in (None, "*", "default"):
            value = _Ext(f"{module.name}.{imp.name}")
        self._emit(out, f.path, file_target, "IMPORTS", raw, imp.line, value)

    def _emit(
        self,
        out: SubgraphEmitter,
        path: str,
        source: Target,
        edge_type: str,
        raw: str,
        line: int,
        value: _Value,
        dynamic: bool = False,
    ) -> Edge:
        external = value.name if isinstance(value, _Ext) else None
        target = self._target(value, edge_type)
        return out.reference(path, source, edge_type, raw, line, target, external=external, dynamic=dynamic)

    def _holds_computed_function(self, path: str, scope: int | None, raw: str) -> bool:
        """Whether ``raw`` names a variable holding what a call returned, a function made at
        run time (`const isString = typeOfTest("string")`, a closure from an inline factory)."""
        if not _NAME.fullmatch(raw):
            return False
        binding = self._nearest_binding(path, scope, raw)
        found = [binding] if binding is not None else [b for _path, b in self.globals.get(raw, ())]
        return bool(found) and all(b[0] in ("call_result", "awaited") for b in found)

    def _is_parameter(self, f: ParsedSource, scope: int | None, raw: str) -> bool:
        """Whether ``raw`` is a parameter of a function around ``scope`` (nearest first)."""
        defs = f.parsed.definitions
        while True:
            if raw in self.parameters.get((f.path, scope), ()):
                return True
            if scope is None:
                return False
            scope = defs[scope].parent

    def _target(self, value: _Value, edge_type: str) -> Target | None:
        labels = _TARGET_LABELS[edge_type]
        if isinstance(value, _Sym) and value.symbol.label in labels:
            return Target(value.symbol.id, value.symbol.label)
        if isinstance(value, _Mod) and "File" in labels:
            return Target(self.file_ids[value.name], "File")
        return None


_TARGET_LABELS = {
    "CALLS": ("Class", "Function", "Method"),
    "IMPORTS": ("File", "Class", "Function", "Interface", "Method"),
    "INHERITS_FROM": ("Class", "Interface"),
    "IMPLEMENTS": ("Interface", "Class"),
    "PARAM_TYPE": ("Class", "Interface"),
    "RETURNS_TYPE": ("Class", "Interface"),
}


def _alternatives(raw: str, walk: Callable[[str], list[_Typed]]) -> list[_Typed] | None:
    """What ``walk`` finds in each alternative of a union but null and undefined (None: no union)."""
    alternatives = _top_level_union(raw)
    if len(alternatives) == 1:
        return None
    return [found for alternative in alternatives if alternative not in _NULLISH for found in walk(alternative)]


def _property_declared(symbol: _Symbol, attr: str) -> str | None:
    """The declared type of the property ``attr`` (optional or not) an interface or object type alias has."""
    for name, _, declared in (p.partition(":") for p in symbol.definition.properties):
        if name.rstrip("?") == attr:
            return declared
    return None


def _function_field_owner(defs: list[Definition], a: Assignment) -> int | None:
    """The class whose field ``a`` declares the type of, when the field's value is a function:
    that function is the field's definition, so the field's type lands in it as its scope."""
    d = defs[a.scope] if a.scope is not None else None
    if d is None or a.kind != "annotation" or d.name != a.name or d.start_line != a.line or d.parent is None:
        return None
    return d.parent if defs[d.parent].kind == "class" else None


def _object_type_keys(raw: str) -> frozenset[str]:
    """The member names an object type written out declares (``{ a: A; b?(): B }`` -> a, b)."""
    inner = raw.strip().removeprefix("{").removesuffix("}")
    keys = set()
    for member in _split_top_level(inner.replace(";", ","), ","):
        name = _NAME.match(member.removeprefix("readonly ").strip())
        if name is not None:
            keys.add(name.group(0))
    return frozenset(keys)


def _is_callback_parameter(binding: _Binding) -> bool:
    if binding[0] == "any_of":
        return all(b[0] in _PARAMETER_KINDS for b in binding[1])
    return binding[0] in _PARAMETER_KINDS


def _split_top_level(raw: str, separator: str) -> list[str]:
    """``raw`` split at ``separator`` only where no bracket is open."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(raw):
        if char in "<([{":
            depth += 1
        elif char in ">)]}" and not (char == ">" and raw[i - 1 : i] == "="):  # `=>` closes nothing
            depth -= 1
        elif char == separator and depth == 0 and not (char == "=" and raw[i + 1 : i + 2] == ">"):
            parts.append(raw[start:i].strip())
            start = i + 1
    parts.append(raw[start:].strip())
    return parts


@functools.cache  # every annotation is resolved once per scope, the same texts in every file
def _top_level_union(raw: str) -> tuple[str, ...]:
    """The alternatives of a union type, split only where no bracket is open."""
    parts = tuple(p for p in _split_top_level(raw, "|") if p)
    return parts if len(parts) > 1 else (raw,)


def _call_opening(raw: str) -> int | None:
    """Where the arguments of a call written last in ``raw`` open (``send('/c')`` -> 4)."""
    if not raw.endswith(")"):
        return None
    depth = 0
    for i in range(len(raw) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(raw[i], 0)
        if depth == 0:
            return i if i > 0 else None
    return None


def _promised(raw: str) -> str | None:
    """The type a ``Promise<T>`` (or ``PromiseLike<T>``) holds; None for any other type."""
    generic = _GENERIC_TYPE.match(raw)
    if generic is None or generic.group(1) not in ("Promise", "PromiseLike"):
        return None
    return raw[generic.end() : -1].strip() if _closing(raw, generic.end() - 1) == len(raw) - 1 else None


def _closing(raw: str, start: int) -> int | None:
    """The index of the bracket that closes the one at ``start``."""
    depth = 0
    for i in range(start, len(raw)):
        char = raw[i]
        if char in "<([{":
            depth += 1
        elif char in ">)]}" and not (char == ">" and raw[i - 1 : i] == "="):
            depth -= 1
            if depth == 0:
                return i
    return None


def _unparenthesised(raw: str) -> str:
    """``((c) => R)`` -> ``(c) => R``: brackets around a whole type group it, nothing more."""
    raw = raw.strip()
    while raw.startswith("(") and _closing(raw, 0) == len(raw) - 1:
        raw = raw[1:-1].strip()
    return raw


def _function_type_parameters(raw: str) -> str | None:
    """The parameter list of a function type (``(c: Context) => R``, ``<T>(x: T) => R``)."""
    if raw.startswith("<"):
        close = _closing(raw, 0)
        raw = raw[close + 1 :].lstrip() if close is not None else ""
    close = _closing(raw, 0) if raw.startswith("(") else None
    if close is None or not raw[close + 1 :].lstrip().startswith("=>"):
        return None
    return raw[: close + 1]


def _signature_return(signature: str) -> str:
    """The return type of a call signature as written (``(c: C): R`` -> ``R``; "" for none)."""
    close = _closing(signature, 0) if signature.startswith("(") else None
    rest = signature[close + 1 :].strip() if close is not None else ""
    return rest[1:].strip() if rest.startswith(":") else ""


@functools.cache
def _parameter_types(parameters: str) -> tuple[str, ...]:
    """Each parameter's declared type in a parameter list as written: ``(c: Context<E>, next?:
    Next, ...rest: H[])`` -> ``["Context<E>", "Next", "...H[]"]``; "" for an untyped one. A
    ``this`` parameter declares the receiver, not an argument."""
    inner = parameters.strip()
    close = _closing(inner, 0) if inner.startswith("(") else None
    if close is not None:
        inner = inner[1:close]  # a call signature's return type after it is no parameter
    types = []
    for part in _split_top_level(inner, ","):
        if not part:
            continue
        name, *annotation = _split_top_level(part, ":")
        name = name.strip().rstrip("?")
        if name == "this":
            continue
        declared = _split_top_level(":".join(annotation), "=")[0] if annotation else ""  # a default value after it
        types.append(("..." if name.startswith("...") else "") + declared)
    return tuple(types)


def _unwrapped(raw: str) -> str:
    """A type without ``readonly`` and the wrappers that stand for what they hold
    (``Promise<Order>`` -> ``Order``)."""
    while True:
        raw = raw.strip().removeprefix("readonly ").strip()
        wrapper = next((w for w in _WRAPPERS if raw.startswith(f"{w}<") and raw.endswith(">")), None)
        if wrapper is None:
            return raw
        raw = raw[len(wrapper) + 1 : -1]


def _array_element(raw: str) -> str | None:
    """The element type of an array type (``Order[]``, ``Array<Order>``)."""
    if raw.endswith("[]"):
        return raw[:-2]
    array = _ARRAY_OF.fullmatch(raw)
    return array.group(1) if array is not None else None


def _element_type(declared: str, position: int) -> str | None:
    """The type of the element at ``position`` of a tuple type (``[A, B]``, labelled ``[a: A,
    b: B]`` too) or of any element of an array type."""
    if not (declared.startswith("[") and declared.endswith("]")):
        return _array_element(declared)
    elements = _split_top_level(declared[1:-1], ",")
    if position >= len(elements):
        return None
    element = elements[position]
    return element.split(":", 1)[-1].strip() if _NAMED_ELEMENT.match(element) else element


def _argument_type(types: tuple[str, ...], position: int) -> str | None:
    """The declared type of the argument at ``position``: its parameter's, or an element of a
    rest parameter's array or tuple (``...handlers: [H, H]``)."""
    for index, declared in enumerate(types):
        if declared.startswith("..."):
            return _element_type(declared[3:].strip(), position - index)
        if index == position:
            return declared
    return None


def _label(d: Definition, defs: list[Definition]) -> str:
    if d.kind == "class":
        return "Class"
    if d.kind == "interface":
        return "Interface"
    if d.kind == "function" and d.parent is not None and defs[d.parent].kind in ("class", "interface"):
        return "Method"
    return "Function"


def resolve_ecmascript(
    repo: str, branch: str, files: list[ParsedSource], project_files: Mapping[str, bytes]
) -> list[FileSubgraph]:
    """Resolve a whole commit's TypeScript and JavaScript files into per-file graphs."""
    return EcmaScriptResolver(repo, branch, files, project_files).build()


_DECLARATION_EXTENSIONS = {".js": ".d.ts", ".jsx": ".d.ts", ".mjs": ".d.mts", ".cjs": ".d.cts"}


def _declaration_twin(path: str) -> str | None:
    """The declaration file a JavaScript module's types are written in beside it
    (``index.js`` -> ``index.d.ts``), by name; None for other files."""
    stem, ext = posixpath.splitext(path)
    twin = _DECLARATION_EXTENSIONS.get(ext)
    return stem + twin if twin else None


def _literal_method(raw: str) -> _Ext | None:
    """A method of a regular expression, string, array or number literal: the language's own."""
    match = _LITERAL_RECEIVER.match(raw)
    if match is None:
        return None
    kind = next(i for i in range(4) if match.group(i + 1) is not None)
    return _Ext(f"{_LITERAL_TYPES[kind]}.prototype.{match.group(5)}")
