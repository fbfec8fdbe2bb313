"""Resolve the references of a commit's Go files into graph nodes and edges.

A package is a directory; ``go.mod`` maps the module path to the directory it is in, so an
import path under a module of the repository names a package directory, and every other
import (the standard library, other modules) is external. Names resolve through the
function's scope (parameters, the receiver, ``:=`` and ``var`` locals, ``range`` elements),
the file's imports, then the package (every file of the directory: functions, types,
package variables), then Go's predeclared names. Selectors resolve through packages, and
through values of in-repo types: methods of the type (value and pointer receivers alike),
struct fields typed by their declaration, then embedded types (promoted members). A method's
qualname continues its receiver type (``internal/orders.Service.Place``) and the type
``DEFINES`` it when both are in one file. Struct embedding is ``INHERITS_FROM``; a type
whose methods cover an interface's method set (names and parameter counts) ``IMPLEMENTS``
it; ``func TestX(t *testing.T)`` (and benchmarks, fuzz tests, examples) in ``_test.go`` files
are tests.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from branchgraph.core.extract import Assignment, Definition, Import, local_names
from branchgraph.core.languages.go import is_test_file, module_name
from branchgraph.core.model import Edge, FileSubgraph, node_id
from branchgraph.ingest.incremental import fact
from branchgraph.ingest.read_log import INTERFACES, PACKAGE, ReadKey, stored_key, symbol_key
from branchgraph.ingest.resolution import MAX_BASE_DEPTH, Binding, Resolver
from branchgraph.ingest.resolution import Elements as _Elements
from branchgraph.ingest.resolution import External as _Ext
from branchgraph.ingest.resolution import Instance as _Inst
from branchgraph.ingest.resolution import Module as _Mod
from branchgraph.ingest.resolution import ResolvedSymbol as _Symbol
from branchgraph.ingest.resolution import SymbolValue as _Sym
from branchgraph.ingest.subgraphs import ParsedSource, SubgraphEmitter, Target

_IDENTIFIER = r"[A-Za-z_]\w*"
_DOTTED = re.compile(rf"^{_IDENTIFIER}(\.{_IDENTIFIER})*$")
# One step of a selector chain (see _selector_steps): a name and the calls made of it
# (`Get(id)`, `Handler()(w)`); a composite literal (`T{...}`, `&T{...}`); a type assertion.
_CALLED_STEP = re.compile(rf"({_IDENTIFIER})((?:\(.*\))*)", re.DOTALL)
_COMPOSITE_STEP = re.compile(rf"&?({_IDENTIFIER})\{{.*\}}", re.DOTALL)
_TYPE_NAME = re.compile(rf"{_IDENTIFIER}(?:\.{_IDENTIFIER})?")
# Type arguments follow a name (`Page[T]`); a bare `[]` or `[4]` starts a slice or array type.
_GENERIC_ARGS = re.compile(r"(?<=\w)\[[^\[\]]*\]")
# `func Map[K comparable, V any](`, `func (p *Page[T]) First(`: the type parameters in scope.
_FUNCTION_TYPE_PARAMETERS = re.compile(rf"^func\s+{_IDENTIFIER}\s*\[(.*?)\]\s*\(")
_RECEIVER_TYPE_PARAMETERS = re.compile(rf"^func\s*\(\s*(?:{_IDENTIFIER}\s+)?\*?\s*{_IDENTIFIER}\[([^\]]*)\]\s*\)")
_MODULE_LINE = re.compile(r"^\s*module\s+(\S+)", re.MULTILINE)
_TEST_NAME = re.compile(r"^(Test|Benchmark|Fuzz|Example)([A-Z_]|$)")
PREDECLARED = frozenset(
    """
    append cap clear close complex copy delete imag len make max min new panic print println real recover
    bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string
    uint uint8 uint16 uint32 uint64 uintptr any true false iota nil
    """.split()
)
_TYPE_KEYWORDS = frozenset({"map", "chan", "func", "struct", "interface"})


@dataclass(frozen=True, slots=True)
class _FuncValue(_Ext):
    """A value of a function type written out (`onStart func()`, `ErrorFunc func(...) error`):
    calling it runs whatever function it holds, decided at run time; it has no members."""


_Value = _Mod | _Sym | _Inst | _Ext | _Elements | None  # _Mod names a package by its directory


class GoResolver(Resolver):
    """Resolves all Go files of one commit of one branch."""

    TYPE_LABELS = ("Class", "Interface")
    TRACKS_READS = True
    READS_PROJECT_FILES = True

    def __init__(self, repo: str, branch: str, files: list[ParsedSource], project_files: Mapping[str, bytes]):
        super().__init__(repo, branch, files, project_files)
        self.go_modules = _go_modules(project_files)
        # What a package's files declare together is read by package: a change to any of its
        # files reaches the readers of any of them.
        self.packages: dict[str, list[ParsedSource]] = self._path_table(PACKAGE)
        for f in files:
            self.packages.setdefault(module_name(f.path), []).append(f)
        self.package_names: dict[str, dict[str, _Symbol]] = self._path_table(PACKAGE)  # package -> name -> symbol
        # package -> var -> (path, binding)
        self.package_vars: dict[str, dict[str, tuple[str, Binding]]] = self._path_table(PACKAGE)
        # (package, type) -> method name -> method
        self.methods: dict[tuple[str, str], dict[str, _Symbol]] = self._table(PACKAGE)
        self.receivers: dict[str, _Symbol] = {}  # method id -> its receiver type
        self.return_types: dict[tuple[str, int], list[str]] = self._table()  # each result's type, in order
        self._base_refs: dict[tuple[str, int], list[tuple[str, int]]] = self._table()
        # A named collection type's element type (`type Routes []RouteInfo`), as written.
        self._element_types: dict[tuple[str, int], str] = self._table()
        for f in files:
            self._index_file(f)
        for f in files:
            self._attach_methods(f)
        self._by_id = {s.id: s for s in self.symbols.values()}

    # ----- indexing -------------------------------------------------------------------

    def _index_file(self, f: ParsedSource) -> None:
        package = module_name(f.path)
        self.file_ids[f.path] = node_id(self.repo, self.branch, f.path, "File", package)
        defs = f.parsed.definitions
        seen: Counter[tuple[str, str]] = Counter()
        for index, (d, local) in enumerate(zip(defs, local_names(defs), strict=True)):
            receiver = d.receiver
            label = _label(d, defs, receiver)
            qualname = f"{package}.{local}" if package else local
            symbol = self._add_symbol(f, index, label, qualname, seen)
            symbol.is_test = label == "Function" and is_test_file(f.path) and bool(_TEST_NAME.match(d.name))
            self._add_member_name(f.path, d.name)
            if d.parent is not None:
                self.children.setdefault((f.path, d.parent), {})[d.name] = symbol
            elif receiver is None:
                self.package_names.setdefault(package, {})[d.name] = symbol
        for imp in f.parsed.imports:
            self._index_import(f, imp)
        for a in f.parsed.assignments:
            self._index_assignment(f, a)
        for ref in f.parsed.references:
            if ref.scope is None:
                continue
            if ref.kind in ("param_type", "receiver") and ref.param:
                self._bind(f.path, ref.scope, ref.param, ("annotated", ref.raw, None))
            elif ref.kind == "return_type":
                self.return_types.setdefault((f.path, ref.scope), []).append(ref.raw)
            elif ref.kind == "base":
                self._base_refs.setdefault((f.path, ref.scope), []).append((ref.raw, ref.line))
            elif ref.kind == "elements":
                self._element_types[(f.path, ref.scope)] = ref.raw

    def _attach_methods(self, f: ParsedSource) -> None:
        """Methods join their receiver type's method set (in any file of the package)."""
        package = module_name(f.path)
        for ref in f.parsed.references:
            if ref.kind != "receiver" or ref.scope is None:
                continue
            method = self.symbols[(f.path, ref.scope)]
            type_name = method.definition.receiver or _type_base(ref.raw)
            self.methods.setdefault((package, type_name), {})[method.definition.name] = method
            receiver = self.package_names.get(package, {}).get(type_name)
            if receiver is not None and receiver.label == "Class":
                self.receivers[method.id] = receiver

    def _declared_facts(self) -> dict[str, set[str]]:
        """The interfaces each file declares: any struct may implement one."""
        interfaces: dict[str, set[str]] = {}
        for symbol in self.symbols.values():
            if symbol.label == "Interface":
                interfaces.setdefault(symbol.file.path, set()).add(fact(stored_key(INTERFACES), symbol_key(symbol.id)))
        return interfaces

    def changed_keys(self, changed: set[str], added_or_deleted: set[str]) -> set[ReadKey]:
        """A changed file changes what its package declares."""
        return {(PACKAGE, module_name(path)) for path in changed if path.endswith(".go")}

    def _index_import(self, f: ParsedSource, imp: Import) -> None:
        name = imp.alias or _package_name(imp.module)
        if name == "_":
            return  # imported for its side effects
        self._bind(f.path, None, name, ("import", imp.module))

    def _index_assignment(self, f: ParsedSource, a: Assignment) -> None:
        defs = f.parsed.definitions
        binding: Binding
        if a.kind == "annotation":
            binding = ("annotated", a.callee, None)
        elif a.kind in ("element", "alias"):
            binding = (a.kind, a.callee, a.scope)
        elif a.kind == "unpacked_call":  # `ctx, cancel := context.WithCancel(parent)`: cancel
            binding = ("result", a.callee, a.scope, a.position)
        else:
            binding = ("call_result", a.callee, a.scope)
        if a.scope is not None and defs[a.scope].kind == "class":  # a struct field
            self._add_member_name(f.path, a.name)
            self.attributes.setdefault((f.path, a.scope), {}).setdefault(a.name, []).append(binding)
        elif a.scope is None:  # a package variable, seen by every file of the package
            self.package_vars.setdefault(module_name(f.path), {}).setdefault(a.name, (f.path, binding))
        else:
            self._note_declaration(f.path, a.scope, a.name, a.line)
            self._bind(f.path, a.scope, a.name, binding, keep_existing=True)

    # ----- modules --------------------------------------------------------------------

    def _package_of_import(self, path: str) -> _Value:
        """An import path: a package directory of the repository, or external."""
        for directory, module in self.go_modules:
            if path == module or path.startswith(module + "/"):
                package = "/".join(p for p in (directory, path[len(module) :].strip("/")) if p)
                return _Mod(package) if package in self.packages else None
        return _Ext(path)

    def module_path(self, module: str) -> str | None:
        found = self._package_of_import(module)
        return self.packages[found.name][0].path if isinstance(found, _Mod) else None

    # ----- name resolution ------------------------------------------------------------

    def _resolve_binding(self, path: str, binding: Binding) -> _Value:
        kind = binding[0]
        if kind == "def":
            return _Sym(binding[1])
        if kind == "import":
            return self._package_of_import(binding[1])
        if kind == "annotated":
            return self._instance_of(self._resolve_type(path, binding[1], binding[2]))
        if kind == "call_result":
            return self._call_result(self._resolve_dotted(path, binding[2], binding[1]))
        if kind == "element":  # `for _, line := range o.Lines`
            return self._element_of(path, binding[2], binding[1])
        if kind == "alias":  # `node := r.tree`
            return self._resolve_dotted(path, binding[2], binding[1])
        if kind == "result":
            return self._call_result(self._resolve_dotted(path, binding[2], binding[1]), binding[3])
        raise AssertionError(f"unknown binding {binding!r}")

    def _element_of(self, path: str, scope: int | None, collection: str) -> _Value:
        """An element of a slice, or of a value of a named collection type (`for _, r := range
        routes` with `routes Routes` and `type Routes []RouteInfo`)."""
        found = self._resolve_dotted(path, scope, collection)
        if isinstance(found, _Inst):
            return self._instance_of(self._elements_type(found.symbol))
        return _Inst(found.symbol) if isinstance(found, _Elements) else None

    def _elements_type(self, collection: _Symbol) -> _Value:
        """The element type of a named collection type, None for any other type."""
        written = self._element_types.get((collection.file.path, collection.index))
        return self._resolve_type(collection.file.path, written, None) if written else None

    def _call_result(self, callee: _Value, position: int = 0) -> _Value:
        """What a call gives: a type's value (a composite literal or a conversion), or the
        result a function or method declares in ``position`` (the first unless told)."""
        if isinstance(callee, _FuncValue):
            return None  # what the function it holds returns is not read
        if isinstance(callee, _Ext):
            return _Ext(f"{callee.name}()")  # whatever a library returns is the library's
        if not isinstance(callee, _Sym):
            return None
        symbol = callee.symbol
        if symbol.label in ("Class", "Interface"):
            return _Inst(symbol) if position == 0 else None
        declared = self.return_types.get((symbol.file.path, symbol.index), ())
        if position >= len(declared):
            return None
        # A slice result stays a slice (its elements are what a range gives).
        return self._instance_of(self._resolve_type(symbol.file.path, declared[position], None))

    def _lookup_uncached(self, path: str, scope: int | None, name: str) -> _Value:
        defs = self._file(path).parsed.definitions
        current = scope
        while current is not None:
            binding = self.bindings.get((path, current), {}).get(name)
            if binding is not None:
                return self._resolve_binding(path, binding)
            local_type = self.children.get((path, current), {}).get(name)  # `type target struct{...}` in a function
            if local_type is not None and local_type.label in self.TYPE_LABELS:
                return _Sym(local_type)
            current = defs[current].parent
        binding = self.bindings.get((path, None), {}).get(name)
        if binding is not None:
            return self._resolve_binding(path, binding)
        found = self._package_member(module_name(path), name)
        if found is not None:
            return found
        return _Ext(name) if name in PREDECLARED else None

    def _package_member(self, package: str, name: str) -> _Value:
        symbol = self.package_names.get(package, {}).get(name)
        if symbol is not None:
            return _Sym(symbol)
        variable = self.package_vars.get(package, {}).get(name)
        if variable is not None:
            return self._memo(("var", package, name), lambda: self._resolve_binding(*variable))
        return None

    def _member_uncached(self, value: _Value, attr: str) -> _Value:
        if isinstance(value, _FuncValue):
            return None
        if isinstance(value, _Ext):
            return _Ext(f"{value.name}.{attr}")
        if isinstance(value, _Mod):
            return self._package_member(value.name, attr)
        if isinstance(value, (_Sym, _Inst)) and value.symbol.label in ("Class", "Interface"):
            return self._class_member(value.symbol, attr, set())
        return None

    def _class_member(self, cls: _Symbol, attr: str, seen: set[str]) -> _Value:
        """A type's method, then its fields, then what its embedded types promote (an embedded
        type is also a field named after it)."""
        if cls.id in seen or len(seen) > MAX_BASE_DEPTH:
            return None
        method = self.methods.get((module_name(cls.file.path), cls.definition.name), {}).get(attr)
        if method is not None:
            return _Sym(method)
        for raw, _line, base in self._class_bases(cls):
            if _type_base(raw).rsplit(".", 1)[-1] == attr and isinstance(base, _Sym):
                return _Inst(base.symbol)
        found = super()._class_member(cls, attr, seen)
        return found

    def _bases_uncached(self, cls: _Symbol) -> list[tuple[str, int, _Value]]:
        return [
            (raw, line, self._resolve_type(cls.file.path, raw, None))
            for raw, line in self._base_refs.get((cls.file.path, cls.index), ())
        ]

    def _resolve_dotted(self, path: str, scope: int | None, raw: str) -> _Value:
        """Resolve a callee or an expression as written in ``scope`` of ``path``: a name or a
        selector chain (``a.b.c``), also through what calls give (``svc.Get(id).Total``,
        ``b.Int(x).Bool(y).BindError``, a newline after any dot), composite literals
        (``T{...}.m``), ``new(T)`` and type assertions (``err.(*HTTPError).Unwrap``)."""
        raw = _GENERIC_ARGS.sub("", raw.strip()).removeprefix("&").removeprefix("*")
        if _DOTTED.match(raw):
            return self._dotted_chain(path, scope, raw)
        steps = _selector_steps(raw)
        if steps is None:
            return None
        value = self._chain_head(path, scope, steps[0])
        for step in steps[1:]:
            if value is None:
                return None
            value = self._chain_step(path, scope, value, step)
        return value

    def _chain_head(self, path: str, scope: int | None, step: str) -> _Value:
        composite = _COMPOSITE_STEP.fullmatch(step)
        if composite:
            return self._instance_of(self._resolve_type(path, composite.group(1), scope))
        if step.startswith("(") and step.endswith(")"):  # `(&T{...}).m`
            return self._resolve_dotted(path, scope, step[1:-1])
        called = _CALLED_STEP.fullmatch(step)
        if called is None:
            return None
        name, calls = called.group(1), _call_count(called.group(2))
        if name == "new" and calls == 1:  # `new(T)`: a *T
            return self._instance_of(self._resolve_type(path, called.group(2)[1:-1], scope))
        return self._called(self._lookup(path, scope, name), calls)

    def _chain_step(self, path: str, scope: int | None, value: _Value, step: str) -> _Value:
        if step.startswith("(") and step.endswith(")"):  # a type assertion, `.(*T)`
            return self._instance_of(self._resolve_type(path, step[1:-1], scope))
        composite = _COMPOSITE_STEP.fullmatch(step)  # `pkg.T{...}`
        if composite:
            return self._instance_of(self._member(value, composite.group(1)))
        called = _CALLED_STEP.fullmatch(step)
        if called is None:
            return None
        return self._called(self._member(value, called.group(1)), _call_count(called.group(2)))

    def _called(self, value: _Value, calls: int | None) -> _Value:
        """What ``calls`` calls in a row of ``value`` give."""
        if calls is None:
            return None
        for _ in range(calls):
            value = self._call_result(value)
        return value

    def _resolve_type(self, path: str, raw: str, scope: int | None) -> _Value:
        """The type a declaration names: ``*Order`` and ``Order`` are Order, ``[]Line`` is a
        slice of Line, ``pkg.T`` a type of another package; maps, channels and functions no
        type of the repository."""
        raw = _GENERIC_ARGS.sub("", raw.strip()).lstrip("*&").strip()
        if raw.startswith("[]") or re.match(r"^\[\w*\]", raw):
            element = self._resolve_type(path, re.sub(r"^\[\w*\]", "", raw), scope)
            return _Elements(element.symbol) if isinstance(element, _Sym) else None
        if raw.startswith("func"):
            return _FuncValue(raw)
        if raw.startswith(("map[", "chan ", "<-chan", "chan<-", "struct", "interface")):
            return None
        return self._resolve_dotted(path, scope, raw) if _DOTTED.match(raw) else None

    def origin(self, path: str, scope: int | None, raw: str, depth: int = 0) -> tuple[str, str] | None:
        """A router or group variable (``api := r.Group("/api")``) by the function that holds it:
        Go routers are local values, so a name means the same router only within its scope."""
        return (path, f"{scope}:{raw}") if re.fullmatch(_IDENTIFIER, raw) else None

    # ----- graph output ---------------------------------------------------------------

    def _module_qualname(self, path: str) -> str:
        return module_name(path)

    def _definer(self, symbol: _Symbol) -> Target | None:
        if self.reads is not None:
            self.reads.add((PACKAGE, module_name(symbol.file.path)))  # the receiver: any file of the package
        receiver = self.receivers.get(symbol.id)
        if receiver is not None and receiver.file.path == symbol.file.path:
            # A method's type defines it; across files the file does, so that every edge
            # stays with the file that holds its source.
            return Target(receiver.id, receiver.label)
        return None

    def _emit_references(self, f: ParsedSource, out: SubgraphEmitter, file_target: Target) -> None:
        for symbol in (self.symbols[(f.path, index)] for index in range(len(f.parsed.definitions))):
            if symbol.label in ("Class", "Interface"):
                for raw, line, base in self._class_bases(symbol):
                    value = base if base is not None else self._outside(raw)
                    self._emit(out, f.path, Target(symbol.id, symbol.label), "INHERITS_FROM", raw, line, value)
            if symbol.label == "Class":
                for interface in self._implemented(symbol):
                    self._emit(
                        out,
                        f.path,
                        Target(symbol.id, "Class"),
                        "IMPLEMENTS",
                        interface.qualname,
                        symbol.definition.start_line,
                        _Sym(interface),
                    )
        for imp in f.parsed.imports:
            self._emit_import(out, f, file_target, imp)
        for ref in f.parsed.references:
            source = self.scope_target(f.path, ref.scope)
            if ref.kind == "call":
                value = self._resolve_dotted(f.path, ref.scope, ref.raw)
                if (
                    value is None
                    and self._leaves_repository(ref.raw)
                    and not self._lacks_method(f.path, ref.scope, ref.raw)
                ):
                    value = _Ext(ref.raw)
                edge = self._emit(out, f.path, source, "CALLS", ref.raw, ref.line, value)
                if edge.resolved and ref.scope is not None:
                    self._emit_tested_by(out, f, ref.scope, edge)
            elif ref.kind == "value":  # a function or method value (`getCommand(NoDuplicateArgs)`, `s.serve`)
                self._emit_named_value(out, f.path, source, ref, ("Function", "Method"))
            elif ref.kind == "element_call":  # `PathValues{{...}}` builds PathValue elements
                collection = self._resolve_dotted(f.path, ref.scope, ref.raw)
                element = self._elements_type(collection.symbol) if isinstance(collection, _Sym) else None
                if isinstance(element, _Sym):
                    self._emit(out, f.path, source, "CALLS", element.symbol.definition.name, ref.line, element)
            elif ref.kind in ("param_type", "return_type", "receiver"):
                if ref.kind == "receiver":
                    continue  # the method's own type: its qualname and DEFINES say it
                edge_type = "PARAM_TYPE" if ref.kind == "param_type" else "RETURNS_TYPE"
                type_parameters = _type_parameters(f.parsed.definitions[ref.scope]) if ref.scope is not None else ()
                for name in _type_names(ref.raw):
                    if name in PREDECLARED or name in type_parameters:
                        continue  # int, string, error, a T: no type of any package
                    value = self._resolve_dotted(f.path, None, name)
                    self._emit(out, f.path, source, edge_type, name, ref.line, value or self._outside(name))

    def _members_known(self, cls: _Symbol, method: str) -> bool:
        """A struct's or an interface's (their embedded types are bases); a type over another
        (`type Level int`, `type R io.Reader`) may have its underlying type's."""
        return cls.definition.signature.endswith((" struct", " interface"))

    def _outside(self, raw: str) -> _Value:
        """A type name nothing in the repository answers to: predeclared or of another
        module's package (``pkg.T``) is external; a bare unknown name stays unresolved."""
        base = _type_base(raw)
        return (
            _Ext(base) if base in PREDECLARED or ("." in base and base.split(".")[1] not in self.member_names) else None
        )

    def _implemented(self, cls: _Symbol) -> list[_Symbol]:
        """The interfaces of the repository whose method sets ``cls`` (its methods and those
        its embedded types promote) covers, by name and parameter count."""
        methods = self._method_set(cls, set())
        if not methods:
            return []
        if self.reads is not None:
            self.reads.add(INTERFACES)
        out = []
        for interface in (s for s in self.symbols.values() if s.label == "Interface"):
            required = self._interface_methods(interface, set())
            if required and all(methods.get(name) == arity for name, arity in required.items()):
                out.append(interface)
        return out

    def _method_set(self, cls: _Symbol, seen: set[str]) -> dict[str, int]:
        if cls.id in seen or len(seen) > MAX_BASE_DEPTH:
            return {}
        seen.add(cls.id)
        found: dict[str, int] = {}
        for _raw, _line, base in self._class_bases(cls):
            if isinstance(base, _Sym) and base.symbol.label == "Class":
                found.update(self._method_set(base.symbol, seen))
        for name, method in self.methods.get((module_name(cls.file.path), cls.definition.name), {}).items():
            found[name] = _arity(method.definition)
        return found

    def _interface_methods(self, interface: _Symbol, seen: set[str]) -> dict[str, int]:
        if interface.id in seen or len(seen) > MAX_BASE_DEPTH:
            return {}
        seen.add(interface.id)
        found: dict[str, int] = {}
        for _raw, _line, base in self._class_bases(interface):
            if isinstance(base, _Sym) and base.symbol.label == "Interface":
                found.update(self._interface_methods(base.symbol, seen))
        for name, method in self.children.get((interface.file.path, interface.index), {}).items():
            found[name] = _arity(method.definition)
        return found

    def _emit_import(self, out: SubgraphEmitter, f: ParsedSource, file_target: Target, imp: Import) -> None:
        """An import is of a package: an edge to each of its files (tests aside)."""
        package = self._package_of_import(imp.module)
        if not isinstance(package, _Mod):
            self._emit(out, f.path, file_target, "IMPORTS", imp.module, imp.line, package)
            return
        for member in sorted(self.packages[package.name], key=lambda g: g.path):
            if not is_test_file(member.path):
                target = Target(self.file_ids[member.path], "File")
                out.reference(f.path, file_target, "IMPORTS", imp.module, imp.line, target)

    def _emit(
        self, out: SubgraphEmitter, path: str, source: Target, edge_type: str, raw: str, line: int, value: _Value
    ) -> Edge:
        external = value.name if isinstance(value, _Ext) and not isinstance(value, _FuncValue) else None
        # Calling a value (a parameter or field of a function type such as `next HandlerFunc`
        # or `onStart func()`) runs whatever function it holds: decided at run time, not a call
        # of the type.
        dynamic = edge_type == "CALLS" and isinstance(value, (_Inst, _FuncValue))
        target = self._target(value, edge_type)
        return out.reference(path, source, edge_type, raw, line, target, external=external, dynamic=dynamic)

    @staticmethod
    def _target(value: _Value, edge_type: str) -> Target | None:
        if isinstance(value, _Sym) and value.symbol.label in _TARGET_LABELS[edge_type]:
            return Target(value.symbol.id, value.symbol.label)
        return None


