"""Resolve the references of a commit's Java files into graph nodes and edges.

A package is a folder below the source root (``core.languages.java.module_name``); its
top-level types are seen by every file of the package without an import. A simple name
resolves as javac finds it: the method's locals and parameters (a declared type, or ``var``
by its value), then the members of each enclosing class (its fields, methods and nested
types, then those it inherits through ``extends``/``implements``), then single-type and
static imports, the package's types, on-demand imports (``a.b.*``, ``static a.b.C.*``), and
``java.lang``. A dotted name continues through packages (``com.shop.Order``), types (a
static member, a nested type) and values (an instance's methods and fields, typed by their
declarations); ``this`` is the enclosing class's instance, ``super`` its base. A call picks
among a class's overloads by its number of arguments (varargs take the rest); two overloads
of the same arity are a guess and stay dangling. ``new T(...)`` calls the class. Any name
the repository does not define and that leaves it (the JDK, dependencies) is external.
Methods annotated ``@Test``, ``@ParameterizedTest``, ``@RepeatedTest``, ``@TestFactory`` or
``@TestTemplate`` (JUnit 4 and 5) are tests.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from branchgraph.core.extract import Assignment, Definition, Import, Reference, local_names
from branchgraph.core.languages.java import annotation_name, module_name
from branchgraph.core.model import Edge, FileSubgraph, node_id
from branchgraph.ingest.jdk_types import OBJECT_RESULTS, is_jdk_subtype
from branchgraph.ingest.read_log import MODULE, PACKAGE, ReadKey, TaggedSet, dotted_prefixes
from branchgraph.ingest.resolution import MAX_BASE_DEPTH, Binding, Resolver
from branchgraph.ingest.resolution import Elements as _Elements
from branchgraph.ingest.resolution import External as _Ext
from branchgraph.ingest.resolution import Instance as _Inst
from branchgraph.ingest.resolution import Module as _Mod
from branchgraph.ingest.resolution import ResolvedSymbol as _Symbol
from branchgraph.ingest.resolution import SymbolValue as _Sym
from branchgraph.ingest.subgraphs import ParsedSource, SubgraphEmitter, Target

_IDENTIFIER = r"[A-Za-z_$][\w$]*"
_DOTTED = re.compile(rf"^{_IDENTIFIER}(\.{_IDENTIFIER})*$")
# A call's arguments in a chain, a `…` each (core/extract._called): `()`, `(…)`, `(…, …)`.
_ARGUMENTS = r"\((?:…(?:, …)*)?\)"
# `repo.find(…).total`, `new Order(…).total`: a member of what a call gives (core/extract._callee).
_CONSTRUCTED = re.compile(rf"^(.*)({_ARGUMENTS})\.({_IDENTIFIER}(?:\.{_IDENTIFIER})*)$")
# `repo.find(…)`: what a call gives (an argument's hint).
_CALL_RESULT = re.compile(rf"^(.*)({_ARGUMENTS})$")
_GENERIC_ARGS = re.compile(r"<[^<>]*>")
_ENUM_HEADER = re.compile(r"(^|\s)enum\s")
_RECORD_HEADER = re.compile(r"(^|\s)record\s")
# What every object and every enum has without declaring it.
_OBJECT_METHODS = frozenset("toString hashCode equals getClass clone finalize notify notifyAll wait".split())
_ENUM_METHODS = frozenset("name ordinal compareTo values valueOf getDeclaringClass describeConstable".split())
# Packages whose annotation processors write members no source declares.
_GENERATORS = ("lombok", "com.google.auto.value", "org.immutables")
# `"p".equals`: a method of a string literal.
_STRING_MEMBER = re.compile(rf'^"(?:[^"\\]|\\.)*"\.({_IDENTIFIER})$')
# `((TextNode) node).text`: a member of a cast's type.
_CAST = re.compile(rf"^\(\(\s*([\w.]+(?:<[^()]*>)?(?:\[\])*)\s*\).*\)\.({_IDENTIFIER}(?:\.{_IDENTIFIER})*)$")
# A call of one of java.lang.Object's methods, as an argument's hint (`=sb.toString()`).
_OBJECT_METHOD_CALL = re.compile(rf"(?:^=|\.)({'|'.join(OBJECT_RESULTS)}){_ARGUMENTS}$")
_TYPE_NAME = re.compile(rf"{_IDENTIFIER}(?:\.{_IDENTIFIER})*")
_TEST_ANNOTATIONS = frozenset({"Test", "ParameterizedTest", "RepeatedTest", "TestFactory", "TestTemplate"})
PRIMITIVES = frozenset("boolean byte char short int long float double void var".split())
_NUMERIC = frozenset(
    "byte short char int long float double Byte Short Character Integer Long Float Double Number".split()
)
# The types every file sees without an import (java.lang), the ones code calls or names.
JAVA_LANG = frozenset(
    """
    Object String StringBuilder StringBuffer CharSequence Math StrictMath System Runtime Thread Runnable
    Integer Long Short Byte Double Float Boolean Character Number Void Enum Record Class ClassLoader
    Iterable Comparable AutoCloseable Cloneable Override Deprecated SuppressWarnings FunctionalInterface
    SafeVarargs Exception RuntimeException Error Throwable IllegalArgumentException IllegalStateException
    NullPointerException UnsupportedOperationException IndexOutOfBoundsException ArithmeticException
    ClassCastException NumberFormatException InterruptedException CloneNotSupportedException
    ArrayIndexOutOfBoundsException SecurityException ReflectiveOperationException StackOverflowError
    OutOfMemoryError AssertionError ThreadLocal InheritableThreadLocal Process ProcessBuilder
    """.split()
)


# A library container of one in-repo type (`List<Order>`, `Optional<Order>`, a class extending
# `ArrayList<Element>`): external, but what its element getters return is known.
@dataclass(frozen=True, slots=True)
class _Container(_Ext):
    element: _Symbol


# One of a container's element getters (`orders.get`, `found.orElseThrow`): calling it gives an element.
@dataclass(frozen=True, slots=True)
class _Getter(_Ext):
    element: _Symbol


_Value = _Mod | _Sym | _Inst | _Ext | _Elements | None  # _Mod names a package (or a prefix of one)
_CONTAINERS = frozenset(
    """
    List ArrayList LinkedList Collection Set HashSet LinkedHashSet TreeSet SortedSet NavigableSet Queue Deque
    ArrayDeque PriorityQueue Iterable Iterator ListIterator Optional Stream Supplier Future CompletableFuture
    CopyOnWriteArrayList Vector Stack AtomicReference ThreadLocal SequencedCollection SequencedSet
    """.split()
)
_ELEMENT_GETTERS = frozenset(
    """
    get getFirst getLast remove removeFirst removeLast poll pollFirst pollLast peek peekFirst peekLast pop
    element first last next previous orElse orElseThrow orElseGet join getNow findFirst findAny
    """.split()
)
_CONTAINER_VIEWS = frozenset("iterator listIterator stream reversed subList descendingIterator filter sorted".split())


class JavaResolver(Resolver):
    """Resolves all Java files of one commit of one branch."""

    TYPE_LABELS = ("Class", "Interface")
    ENCLOSING_KINDS = ("class", "interface")  # an interface's default methods have a `this`
    DOTTED = _DOTTED

    TRACKS_READS = True

    def __init__(self, repo: str, branch: str, files: list[ParsedSource], project_files: Mapping[str, bytes]):
        super().__init__(repo, branch, files)
        log = self.reads
        assert log is not None  # TRACKS_READS
        # What a package's files declare is read by package (same-package names need no import).
        self.packages: dict[str, list[ParsedSource]] = self._path_table(PACKAGE)
        for f in files:
            self.packages.setdefault(module_name(f.path), []).append(f)
        self.package_prefixes: set[str] = TaggedSet(log, MODULE)
        self.package_prefixes.update(prefix for name in self.packages if name for prefix in dotted_prefixes(name))
        self.package_types: dict[str, dict[str, _Symbol]] = self._path_table(PACKAGE)
        # (path, class index) -> method name -> its overloads
        self.overloads: dict[tuple[str, int | None], dict[str, list[_Symbol]]] = self._table()
        self.wildcards: dict[str, list[str]] = self._path_table()
        self.return_types: dict[tuple[str, int], str] = self._table()
        self._base_refs: dict[tuple[str, int], list[tuple[str, int, str]]] = self._table()
        self._parameter_types: dict[str, list[str]] = {}  # method id -> its parameters' types
        for f in files:
            self._index_file(f)
        self._by_id = {s.id: s for s in self.symbols.values()}

    # ----- indexing -------------------------------------------------------------------

    def _index_file(self, f: ParsedSource) -> None:
        package = module_name(f.path)
        self.file_ids[f.path] = node_id(self.repo, self.branch, f.path, "File", package)
        defs = f.parsed.definitions
        seen: Counter[tuple[str, str]] = Counter()
        for index, (d, local) in enumerate(zip(defs, local_names(defs), strict=True)):
            label = _label(d)
            qualname = f"{package}.{local}" if package else local
            symbol = self._add_symbol(f, index, label, qualname, seen)
            symbol.is_test = label == "Method" and any(annotation_name(a) in _TEST_ANNOTATIONS for a in d.decorators)
            self._add_member_name(f.path, d.name)
            siblings = self.children.setdefault((f.path, d.parent), {})
            if label == "Method" and d.parent is not None and defs[d.parent].name == d.name:
                continue  # a constructor: `new T(...)` calls the class, and it is no member
            if label == "Method":
                self.overloads.setdefault((f.path, d.parent), {}).setdefault(d.name, []).append(symbol)
                siblings.setdefault(d.name, symbol)
            else:
                siblings[d.name] = symbol
                if d.parent is None:
                    self.package_types.setdefault(package, {})[d.name] = symbol
        for imp in self._imports(f):
            if imp.name == "*":
                self.wildcards.setdefault(f.path, []).append(imp.module)
            elif imp.name:
                self._bind(f.path, None, imp.name, ("import", imp.module, imp.name))
        for a in f.parsed.assignments:
            self._index_assignment(f, a)
        for ref in f.parsed.references:
            if ref.scope is None:
                continue
            if ref.kind == "param_type" and ref.param:
                self._bind(f.path, ref.scope, ref.param, ("annotated", ref.raw, ref.scope))
            elif ref.kind == "return_type":
                self.return_types[(f.path, ref.scope)] = ref.raw
            elif ref.kind in ("base", "implements"):
                self._base_refs.setdefault((f.path, ref.scope), []).append((ref.raw, ref.line, ref.kind))
        for index, d in enumerate(defs):
            enum = _enum_of_constant(d, defs)
            if enum is not None:  # `OPEN { ... }` extends its enum, unwritten
                self._base_refs.setdefault((f.path, index), []).append((enum.name, d.start_line, "base"))

    def changed_keys(self, changed: set[str], added_or_deleted: set[str]) -> set[ReadKey]:
        """A changed file changes what its package declares; a package appearing or vanishing
        changes its name and every dotted prefix of it."""
        keys: set[ReadKey] = {(PACKAGE, module_name(path)) for path in changed if path.endswith(".java")}
        for path in added_or_deleted:
            if path.endswith(".java"):
                keys.update((MODULE, prefix) for prefix in dotted_prefixes(module_name(path)))
        return keys

    @staticmethod
    def _imports(f: ParsedSource) -> list[Import]:
        """The file's imports; `import a.b.*` also matches the single-type pattern (as `a` .
        `b`), which is left out."""
        wildcard_lines = {imp.line for imp in f.parsed.imports if imp.name == "*"}
        return [imp for imp in f.parsed.imports if imp.name == "*" or imp.line not in wildcard_lines]

    def _index_assignment(self, f: ParsedSource, a: Assignment) -> None:
        defs = f.parsed.definitions
        if a.kind == "annotation" and a.callee.strip() == "var":
            return  # `var x = ...`: the value says what x is
        binding: Binding = (
            ("annotated", a.callee, a.scope) if a.kind == "annotation" else ("call_result", a.callee, a.scope)
        )
        if a.scope is not None and defs[a.scope].kind in ("class", "interface"):  # a field
            self._add_member_name(f.path, a.name)
            self.attributes.setdefault((f.path, a.scope), {}).setdefault(a.name, []).append(binding)
        elif a.scope is not None:
            self._note_declaration(f.path, a.scope, a.name, a.line)
            # A declared type wins over the value; the first declaration of a name binds it.
            existing = self.bindings.get((f.path, a.scope), {}).get(a.name)
            if existing is None or (a.kind == "annotation" and existing[0] != "annotated"):
                self._bind(f.path, a.scope, a.name, binding)

    # ----- name resolution ------------------------------------------------------------

    def _resolve_binding(self, path: str, binding: Binding) -> _Value:
        kind = binding[0]
        if kind == "annotated":
            return self._instance_of(self._resolve_type(path, binding[1], binding[2]))
        if kind == "call_result":
            return self._call_result(self._resolve_dotted(path, binding[2], binding[1]))
        if kind == "import":
            return self._imported(binding[1], binding[2])
        raise AssertionError(f"unknown binding {binding!r}")

    def _imported(self, module: str, name: str) -> _Value:
        """``import a.b.C`` (a type of package a.b) or ``import static a.b.C.m`` (a member of
        type C); anything the repository has no package for is external."""
        if module in self.packages:
            found = self.package_types.get(module, {}).get(name)
            return _Sym(found) if found is not None else None
        owner = self._type_named(module)
        if owner is not None:
            return self._class_member(owner, name, set())
        return _Ext(f"{module}.{name}")

    def _type_named(self, dotted: str) -> _Symbol | None:
        """The in-repo type a fully qualified name names (``a.b.C``, a nested ``a.b.C.D``)."""
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            package, rest = ".".join(parts[:cut]), parts[cut:]
            if package not in self.packages:
                continue
            found = self.package_types.get(package, {}).get(rest[0])
            for nested in rest[1:]:
                child = self.children.get((found.file.path, found.index), {}).get(nested) if found else None
                found = child if child is not None and child.label in self.TYPE_LABELS else None
            return found
        return None

    def _call_result(self, callee: _Value, arguments: int | None = None) -> _Value:
        """What a call gives: a new instance of a class, or what a method's declared return
        type is (when the overloads taking that many ``arguments``, when known, agree on it:
        a getter and its setter overload apart, `data(key, value)` and `data(key)`)."""
        if isinstance(callee, _Getter):
            return _Inst(callee.element)
        if isinstance(callee, _Container) and callee.name.rsplit(".", 1)[-1] in _CONTAINER_VIEWS:
            return _Container(f"{callee.name}()", callee.element)  # `orders.stream()`, `list.iterator()`
        if isinstance(callee, _Ext):
            return _Ext(f"{callee.name}()")
        if not isinstance(callee, _Sym):
            return None
        symbol = callee.symbol
        if symbol.label in self.TYPE_LABELS:
            return _Inst(symbol)
        d = symbol.definition
        overloads = self.overloads.get((symbol.file.path, d.parent), {}).get(d.name, [symbol])
        if arguments is not None:
            overloads = [o for o in overloads if self._takes(o, arguments)] or overloads
        declared = {self.return_types.get((o.file.path, o.index)) for o in overloads}
        if len(declared) != 1 or None in declared:
            return None
        return self._instance_of(self._resolve_type(symbol.file.path, declared.pop() or "", d.parent))

    def _lookup_uncached(self, path: str, scope: int | None, name: str) -> _Value:
        defs = self._file(path).parsed.definitions
        current = scope
        # What an external base might have (`Map.Entry`'s members): only when nothing of the
        # repository or the imports answers the name, since the base's members are not known.
        inherited: _Value = None
        while current is not None:
            d = defs[current]
            if d.kind in ("class", "interface"):
                cls = self.symbols[(path, current)]
                if name == "this":
                    return _Inst(cls)
                found = self._class_member(cls, name, set())
                if isinstance(found, _Ext) and not self._declares(cls, name, set()):
                    inherited = inherited or found
                elif found is not None:
                    return found
                if d.name == name:
                    return _Sym(cls)
            else:
                binding = self.bindings.get((path, current), {}).get(name)
                if binding is not None:
                    return self._resolve_binding(path, binding)
            current = d.parent
        binding = self.bindings.get((path, None), {}).get(name)
        if binding is not None:
            return self._resolve_binding(path, binding)
        own = self.package_types.get(module_name(path), {}).get(name)
        if own is not None:
            return _Sym(own)
        for module in self.wildcards.get(path, ()):
            found = self._on_demand(module, name)
            if found is not None:
                return found
        if name in JAVA_LANG:
            return _Ext(f"java.lang.{name}")
        if name in OBJECT_RESULTS and self._enclosing_class(path, scope) is not None:
            return _Ext(f"java.lang.Object.{name}")  # `getClass()` in a class declaring none
        if name in self.package_prefixes:
            return _Mod(name)
        return self._from_outside(path, name) or inherited

    def _declares(self, cls: _Symbol, name: str, seen: set[str]) -> bool:
        """Whether the class or one of its in-repo bases declares ``name`` (a field, a method,
        a nested type): a field typed by a library class (``final InputStream in``) is a
        sure answer, where what a library base (``extends InputStream``) has is assumed."""
        if cls.id in seen or len(seen) > MAX_BASE_DEPTH:
            return False
        seen.add(cls.id)
        key = (cls.file.path, cls.index)
        if name in self.children.get(key, {}) or name in self.attributes.get(key, {}):
            return True
        return any(
            isinstance(base, _Sym) and base.symbol.label in self.TYPE_LABELS and self._declares(base.symbol, name, seen)
            for _raw, _line, base in self._class_bases(cls)
        )

    def _from_outside(self, path: str, name: str) -> _Value:
        """A name nothing of the repository answers, in a file with on-demand imports from
        outside it: theirs (``assertEquals`` of ``static org.junit...Assertions.*``, ``List``
        of ``java.util.*``); by convention a static import's module ends with its class
        (capitalized), a package's does not. Named after the one such import, else bare."""
        outside = [m for m in self.wildcards.get(path, ()) if m not in self.packages and self._type_named(m) is None]
        if not outside:
            return None
        candidates = [m for m in outside if m.rsplit(".", 1)[-1][:1].isupper() != name[:1].isupper()]
        return _Ext(f"{candidates[0]}.{name}" if len(candidates) == 1 else name) if candidates else None

    def _on_demand(self, module: str, name: str) -> _Value:
        """``import a.b.*`` (a type of package a.b) or ``import static a.b.C.*`` (a static
        member of C); an external package's names are not known, so they answer nothing."""
        if module in self.packages:
            found = self.package_types.get(module, {}).get(name)
            return _Sym(found) if found is not None else None
        owner = self._type_named(module)
        return self._class_member(owner, name, set()) if owner is not None else None

    def _member_uncached(self, value: _Value, attr: str) -> _Value:
        if isinstance(value, _Container):
            if attr in _ELEMENT_GETTERS:
                return _Getter(f"{value.name}.{attr}", value.element)
            if attr in _CONTAINER_VIEWS:
                return _Container(f"{value.name}.{attr}", value.element)
            return _Ext(f"{value.name}.{attr}")
        if isinstance(value, _Ext):
            return _Ext(f"{value.name}.{attr}")
        if isinstance(value, _Mod):
            found = self.package_types.get(value.name, {}).get(attr)
            if found is not None:
                return _Sym(found)
            sub = f"{value.name}.{attr}"
            if sub in self.package_prefixes:
                return _Mod(sub)
            # `org.w3c.dom.Document` beside the repository's `org.jsoup`: a package of no one here
            # (a name missing from one of the repository's own packages stays unresolved).
            return None if value.name in self.packages else _Ext(sub)
        if isinstance(value, (_Sym, _Inst)) and value.symbol.label in self.TYPE_LABELS:
            return self._class_member(value.symbol, attr, set())
        if isinstance(value, _Elements) and attr == "length":
            return _Ext("int")
        return None

    def _class_member(self, cls: _Symbol, attr: str, seen: set[str]) -> _Value:
        """As every resolver finds members; past a library container base (`extends
        ArrayList<Element>`), its element getters return elements."""
        outermost = not seen  # the class asked about, not one of its bases on the way
        found = super()._class_member(cls, attr, seen)
        if isinstance(found, _Ext) and not isinstance(found, (_Getter, _Container)):
            for _raw, _line, base in self._class_bases(cls):
                if isinstance(base, _Container):
                    return self._member(base, attr)
        if found is None and attr in _OBJECT_METHODS and outermost:
            return _Ext(f"java.lang.Object.{attr}")  # every type has Object's methods
        return found

    def _bases_uncached(self, cls: _Symbol) -> list[tuple[str, int, _Value]]:
        parent = cls.definition.parent
        return [
            (raw, line, self._resolve_type(cls.file.path, raw, parent))
            for raw, line, _kind in self._base_refs.get((cls.file.path, cls.index), ())
        ]

    def _resolve_dotted(self, path: str, scope: int | None, raw: str) -> _Value:
        """Resolve a callee or an expression as written in ``scope`` of ``path``."""
        raw = _strip_generics(raw.strip())
        if raw.startswith("super."):
            return self._super_member(path, scope, raw[len("super.") :])
        literal = _STRING_MEMBER.match(raw)
        if literal:  # `"p".equals(name)`
            return _Ext(f"java.lang.String.{literal.group(1)}")
        called = _CALL_RESULT.match(raw)
        if called:  # what a call gives (an argument's type)
            return self._called(path, scope, called.group(1), called.group(2).count("…"))
        constructed = _CONSTRUCTED.match(raw)
        if constructed:
            value = self._called(path, scope, constructed.group(1), constructed.group(2).count("…"))
            return self._members(value, constructed.group(3))
        cast = _CAST.match(raw)
        if cast:
            return self._members(self._instance_of(self._resolve_type(path, cast.group(1), scope)), cast.group(2))
        if not _DOTTED.match(raw):
            return None
        return self._dotted_chain(path, scope, raw)

    def _members(self, value: _Value, attrs: str) -> _Value:
        """``value``'s member ``a.b`` (for ``attrs`` "a.b")."""
        for attr in attrs.split("."):
            value = self._member(value, attr) if value is not None else None
        return value

    def _dotted_chain(self, path: str, scope: int | None, raw: str) -> _Value:
        """``a.b.c``, where a name before a dot is a value — a variable, a field or a type,
        never the method of the same name (Java keeps the two apart: ``tag.namespace()`` in
        a class with a field ``tag`` and a method ``tag()`` is the field's)."""
        head, *rest = raw.split(".")
        value = self._lookup(path, scope, head)
        if rest and _is_method(value):
            value = self._memo(("field", path, scope, head), lambda: self._enclosing_field(path, scope, head))
        for position, attr in enumerate(rest):
            if value is None:
                return None
            owner = value
            value = self._member(value, attr)
            if position < len(rest) - 1 and _is_method(value) and isinstance(owner, (_Sym, _Inst)):
                value = self._field_of(owner.symbol, attr, set())
        return value

    def _enclosing_field(self, path: str, scope: int | None, name: str) -> _Value:
        """The field ``name`` of the innermost enclosing class that has one (or a base of it)."""
        defs = self._file(path).parsed.definitions
        while scope is not None:
            if defs[scope].kind in ("class", "interface"):
                found = self._field_of(self.symbols[(path, scope)], name, set())
                if found is not None:
                    return found
            scope = defs[scope].parent
        return None

    def _field_of(self, cls: _Symbol, name: str, seen: set[str]) -> _Value:
        """What the field ``name`` of ``cls`` or of its in-repo bases holds."""
        if cls.id in seen or len(seen) > MAX_BASE_DEPTH:
            return None
        seen.add(cls.id)
        found = self._memo(("attribute", cls.id, name), lambda: self._instance_attribute(cls, name))
        if found is not None:
            return found
        for _raw, _line, base in self._class_bases(cls):
            if isinstance(base, _Sym) and base.symbol.label in self.TYPE_LABELS:
                found = self._field_of(base.symbol, name, seen)
                if found is not None:
                    return found
        return None

    def _called(self, path: str, scope: int | None, head: str, arguments: int) -> _Value:
        """What ``head(...)`` gives: a new object (``new T``), or a method's result."""
        if head.startswith("new ") and _DOTTED.match(head[len("new ") :]):
            return self._instance_of(self._resolve_type(path, head[len("new ") :], scope))
        return self._call_result(self._resolve_dotted(path, scope, head), arguments)

    def _super_member(self, path: str, scope: int | None, rest: str) -> _Value:
        owner = self._enclosing_class(path, scope)
        if owner is None:
            return None
        head, _, more = rest.partition(".")
        value: _Value = None
        for _raw, _line, base in self._class_bases(owner):
            if isinstance(base, _Sym):
                value = self._class_member(base.symbol, head, set())
            elif isinstance(base, _Ext):
                value = _Ext(f"{base.name}.{head}")
            if value is not None:
                break
        return self._members(value, more) if more else value

    def _resolve_type(self, path: str, raw: str, scope: int | None) -> _Value:
        """The type a declaration names: ``Order``, ``Order.Line``, ``com.shop.Order``;
        ``Order[]`` is an array of Order; ``List<Order>`` is List (its arguments say nothing
        about its methods); primitives are no type of the repository."""
        raw = re.sub(r"@\w+(\([^)]*\))?\s*", "", raw.strip()).strip()  # type annotations: `@NonNull Order`
        container = re.fullmatch(r"([\w.]+)\s*<\s*(?:\?\s*extends\s+)?([\w.]+)\s*>", raw)
        if container and container.group(1).rsplit(".", 1)[-1] in _CONTAINERS:
            element = self._resolve_type(path, container.group(2), scope)
            outer = self._resolve_type(path, container.group(1), scope)
            if isinstance(element, _Sym) and element.symbol.label in self.TYPE_LABELS and isinstance(outer, _Ext):
                return _Container(outer.name, element.symbol)
        raw = _strip_generics(raw)
        if raw.endswith("[]") or raw.endswith("..."):
            element = self._resolve_type(path, raw.removesuffix("...").removesuffix("[]"), scope)
            return _Elements(element.symbol) if isinstance(element, _Sym) else None
        if raw in PRIMITIVES or not _DOTTED.match(raw):
            return None
        return self._dotted_chain(path, scope, raw)

    def _pick_overload(self, path: str, ref: Reference, value: _Value) -> _Value:
        """Among a method's overloads in its class, the one a call's arguments fit: by their
        number (a varargs overload takes any number from its fixed ones up), then, among
        several of that number, by the types the arguments' text or declarations give
        (``parse("<p>")`` is ``parse(String)``, not ``parse(File)``). Still several: a guess,
        which stays dangling."""
        if not isinstance(value, _Sym) or value.symbol.label != "Method" or ref.arguments is None:
            return value
        return self._overload_in(path, ref, value.symbol, set())

    def _overload_in(self, path: str, ref: Reference, method: _Symbol, seen: set[str]) -> _Value:
        """The overload of ``method``'s name in its class that the call fits, else the one
        its bases declare (``doc.text()`` is Element's ``text()`` when Document declares only
        ``text(String)``); a single overload stands when no base has a better one."""
        d = method.definition
        overloads = self.overloads.get((method.file.path, d.parent), {}).get(d.name, [method])
        arguments = ref.arguments or 0
        exact = [o for o in overloads if self._arity(o) == (arguments, False)]
        variadic = [o for o in overloads if self._arity(o)[1] and arguments >= self._arity(o)[0] - 1]
        matching = exact or variadic
        if len(matching) > 1 and ref.argument_types:
            types = [self._argument_type(path, ref.scope, hint) for hint in ref.argument_types]
            matching = [o for o in matching if self._fits(o, types)]
        if len(matching) == 1:
            return _Sym(matching[0])
        if matching:
            return None  # several fit: a guess
        owner = self.symbols.get((method.file.path, d.parent)) if d.parent is not None else None
        if owner is not None and owner.id not in seen:
            seen.add(owner.id)
            for _raw, _line, base in self._class_bases(owner):
                inherited = self._class_member(base.symbol, d.name, set()) if isinstance(base, _Sym) else None
                if isinstance(inherited, _Sym) and inherited.symbol.label == "Method":
                    found = self._overload_in(path, ref, inherited.symbol, seen)
                    if found is not None:
                        return found
        return _Sym(method) if len(overloads) == 1 else None

    def _parameters(self, method: _Symbol) -> list[str]:
        """The method's declared parameter types, parsed from its signature once."""
        found = self._parameter_types.get(method.id)
        if found is None:
            found = self._parameter_types[method.id] = _parameter_types(method.definition)
        return found

    def _takes(self, method: _Symbol, arguments: int) -> bool:
        """Whether ``method`` can be called with that many arguments (varargs take the rest)."""
        fixed, varargs = self._arity(method)
        return arguments >= fixed - 1 if varargs else arguments == fixed

    def _arity(self, method: _Symbol) -> tuple[int, bool]:
        """How many parameters the method declares, and whether the last is varargs."""
        parameters = self._parameters(method)
        return len(parameters), bool(parameters) and parameters[-1].endswith("...")

    def _argument_type(self, path: str, scope: int | None, hint: str) -> tuple[str, _Symbol | None] | None:
        """(simple type name, its in-repo class) of a call argument, None when not known."""
        if not hint:
            return None
        if not hint.startswith("="):
            found = self._resolve_type(path, hint, scope) if hint not in PRIMITIVES else None
            return (hint.rsplit(".", 1)[-1], found.symbol if isinstance(found, _Sym) else None)
        object_method = _OBJECT_METHOD_CALL.search(hint)
        if object_method is not None:  # `sb.toString()`: a String, whatever `sb` is
            return (OBJECT_RESULTS[object_method.group(1)], None)
        value = self._resolve_dotted(path, scope, hint[1:])
        if isinstance(value, _Inst):
            return (value.symbol.definition.name, value.symbol)
        if isinstance(value, _Ext) and not value.name.endswith(")"):
            return (value.name.rsplit(".", 1)[-1], None)
        return None

    def _fits(self, method: _Symbol, types: list[tuple[str, _Symbol | None] | None]) -> bool:
        """Whether each argument whose type is known can be passed to the method's parameter."""
        parameters = self._parameters(method)
        for position, known in enumerate(types):
            if known is None or not parameters:
                continue
            declared = parameters[min(position, len(parameters) - 1)]
            if declared.endswith("...") and position >= len(parameters) - 1:
                declared = declared[: -len("...")]
            if not self._assignable(known, _strip_generics(declared).strip().rsplit(".", 1)[-1]):
                return False
        return True

    def _assignable(self, known: tuple[str, _Symbol | None], parameter: str, depth: int = 0) -> bool:
        name, symbol = known
        if name == parameter or parameter == "Object" or re.fullmatch(r"[A-Z]\d?", parameter):
            return True  # the same type, Object, or a type variable (`T`)
        if name == "null":
            return parameter not in PRIMITIVES
        if name in _NUMERIC and parameter in _NUMERIC:
            return True
        if name == "String" and parameter in ("Comparable", "Serializable"):
            return True
        if symbol is None and is_jdk_subtype(name, parameter):  # `new ByteArrayInputStream(b)` for an InputStream
            return True
        if symbol is not None and depth < MAX_BASE_DEPTH:  # a subclass where a supertype is declared
            return any(
                isinstance(base, _Sym)
                and self._assignable((base.symbol.definition.name, base.symbol), parameter, depth + 1)
                for _raw, _line, base in self._class_bases(symbol)
            )
        return False

    def origin(self, path: str, scope: int | None, raw: str, depth: int = 0) -> tuple[str, str] | None:
        return None

    def _attribute_origin(self, path: str, scope: int | None, head: str, attr: str, depth: int) -> None:
        return None

    def _imported_origin(self, path: str, binding: Binding, depth: int) -> None:
        return None

    def module_path(self, module: str) -> str | None:
        files = self.packages.get(module)
        return files[0].path if files else None

    # ----- graph output ---------------------------------------------------------------

    def _module_qualname(self, path: str) -> str:
        return module_name(path)

    def _emit_references(self, f: ParsedSource, out: SubgraphEmitter, file_target: Target) -> None:
        for symbol in (self.symbols[(f.path, index)] for index in range(len(f.parsed.definitions))):
            if symbol.label not in self.TYPE_LABELS:
                continue
            kinds = {(raw, line): kind for raw, line, kind in self._base_refs.get((f.path, symbol.index), ())}
            for raw, line, base in self._class_bases(symbol):
                edge_type = "IMPLEMENTS" if kinds.get((raw, line)) == "implements" else "INHERITS_FROM"
                value = base if base is not None else self._outside(raw)
                self._emit(out, f.path, Target(symbol.id, symbol.label), edge_type, _strip_generics(raw), line, value)
        for imp in self._imports(f):
            self._emit_import(out, f, file_target, imp)
        for ref in f.parsed.references:
            source = self.scope_target(f.path, ref.scope)
            if ref.kind == "call":
                edge = self._emit(out, f.path, source, "CALLS", ref.raw, ref.line, self._callee(f.path, ref))
                if edge.resolved and ref.scope is not None:
                    self._emit_tested_by(out, f, ref.scope, edge)
            elif ref.kind == "value":  # a method reference
                self._emit_named_value(out, f.path, source, ref, ("Class", "Method"), self._method_referenced)
            elif ref.kind in ("param_type", "return_type"):
                edge_type = "PARAM_TYPE" if ref.kind == "param_type" else "RETURNS_TYPE"
                scope = f.parsed.definitions[ref.scope].parent if ref.scope is not None else None
                for name in _type_names(ref.raw):
                    value = self._resolve_type(f.path, name, scope)
                    if isinstance(value, _Elements):
                        value = _Sym(value.symbol)
                    self._emit(out, f.path, source, edge_type, name, ref.line, value or self._outside(name))

    def _method_referenced(self, path: str, ref: Reference) -> _Value:
        """What a method reference names: `Order::total`, `this::handle`, `store::save` (the
        declared type's method); `Line::new`, the class."""
        receiver, _, member = re.sub(r"\s+", "", ref.raw).rpartition("::")
        if not receiver:
            return None
        if member == "new":
            return self._resolve_type(path, receiver, ref.scope)
        return self._resolve_dotted(path, ref.scope, f"{receiver}.{member}")

    def _callee(self, path: str, ref: Reference) -> _Value:
        if ref.node_type == "object_creation_expression":
            # `new T(...)`; `new Listener() { ... }` makes an anonymous implementation of it.
            value = self._resolve_type(path, ref.raw, ref.scope)
            return value if value is not None else self._outside(ref.raw)
        value = self._pick_overload(path, ref, self._resolve_dotted(path, ref.scope, ref.raw))
        bare = re.sub(_ARGUMENTS, "", ref.raw)
        if value is None and self._leaves_repository(bare):
            if self._lacks_method(path, ref.scope, bare):
                return None  # `state.readAll()` on an in-repo type that has no such method
            return _Ext(ref.raw)
        return value

    def _receiver_certain(self, path: str, scope: int | None, head: str, method: str) -> bool:
        """Never for ``java.lang.Object``'s methods, which every type has, nor in code of an
        anonymous or local class: its ``this`` is an instance of a type the graph does not hold."""
        if method in _OBJECT_METHODS:
            return False
        defs = self._file(path).parsed.definitions
        outer = defs[scope].parent if scope is not None else None
        if outer is not None and defs[outer].kind == "function":
            return False
        return super()._receiver_certain(path, scope, head, method)

    def _members_known(self, cls: _Symbol, method: str) -> bool:
        """Not a record's (its accessors are written nowhere) nor a class of a file importing a
        code generator; an enum has Enum's methods (an enum constant's class, through its enum)."""
        signature = cls.definition.signature
        if _RECORD_HEADER.search(signature) or any(
            imp.module.startswith(_GENERATORS) for imp in cls.file.parsed.imports
        ):
            return False
        return not (_ENUM_HEADER.search(signature) and method in _ENUM_METHODS)

    def _outside(self, raw: str) -> _Value:
        """A type nothing in the repository answers to: ``java.lang``'s, a qualified name of no
        package of the repository, or any name no definition of the repository carries."""
        base = _strip_generics(raw).strip()
        if base in PRIMITIVES:
            return None
        head = base.split(".")[0]
        if base in JAVA_LANG or ("." in base and head not in self.package_prefixes):
            return _Ext(base)
        return _Ext(base) if base.rsplit(".", 1)[-1] not in self.member_names else None

    def _emit_import(self, out: SubgraphEmitter, f: ParsedSource, file_target: Target, imp: Import) -> None:
        """A single-type or static import is of that type or member; an on-demand import of
        a package is of each of its files."""
        raw = f"{imp.module}.{imp.name}"
        if imp.name == "*" and imp.module in self.packages:
            for member in sorted(self.packages[imp.module], key=lambda g: g.path):
                out.reference(f.path, file_target, "IMPORTS", raw, imp.line, Target(self.file_ids[member.path], "File"))
            return
        if imp.name == "*":
            owner = self._type_named(imp.module)
            value: _Value = _Sym(owner) if owner is not None else _Ext(imp.module)
        else:
            value = self._imported(imp.module, imp.name or "")
        self._emit(out, f.path, file_target, "IMPORTS", raw, imp.line, value)

    def _emit(
        self, out: SubgraphEmitter, path: str, source: Target, edge_type: str, raw: str, line: int, value: _Value
    ) -> Edge:
        external = value.name if isinstance(value, _Ext) else None
        target = None
        if isinstance(value, _Sym) and value.symbol.label in _TARGET_LABELS[edge_type]:
            target = Target(value.symbol.id, value.symbol.label)
        return out.reference(path, source, edge_type, raw, line, target, external=external)