_TARGET_LABELS = {
    "CALLS": ("Class", "Function", "Method"),
    "INHERITS_FROM": ("Class", "Interface"),
    "IMPLEMENTS": ("Interface",),
    "PARAM_TYPE": ("Class", "Interface"),
    "RETURNS_TYPE": ("Class", "Interface"),
}


def _label(d: Definition, defs: list[Definition], receiver: str | None) -> str:
    if d.kind == "interface":
        return "Interface"
    if d.kind == "class":
        return "Class"
    if receiver is not None or d.parent is not None:
        return "Method"
    return "Function"


def _scan(text: str) -> Iterator[tuple[int, str, int]]:
    """(index, character, bracket depth before it) of each character of Go code outside its
    string and rune literals, then ``(len(text), "", depth at the end)``; a depth of -1 (the
    last yielded) says the text is unbalanced: a bracket closed that never opened, or a
    literal left open."""
    depth, quote, escaped = 0, "", False
    for i, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote != "`":
                escaped = True
            elif char == quote:
                quote = ""
            continue
        if char in "\"'`":
            quote = char
            continue
        yield i, char, depth
        depth += char in "([{"
        depth -= char in ")]}"
        if depth < 0:
            break
    yield len(text), "", -1 if quote or depth < 0 else depth


def _selector_steps(raw: str) -> list[str] | None:
    """``a.b(x).c`` -> ``["a", "b(x)", "c"]``: a chain split at its top-level dots, the
    whitespace around them (a line break after a dot) dropped; None when the text is
    unbalanced (cut short)."""
    steps, start = [], 0
    for i, char, depth in _scan(raw):
        if depth < 0 or (not char and depth > 0):
            return None
        if char in (".", "") and depth == 0:
            steps.append(raw[start:i].strip())
            start = i + 1
    return steps if all(steps) else None


def _call_count(text: str) -> int | None:
    """How many argument lists ``text`` is (``(a)(b)``: 2); None when it is anything else."""
    calls = 0
    for _i, char, depth in _scan(text):
        if depth < 0 or (depth == 0 and char not in ("(", "")):
            return None
        calls += char == "(" and depth == 0
    return calls


def _type_parameters(d: Definition) -> set[str]:
    """The type parameters a function declares (``func Map[K comparable, V any](...)``) or a
    method's receiver names (``func (p *Page[T]) First() T``)."""
    declared = _FUNCTION_TYPE_PARAMETERS.match(d.signature) or _RECEIVER_TYPE_PARAMETERS.match(d.signature)
    if declared is None:
        return set()
    return {m.group(1) for part in declared.group(1).split(",") if (m := re.match(rf"\s*({_IDENTIFIER})", part))}


def _type_base(raw: str) -> str:
    """``*Order``, ``Order[T]`` -> ``Order``."""
    return _GENERIC_ARGS.sub("", raw).strip().lstrip("*&").strip()


def _type_names(raw: str) -> list[str]:
    """The type names a parameter or result type mentions, keywords aside."""
    names = []
    for name in _TYPE_NAME.findall(_GENERIC_ARGS.sub(lambda m: " " + m.group(0)[1:-1] + " ", raw)):
        if name not in _TYPE_KEYWORDS and name not in names:
            names.append(name)
    return names