_TARGET_LABELS = {
    "CALLS": ("Class", "Interface", "Method"),
    "IMPORTS": ("Class", "Interface", "Method"),
    "INHERITS_FROM": ("Class", "Interface"),
    "IMPLEMENTS": ("Interface",),
    "PARAM_TYPE": ("Class", "Interface"),
    "RETURNS_TYPE": ("Class", "Interface"),
}


def _label(d: Definition) -> str:
    if d.kind == "interface":
        return "Interface"
    return "Class" if d.kind == "class" else "Method"


def _enum_of_constant(d: Definition, defs: list[Definition]) -> Definition | None:
    """The enum of an enum constant with a body (``OPEN { ... }``, ``PAID("paid") { ... }``: a
    class directly in an enum whose header is its name and arguments, no keyword); None for
    any other definition."""
    if d.kind != "class" or d.parent is None:
        return None
    enum = defs[d.parent]
    if _ENUM_HEADER.search(enum.signature) is None or d.signature.split("(", 1)[0].strip() != d.name:
        return None
    return enum


def _is_method(value: _Value) -> bool:
    return isinstance(value, _Sym) and value.symbol.label == "Method"


def _strip_generics(raw: str) -> str:
    """``Map<String, List<Order>>`` -> ``Map``."""
    previous = None
    while previous != raw:
        previous, raw = raw, _GENERIC_ARGS.sub("", raw)
    return raw