def _arity(d: Definition) -> int:
    """How many parameters a method's signature declares (``a, b int`` is two)."""
    signature = d.signature
    start = signature.find(d.name + "(")
    if start < 0:
        return 0
    depth, i, params = 0, start + len(d.name), ""
    for i in range(start + len(d.name), len(signature)):
        char = signature[i]
        depth += char in "([{"
        depth -= char in ")]}"
        if depth == 0:
            params = signature[start + len(d.name) + 1 : i]
            break
    if not params.strip():
        return 0
    count, depth = 1, 0
    for char in params:
        depth += char in "([{"
        depth -= char in ")]}"
        count += char == "," and depth == 0
    return count


def _package_name(import_path: str) -> str:
    """The name a package is used by when imported without an alias: its path's last element
    (a major-version suffix ``/v2`` or ``.v3`` skipped; ``go-`` prefixes and ``.go`` suffixes
    dropped)."""
    parts = [p for p in import_path.split("/") if p]
    if len(parts) > 1 and re.fullmatch(r"v\d+", parts[-1]):
        parts.pop()
    last = parts[-1] if parts else import_path
    last = re.sub(r"\.v\d+$", "", last)  # gopkg.in/yaml.v3 is yaml
    return last.removeprefix("go-").removesuffix(".go").replace("-", "_")


def _go_modules(project_files: Mapping[str, bytes]) -> list[tuple[str, str]]:
    """(directory, module path) of every go.mod, deepest directory first."""
    modules = []
    for path, data in project_files.items():
        if path.rsplit("/", 1)[-1] != "go.mod":
            continue
        found = _MODULE_LINE.search(data.decode("utf-8", "replace"))
        if found:
            modules.append((path.rsplit("/", 1)[0] if "/" in path else "", found.group(1).strip('"')))
    return sorted(modules, key=lambda m: -len(m[0]))


def resolve_go(
    repo: str, branch: str, files: list[ParsedSource], project_files: Mapping[str, bytes] | None = None
) -> list[FileSubgraph]:
    """Resolve a whole commit's Go files into per-file graphs."""
    return GoResolver(repo, branch, files, project_files or {}).build()