def _type_names(raw: str) -> list[str]:
    """The type names a parameter or result type mentions (``Map<String, Order>``: Map,
    String, Order), primitives aside."""
    names = []
    for name in _TYPE_NAME.findall(re.sub(r"@\w+", " ", raw)):
        if name not in PRIMITIVES and name not in ("extends", "super") and name not in names:
            names.append(name)
    return names


def _parameter_types(d: Definition) -> list[str]:
    """The declared types of a method's parameters, in order (``Object...`` kept)."""
    signature = d.signature
    start = signature.find(d.name + "(")
    if start < 0:
        return []
    depth, params = 0, ""
    for i in range(start + len(d.name), len(signature)):
        char = signature[i]
        depth += char in "(<["
        depth -= char in ")>]"
        if depth == 0:
            params = signature[start + len(d.name) + 1 : i]
            break
    out, depth, current = [], 0, ""
    for char in params + ",":
        depth += char in "(<["
        depth -= char in ")>]"
        if char == "," and depth == 0:
            words = re.sub(r"@\w+(\([^)]*\))?|\bfinal\b", " ", current).split()
            if len(words) >= 2:
                out.append(" ".join(words[:-1]))
            current = ""
        else:
            current += char
    return out


def resolve_java(
    repo: str, branch: str, files: list[ParsedSource], project_files: Mapping[str, bytes] | None = None
) -> list[FileSubgraph]:
    """Resolve a whole commit's Java files into per-file graphs."""
    return JavaResolver(repo, branch, files, project_files or {}).build()
