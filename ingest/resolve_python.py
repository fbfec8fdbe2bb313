"""Resolve the references of a branch's Python files into graph nodes and edges.

Input: every parsed Python file of one commit. Output: one ``FileSubgraph`` per file (its nodes
and the edges it owns). Resolution follows Python's name lookup closely enough for a static
index: function scopes, then the module (imports, definitions, wildcard imports, package
re-exports), then builtins; attributes through modules, classes and their in-repo bases,
``self``/``cls``, parameters annotated with in-repo classes, ``x = Class(...)`` locals,
instance attributes (``self.x = Class(...)`` / ``= annotated_param`` / ``: Class`` in any
method, ``x: Class`` in the class body: every assignment must agree) and the annotated return
types of in-repo functions (``build(...).send()``).

A reference is never dropped: it resolves to a node or becomes a dangling edge to an
``Unresolved`` node whose reason is ``external`` (stdlib, third-party, builtins) or
``unresolved`` (everything else).
"""

from __future__ import annotations

import builtins
import functools
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

from branchgraph.core.extract import Assignment, Definition, Import, Reference
from branchgraph.core.languages.python import is_support_file, is_test_file
from branchgraph.core.model import Edge, FileSubgraph, branch_prefix, node_id
from branchgraph.ingest.incremental import PreviousResolution, fact, fact_key
from branchgraph.ingest.python_modules import BUILTIN_NAMES, absolute_module, module_name, package_of
from branchgraph.ingest.read_log import (
    FIXTURES,
    MODULE,
    SUBCLASSES,
    LazyTaggedTable,
    LazyTrackedTable,
    ModuleTable,
    ReadKey,
    TaggedSet,
    dotted_prefixes,
    stored_key,
    symbol_key,
)
from branchgraph.ingest.resolution import MAX_BASE_DEPTH, Binding, Resolver, is_computed_callee
from branchgraph.ingest.resolution import External as _Ext
from branchgraph.ingest.resolution import Instance as _Inst
from branchgraph.ingest.resolution import Module as _Mod
from branchgraph.ingest.resolution import ResolvedSymbol as _Symbol
from branchgraph.ingest.resolution import SymbolValue as _Sym
from branchgraph.ingest.subgraphs import DeferredSource, ParsedSource, SubgraphEmitter, Target

_NO_READS: frozenset[ReadKey] = frozenset()
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_INLINE_LAMBDA = re.compile(r"^\(+\s*lambda\b")
_TYPE_NAME = re.compile(r"[A-Za-z_][\w.]*")
# A call on a literal ("".join, [].append, {}.get) is a builtin type's method.
_LITERAL_RECEIVER = re.compile(r"""^([rbfuRBFU]{0,2}["']|[\[{]|\d)""")
_TYPE_KEYWORDS = frozenset({"None", "True", "False"})
# What a value reference is an edge to.
_VALUE_LABELS = ("Class", "Function", "Method")
# Bounds on a dispatch by name prefix (``_emit_dispatch``): the subclasses searched, the
# methods it names.
_MAX_DISPATCH_CLASSES, _MAX_DISPATCH_TARGETS = 200, 300
# Bindings of a name a tuple (or a mapping's items) binds in its place, which they keep.
_PLACED_BINDINGS = frozenset({"unpacked_call", "unpacked_element", "mapping_items"})
# Bindings to what a tuple or a declared container holds; `opaque`: to what is not followed.
_ELEMENT_BINDINGS = _PLACED_BINDINGS | {"mapping_values", "opaque"}
# Bindings of a local that hold a value made at run time (a parameter, a literal, an element),
# never a symbol (a call's result may be: a decorator returns a function).
_COMPUTED_BINDINGS = frozenset(
    {"parameter", "literal", "annotated", "entered", "iterated", "iterated_name", "caught", "cast"}
    | {"type_alias", "type_parameter"}
    | _ELEMENT_BINDINGS
)
_PROPERTY = re.compile(r"(?:functools\.)?(?:property|cached_property)")
_ACCESSOR = re.compile(r"\w+\.(?:setter|deleter)")
_FIXTURE = re.compile(r"(?:pytest\.)?fixture\b")
# The ``via`` of the inferred CALLS edge from a test or fixture to a fixture it takes.
FIXTURE_VIA = "pytest fixture"
_USEFIXTURES = re.compile(r"(?:pytest\.)?mark\.usefixtures\(")
_QUOTED = re.compile(r"""["'](\w+)["']""")
_SELF_TYPE = re.compile(r"(?:\w+\.)?Self")  # typing.Self, te.Self, Self
# Annotations that stand for their first argument, or for any of their arguments.
_FIRST_ARGUMENT = frozenset({"Annotated", "Final", "ClassVar", "Required", "NotRequired", "ReadOnly"})
_ANY_ARGUMENT = frozenset({"Optional", "Union"})
_CLASS_OBJECT = frozenset({"type", "Type"})
_GENERATORS = frozenset({"Iterator", "Iterable", "Generator", "AsyncIterator", "AsyncIterable", "AsyncGenerator"})
# What a `for` loop's element is the first type argument of (`tuple[Rule, ...]` too).
_ITERABLES = _GENERATORS | frozenset(
    {"list", "List", "set", "Set", "frozenset", "FrozenSet", "Sequence", "MutableSequence", "Collection"}
    | {"AbstractSet", "MutableSet", "Deque", "deque", "tuple", "Tuple", "KeysView", "ValuesView"}
)
# What `for k, v in d.items()` reads the key and value types of (`dict[str, Field]`).
_MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict", "defaultdict"})
_CONTEXT_MANAGER = re.compile(r"(?:contextlib\.)?(?:async)?contextmanager")


@dataclass(frozen=True, slots=True)
class _Var:
    module: str  # a module-level variable of this in-repo module
    # a type alias (``TextType = Union[str, "Text"]``): its file and the type as written
    alias: tuple[str, str] | None = None
    type_parameter: bool = False  # ``T = TypeVar("T")``: in an annotation, no type of its own


@dataclass(frozen=True, slots=True)
class _Dyn:
    """An attribute an in-repo class answers at run time (its ``__getattr__``), and whatever
    is reached through it: decided at run time, not unresolved."""

    owner: str  # the qualname of the class whose __getattr__ answers


@dataclass(frozen=True, slots=True)
class _Param:
    """An untyped parameter, or a value declared only as callable (``Callable[..., T]``):
    whatever a caller passes (calling it runs what was passed)."""


@dataclass(frozen=True, slots=True)
class _Either:
    """An instance of one of several in-repo classes (``x = A() if flag else B()``, returns or
    assignments that name different classes), or of a builtin type (``Union[str, Text]``): an
    attribute every one of them answers with the same value is that value (a method they
    inherit from one base); a builtin type that lacks the attribute is not what the value is
    where the code asks for it (``title.copy()``: not a ``str``); any other is unknown."""

    options: frozenset[_Inst | _Ext]  # an _Ext: a builtin type's instance (``str``)


_Value = _Mod | _Sym | _Inst | _Ext | _Var | _Dyn | _Param | _Either | None


def _either(values: set[_Value]) -> _Value:
    """The one value of ``values``; several instances, one at least of an in-repo class and
    the others of in-repo or builtin types, as one ``_Either``; else None."""
    flat: set[_Value] = set()
    for value in values:
        flat.update(value.options if isinstance(value, _Either) else (value,))
    if len(flat) == 1:
        return flat.pop()
    options = {value for value in flat if isinstance(value, _Inst) or _is_builtin_instance(value)}
    if len(options) == len(flat) and any(isinstance(value, _Inst) for value in options):
        return _Either(frozenset(options))  # type: ignore[arg-type]  # _Inst or _Ext, checked above
    return None


def _is_builtin_instance(value: _Value) -> bool:
    return isinstance(value, _Ext) and value.name in _BUILTIN_VALUES and hasattr(builtins, value.name)


def _is_property(symbol: _Symbol) -> bool:
    return symbol.label == "Method" and any(_PROPERTY.fullmatch(d) for d in symbol.definition.decorators)


def _lacks(option: _Inst | _Ext, attr: str) -> bool:
    """Whether a builtin type's instance has no attribute ``attr`` (``str`` has no ``copy``)."""
    return isinstance(option, _Ext) and not hasattr(getattr(builtins, option.name), attr)


_ALIAS_DEPTH = 4  # type aliases naming aliases followed (`JSON = Union[Obj, "JSONList"]`)
_DYNAMIC_ATTRIBUTE_HOOKS = ("__getattr__", "__getattribute__")
_CALLABLE_LABELS = ("Class", "Function", "Method")
# Bindings made by assignments (not by a def, an import or an annotation).
_ASSIGNED = frozenset(
    {"call_result", "alias", "wraps", "entered", "iterated", "iterated_name", "literal", "parameter"}
    | {"caught", "cast", "bound"}
    | _ELEMENT_BINDINGS
)
# A method's receiver is its class's instance (or the class), not an unknown parameter.
_RECEIVERS = frozenset({"self", "cls", "mcs", "metacls", "klass"})

_Binding = Binding


class PythonResolver(Resolver):
    """Resolves all Python files of one commit of one branch."""

    TYPE_LABELS = ("Class",)
    TRACKS_READS = True

    def __init__(self, repo: str, branch: str, files: list[ParsedSource], previous: PreviousResolution | None = None):
        # An update (``previous``: the stored resolution) indexes a file whose parse is still
        # undecoded (``DeferredSource``: unchanged, recorded) only when something reads one of
        # its rows, and takes the subclass facts of files it does not resolve again from their
        # records (``ingest.resolvers``): a small change reads a small part of the commit.
        self._lazy = previous is not None
        self._deferred: dict[str, ParsedSource] = (
            {f.path: f for f in files if isinstance(f, DeferredSource)} if self._lazy else {}
        )
        # base class id -> (path, id) of each direct in-repo subclass, from the files' facts
        self._subclass_pairs: dict[str, list[tuple[str, str]]] = {}
        super().__init__(repo, branch, files)
        log = self.reads
        assert log is not None  # TRACKS_READS
        self.modules: dict[str, ParsedSource] = ModuleTable(log, MODULE)
        for f in sorted(files, key=lambda f: f.path.endswith(".pyi")):
            self.modules.setdefault(module_name(f.path), f)
        # Every dotted prefix of an in-repo module, so `import a.b` binds a known `a`.
        self.module_prefixes: set[str] = TaggedSet(log, MODULE)
        self.module_prefixes.update(prefix for name in self.modules for prefix in dotted_prefixes(name))
        self.wildcards: dict[str, list[str]] = self._path_table()
        self._base_refs: dict[tuple[str, int | None], list] = self._table()
        # (path, function index) -> local -> each binding with where it surely holds
        self._binding_points: dict[tuple[str, int], dict[str, list[tuple]]] = self._table()
        # (path, function index) -> the isinstance() tests in it, with where each holds
        self._narrowings: dict[tuple[str, int], list[Assignment]] = self._table()
        # (path, class index) -> the import a class defined below it replaced
        self._shadowed_imports: dict[tuple[str, int], _Binding] = self._table()
        # (path, function index) -> its return annotation
        self.return_types: dict[tuple[str, int], str] = self._table()
        # (path, function or class index) -> the type parameters it declares (`def f[T]()`)
        self.type_parameters: dict[tuple[str, int], set[str]] = self._table()
        # (path, function index) -> what a generator yields (`self.returns`: what a function returns)
        self.yields: dict[tuple[str, int], list[_Binding]] = self._table()
        # pytest fixtures: (path of the file, or directory of a conftest.py) -> name -> function
        self.fixtures: dict[str, dict[str, _Symbol]] = self._path_table(FIXTURES)
        # (path, class index) -> the metaclass its definition names
        self._metaclasses: dict[tuple[str, int], str] = self._table()
        # (path, name) -> what a module-level collection bound to that name holds, as written
        # (`ALL_FIELDS = [fields.String, ...]`): a use of the name hands on each element.
        self._collections: dict[tuple[str, str], list[Reference]] = self._table()
        # What indexing each file read (the modules its imports looked for), and what deciding
        # whether each symbol is a test read: users of the file or the symbol depend on them.
        self._index_reads: dict[str, set[ReadKey]] = {}
        self._test_reads: dict[str, set[ReadKey]] = {}
        for f in files:
            if f.path not in self._deferred:
                _, self._index_reads[f.path] = self._logged(self._index_file, f)
        self._by_id = {s.id: s for s in self.symbols.values()}
        # Whether a symbol is a test is decided when something asks (``_test_flag``): an update
        # emits a few files and asks about their symbols and what they call, not all 26,000
        # classes and test-named functions of django (a second of every update, profiled).
        # Every file's facts up front, unless an update states only those its change reaches.
        self._facts: dict[str, list[str]] = {} if self._lazy else self.facts_of([f.path for f in files])
        if not self._lazy:
            self.use_facts(self._facts)

    # ----- lazy indexing (updates) ----------------------------------------------------

    def _table(self, tag: str | None = None) -> dict:
        if self._lazy and self.reads is not None:
            return LazyTrackedTable(self.reads, self._ensure, tag)
        return super()._table(tag)

    def _path_table(self, tag: str | None = None) -> dict:
        if self._lazy and self.reads is not None:
            return LazyTaggedTable(self.reads, self._ensure_fixtures if tag == FIXTURES else self._ensure, tag)
        return super()._path_table(tag)

    def _ensure(self, path: object) -> None:
        """Index a deferred file the first time any of its rows is read."""
        if path in self._deferred:
            f = self._deferred.pop(path)
            log = self.reads
            assert log is not None
            # Indexed apart from whatever asked: what indexing reads is kept per file, as when
            # every file is indexed up front (``_file_dependencies`` adds it to its users).
            frames, taints = log.frames, log.taints
            log.frames, log.taints = [], []
            try:
                _, self._index_reads[f.path] = self._logged(self._index_file, f)
            finally:
                log.frames, log.taints = frames, taints
            for index in range(len(f.parsed.definitions)):
                symbol = dict.__getitem__(self.symbols, (f.path, index))
                self._by_id[symbol.id] = symbol

    def _ensure_fixtures(self, scope: object) -> None:
        """The fixtures of a file are its own; those of a folder, its conftest.py's."""
        if isinstance(scope, str):
            self._ensure(scope)
            self._ensure(f"{scope}/conftest.py" if scope else "conftest.py")

    def facts_of(self, paths: Iterable[str]) -> dict[str, list[str]]:
        """``facts`` of some files only (each class as a subclass of its in-repo bases): what
        they state depends on their own rows and on what their records' reads hold, so an
        update takes every other file's from its record (``ingest.resolvers``)."""
        facts: dict[str, list[str]] = {}
        for path in paths:
            self._ensure(path)
            f = dict.__getitem__(self._files_by_path, path)
            found: set[str] = set()
            for index in range(len(f.parsed.definitions)):
                symbol = self.symbols[(path, index)]
                if symbol.label == "Class":
                    for _raw, _line, base in self._class_bases(symbol):
                        if isinstance(base, _Sym) and base.symbol.label == "Class":
                            found.add(fact(stored_key((SUBCLASSES, symbol_key(base.symbol.id))), symbol_key(symbol.id)))
            facts[path] = sorted(found)
        return facts

    def use_facts(self, facts: Mapping[str, list[str]]) -> None:
        """The subclasses of every class, from every file's facts (``facts_of`` for those
        resolved again, the records' for the rest)."""
        prefix = branch_prefix(self.repo, self.branch)
        tag = stored_key((SUBCLASSES, ""))
        pairs: dict[str, list[tuple[str, str]]] = {}
        for path, stated in facts.items():
            for f in stated:
                key = fact_key(f)
                if key.startswith(tag):
                    pairs.setdefault(prefix + key[len(tag) :], []).append((path, prefix + f[len(key) + 1 :]))
        self._subclass_pairs = pairs

    def _subclasses(self, class_id: str) -> list[_Symbol]:
        found = []
        for path, subclass_id in self._subclass_pairs.get(class_id, ()):
            self._ensure(path)
            found.append(self._by_id[subclass_id])
        return found

    # ----- indexing -------------------------------------------------------------------

    def _index_file(self, f: ParsedSource) -> None:
        module = module_name(f.path)
        self.file_ids[f.path] = node_id(self.repo, self.branch, f.path, "File", module)
        defs = f.parsed.definitions
        seen: Counter[tuple[str, str]] = Counter()
        qualnames: dict[int, str] = {}
        for index in sorted(range(len(defs)), key=lambda i: defs[i].start_byte):
            d = defs[index]
            parent_qual = qualnames[d.parent] if d.parent is not None else module
            qualname = f"{parent_qual}.{d.name}" if parent_qual else d.name
            qualnames[index] = qualname
            label = self._label(d, defs)
            symbol = self._add_symbol(f, index, label, qualname, seen)
            # Later definitions shadow earlier ones, as at run time; a property's setter and
            # deleter extend the property, whose getter says what reading it gives; what an
            # `if TYPE_CHECKING:` block declares is what annotations name, not its stand-in.
            siblings = self.children.setdefault((f.path, d.parent), {})
            earlier = siblings.get(d.name)
            if earlier is None or not (
                any(_ACCESSOR.fullmatch(x) for x in d.decorators)
                or (earlier.definition.for_checker and not d.for_checker)
            ):
                siblings[d.name] = symbol
                self._bind(f.path, d.parent, d.name, ("def", symbol))
            if _is_fixture(d):
                self.fixtures.setdefault(_fixture_scope(f.path), {})[_fixture_name(d)] = symbol
        for imp in f.parsed.imports:
            self._bind_import(f, imp)
        for a in f.parsed.assignments:
            self._index_assignment(f, a)
        for ref in f.parsed.references:
            if ref.kind == "return_type" and ref.scope is not None:
                self.return_types[(f.path, ref.scope)] = ref.raw
            if ref.kind == "base":
                self._base_refs.setdefault((f.path, ref.scope), []).append(ref)
            elif ref.kind == "metaclass" and ref.scope is not None:
                self._metaclasses[(f.path, ref.scope)] = ref.raw
            elif ref.kind == "value" and ref.param and ref.scope is None:
                self._collections.setdefault((f.path, ref.param), []).append(ref)
            elif ref.kind == "param_type" and ref.param:
                self._bind(
                    f.path,
                    ref.scope,
                    ref.param,
                    ("annotated", ref.raw, defs[ref.scope].parent if ref.scope is not None else None),
                )

    def _index_assignment(self, f: ParsedSource, a: Assignment) -> None:
        """A local's first assignment binds it in its scope (an annotation binds it whatever
        the value); an instance attribute's assignments (``self.x = ...`` in any method, ``x =
        ...`` or ``x: Type`` in the class body) are kept per class, every one of them: they
        must agree for ``self.x`` to have a type, unless one declares it."""
        defs = f.parsed.definitions
        if a.name in ("return", "yield"):
            if a.scope is not None:
                kind = "call_result" if a.kind == "call" else "alias"
                table = self.returns if a.name == "return" else self.yields
                table.setdefault((f.path, a.scope), []).append((kind, a.callee, a.scope))
            return
        if a.kind == "narrowed":
            if a.scope is not None:
                self._narrowings.setdefault((f.path, a.scope), []).append(a)
            return
        if a.kind in ("type_alias", "type_parameter"):
            if a.scope is None:
                self._bind(f.path, None, a.name, (a.kind, a.callee, None))
            elif a.kind == "type_parameter":  # `def first[T](...)`: the definition's own (PEP 695)
                self.type_parameters.setdefault((f.path, a.scope), set()).add(a.name)
            return
        if a.kind == "annotation" and not _annotation_types(a.callee):
            return  # a bare `Final` or `ClassVar` declares no type: the value says it
        if a.kind == "parameter":
            if a.name not in _RECEIVERS and a.scope is not None:
                self._bind_local(f.path, a.scope, a.name, ("parameter", a.name, a.scope), a)
            return
        if a.name.startswith("self."):
            method = defs[a.scope] if a.scope is not None else None
            if method is None or method.kind != "function" or method.parent is None:
                return
            if defs[method.parent].kind != "class":
                return
            owner, name = method.parent, a.name[len("self.") :]
        elif a.scope is not None and defs[a.scope].kind == "class":
            owner, name = a.scope, a.name
            if a.kind != "annotation":  # also a name of the class body itself
                self._bind(f.path, a.scope, a.name, _class_body_binding(a, defs), keep_existing=True)
        elif a.kind == "annotation":
            # A declared type wins over what the value looks like (`app: FlaskProxy = LocalProxy(...)`).
            existing = self.bindings.get((f.path, a.scope), {}).get(a.name)
            if existing is None or existing[0] != "annotated":
                self._bind(f.path, a.scope, a.name, ("annotated", a.callee, a.scope))
            return
        else:
            self._bind_local(f.path, a.scope, a.name, _local_binding(a), a)
            return
        if a.kind == "annotation":
            # An annotation names its type in the scope around the class body or method.
            binding: _Binding = ("annotated", a.callee, defs[a.scope].parent if a.scope is not None else None)
        elif owner == a.scope:
            binding = _class_body_binding(a, defs)
        else:
            binding = _local_binding(a)
        self.attributes.setdefault((f.path, owner), {}).setdefault(name, []).append(binding)

    def _bind_local(
        self, path: str, scope: int | None, name: str, binding: _Binding, a: Assignment | None = None
    ) -> None:
        """A local assigned more than once holds what every assignment agrees on (``op =
        AddField(...)`` then ``op = RemoveField(...)`` is neither) — except where one of them
        surely holds (``_rebound``); a definition, an import or a declared type, bound
        otherwise, stays."""
        if a is not None and a.reach is not None and scope is not None:
            point = (a.line, a.reach, a.loops or [], binding)
            self._binding_points.setdefault((path, scope), {}).setdefault(name, []).append(point)
        table = self.bindings.setdefault((path, scope), {})
        existing = table.get(name)
        if existing is None:
            table[name] = binding
        elif existing[0] == "any_of":
            table[name] = ("any_of", (*existing[1], binding))
        elif existing[0] in _ASSIGNED and existing != binding:
            table[name] = ("any_of", (existing, binding))
        elif existing[0] == "def" and binding[0] == "parameter":
            table[name] = ("any_of", (existing, binding))  # `def f(f): ... def f()`: which one is a guess

    @staticmethod
    def _label(d: Definition, defs: list[Definition]) -> str:
        if d.kind == "class":
            return "Class"
        if d.parent is not None and defs[d.parent].kind == "class":
            return "Method"
        return "Function"

    def _bind_import(self, f: ParsedSource, imp: Import) -> None:
        if imp.name is None:
            target = self._find_module(f, imp.module)
            if imp.alias:
                self._bind(f.path, imp.scope, imp.alias, ("module", target))
            else:
                # `import a.b` binds `a` (found where `a.b` was: `examples.tutorial.a`).
                root = target[: len(target) - len(imp.module)] + imp.module.split(".")[0]
                self._bind(f.path, imp.scope, imp.module.split(".")[0], ("module", root))
            return
        module = self._find_module(f, imp.module)
        if imp.name == "*":
            self.wildcards.setdefault(f.path, []).append(module)
            return
        name = imp.alias or imp.name
        existing = self.bindings.get((f.path, imp.scope), {}).get(name)
        if existing is not None and name == imp.name and module == module_name(f.path):
            return  # `from rich.table import Table` in rich/table.py itself binds what it binds
        if existing is not None and existing[0] == "def" and existing[1].definition.start_line > imp.line:
            # A definition below the import of its name replaces it (django's gis
            # `functions` imports `Transform` for bases above, then defines its own); the
            # import is what a class's own bases name (`class Transform(Transform)`).
            self._shadowed_imports[(f.path, existing[1].index)] = ("from", module, imp.name)
            return
        self._bind(f.path, imp.scope, name, ("from", module, imp.name))

    def _find_module(self, f: ParsedSource, written: str) -> str:
        """Absolute module name. A name that is no module from the repository's root but is
        one under the importer's own folder (scripts and test folders put theirs on sys.path)
        or under a folder above it that is no package (a project inside the repository,
        `examples/tutorial/` with its `flaskr`) resolves there, the nearest first; the standard
        library's names never do."""
        target = absolute_module(f.path, written)
        if written.startswith(".") or target in self.module_prefixes:
            return target
        if target.split(".")[0] in sys.stdlib_module_names:
            return target
        folders = package_of(f.path).split(".") if package_of(f.path) else []
        for depth in range(len(folders), 0, -1):
            root = ".".join(folders[:depth])
            if depth < len(folders) and root in self.modules:
                continue  # a package's folder is never a sys.path entry of its own
            if f"{root}.{target}" in self.module_prefixes:
                return f"{root}.{target}"
        return target

    def _test_flag(self, symbol: _Symbol) -> bool:
        """Whether ``symbol`` is a test, decided once, with what deciding it read kept for the
        files that depend on it; only classes and test-named code may be tests (the rest read
        nothing)."""
        if symbol.id not in self._test_reads:
            if symbol.label == "Class" or symbol.definition.name.startswith("test"):
                symbol.is_test, self._test_reads[symbol.id] = self._logged(self._is_test, symbol)
            else:
                symbol.is_test, self._test_reads[symbol.id] = False, set()
        return symbol.is_test

    def is_test_scope(self, path: str, scope: int | None) -> bool:
        return scope is not None and self._test_flag(self.symbols[(path, scope)])

    def _emit_file(self, f: ParsedSource, emitter: SubgraphEmitter) -> None:
        for index in range(len(f.parsed.definitions)):
            self._test_flag(self.symbols[(f.path, index)])  # its nodes say it, its users read it
        super()._emit_file(f, emitter)

    def _is_test(self, symbol: _Symbol) -> bool:
        d = symbol.definition
        if symbol.label == "Class":
            return self._is_test_class(symbol, set())
        if not d.name.startswith("test"):
            return False
        if symbol.label == "Method" and d.parent is not None:
            owner = self.symbols[(symbol.file.path, d.parent)]
            return self._is_test_class(owner, set())
        return d.parent is None and is_test_file(symbol.file.path)

    def _is_test_class(self, symbol: _Symbol, seen: set[str]) -> bool:
        if symbol.id in seen or len(seen) > MAX_BASE_DEPTH:
            return False
        seen.add(symbol.id)
        d = symbol.definition
        if d.parent is None and d.name.startswith("Test") and is_test_file(symbol.file.path):
            return True
        for raw, _line, value in self._class_bases(symbol):
            if raw.rsplit(".", 1)[-1].endswith("TestCase"):
                return True
            if isinstance(value, _Sym) and value.symbol.label == "Class" and self._is_test_class(value.symbol, seen):
                return True
        return False

    # ----- name resolution ------------------------------------------------------------

    def _agreed(self, path: str, bindings: list[_Binding]) -> _Value:
        """The one value every binding gives; instances of different in-repo classes as one
        ``_Either``; None when they disagree otherwise."""
        return _either({self._resolve_binding(path, b) for b in bindings})

    def _resolve_binding(self, path: str, binding: _Binding, line: int | None = None) -> _Value:
        """What a binding holds; ``line``: where it is made, so that a local it reads is read
        as it stands there (``x = x.copy()``)."""
        kind = binding[0]
        if kind == "def":
            return _Sym(binding[1])
        if kind == "module":
            name = binding[1]
            return _Mod(name) if name in self.module_prefixes else _Ext(name)
        if kind == "from":
            module, name = binding[1], binding[2]
            if module not in self.module_prefixes:
                return _Ext(f"{module}.{name}" if module else name)
            return self._member(_Mod(module), name)
        if kind in ("annotated", "cast"):
            return self._annotated(path, binding[1], binding[2])
        if kind in ("call_result", "alias", "entered", "iterated", "caught"):
            return self._made_from(kind, self._bound_value(path, binding, line))
        if kind == "opaque":  # `a, b = pair`: bound to what is not followed
            return None
        if kind == "unpacked_call":  # `a, b = f()`: f's declared tuple, in a's or b's place
            return self._unpacked(self._bound_value(path, binding, line), binding[3])
        if kind == "unpacked_element":  # `for a, b in pairs`: the declared element tuple's place
            return self._declared_place(path, binding[2], binding[1], binding[3], _element_tuple_places)
        if kind == "mapping_items":  # `for k, v in d.items()`: the declared key or value
            return self._declared_place(path, binding[2], binding[1], binding[3], _mapping_places)
        if kind == "mapping_values":  # `for v in d.values()`
            return self._declared_place(path, binding[2], binding[1], 1, _mapping_places)
        if kind == "literal":  # `errors = []`: a builtin's value
            return _Ext(binding[1])
        if kind == "parameter":
            # A test's or fixture's parameter nothing else binds is pytest's fixture of that name.
            fixture = self._fixture(path, binding[1]) if is_support_file(path) else None
            if fixture is not None:
                return self._memo(("fixture", fixture.id), lambda: self._call_result(_Sym(fixture), unwrap=_GENERATORS))
            return _Param()
        if kind == "any_of":
            return self._agreed(path, list(binding[1]))
        if kind == "iterated_name":
            return self._element_of_name(path, binding[2], binding[1])
        if kind == "bound":  # a bounded TypeVar: whatever it is, it is at least its bound
            value = self._resolve_dotted(path, binding[2], binding[1].strip("\"'"))
            return value if isinstance(value, _Sym) and value.symbol.label == "Class" else None
        if kind == "type_alias":  # what annotations naming it mean (``_annotated``)
            return _Var(module_name(path), (path, binding[1]))
        if kind == "type_parameter":
            return _Var(module_name(path), type_parameter=True)
        if kind == "wraps":  # a partial of a function: calling it calls the function
            value = self._resolve_dotted(path, binding[2], binding[1])
            return value if isinstance(value, _Sym) and value.symbol.label in ("Function", "Method") else None
        raise AssertionError(f"unknown binding {binding!r}")

    def _made_from(self, kind: str, value: _Value) -> _Value:
        """What a binding of ``kind`` holds, given the value it is made from."""
        if kind == "call_result":
            return self._call_result(value)
        if kind == "entered":
            return self._entered(value)
        if kind == "iterated":
            return self._element(value)
        if kind == "caught":  # an instance of the class an `except` names
            is_class = isinstance(value, _Ext) or (isinstance(value, _Sym) and value.symbol.label == "Class")
            return self._call_result(value) if is_class else None
        # An alias: `self.store = store` (a parameter's instance), `storage_class = MultiDict`
        # (a class attribute holding a class or a function: calling it calls that). An alias of
        # a property holds what the property returns (`return self._src.current`); a property
        # that returns itself finds nothing in `_call_result`'s cycle guard.
        if isinstance(value, _Sym) and _is_property(value.symbol):
            return self._made_from(kind, self._call_result(value))
        if isinstance(value, (_Inst, _Either)) or (isinstance(value, _Sym) and value.symbol.label in _CALLABLE_LABELS):
            return value
        return None

    def _unpacked(self, callee: _Value, position: int) -> _Value:
        """What a call's result holds at ``position`` when its function declares a tuple of
        that many places or more (``-> Tuple[Segment, Segment]``, ``-> tuple[A, B | None]``);
        None for any other result (``tuple[A, ...]`` included)."""
        if not isinstance(callee, _Sym) or callee.symbol.label not in ("Function", "Method"):
            return None
        symbol = callee.symbol
        declared = self.return_types.get((symbol.file.path, symbol.index))
        place = _place(_tuple_places(declared) if declared is not None else None, position)
        return self._annotated(symbol.file.path, place, symbol.definition.parent, method=symbol) if place else None

    def _bound_value(self, path: str, binding: _Binding, line: int | None) -> _Value:
        """The value a binding is made from (``callee`` of ``x = callee(...)``)."""
        if line is None:
            return self._resolve_dotted(path, binding[2], binding[1])
        return self._resolve_at(path, binding[2], binding[1], line, made_there=True)

    def _call_result(self, callee: _Value, unwrap: frozenset[str] = frozenset()) -> _Value:
        """What calling ``callee`` returns, when that is an in-repo class's instance: a class
        called (its constructor), or a function whose return annotation names one class. What
        a library call returns is the library's (``out = StringIO(); out.getvalue()``)."""
        if isinstance(callee, _Dyn):
            return callee
        if isinstance(callee, _Ext):
            if callee.name == "type":  # `type(name, bases, attrs)`: a class made at run time
                return _Dyn("type")
            if _passes_through(callee.name):
                return None  # `sorted(rows)`, `partial(Serializer, ...)`, `cast(T, x)`: the argument's, not known
            return _Ext(f"{callee.name}()")
        if isinstance(callee, _Inst):
            # Calling an instance calls its class's `__call__` (a Protocol's, too).
            call = self._called(callee)
            return self._call_result(call) if call is not callee else None
        if not isinstance(callee, _Sym):
            return None
        symbol = callee.symbol
        if symbol.label == "Class":
            return _Inst(symbol)
        returned = self.return_types.get((symbol.file.path, symbol.index))
        if returned is None:
            # Memoised with the cycle guard: a function that returns its own call (recursion,
            # mutual recursion) must not recurse here. A generator's call is a generator, but
            # where a generator is unwrapped (a fixture, a loop) it stands for what it yields.
            yielded = bool(unwrap & _GENERATORS)
            return self._memo(("returns", symbol.id, yielded), lambda: self._returned(symbol, yielded))
        value = self._annotated(symbol.file.path, returned, symbol.definition.parent, method=symbol, unwrap=unwrap)
        if isinstance(value, _Param) and (symbol.file.path, symbol.index) not in self.yields:
            # `-> Callable[[], T]` says only that the result is called: a factory returning its
            # own closure (`def func(): ...; return func`) is called as that closure.
            made = self._memo(("returns", symbol.id, False), lambda: self._returned(symbol, False))
            if isinstance(made, _Sym) and made.symbol.label in _CALLABLE_LABELS:
                return made
        return value

    def _annotated(
        self,
        path: str,
        raw: str,
        scope: int | None,
        method: _Symbol | None = None,
        unwrap: frozenset[str] = frozenset(),
        depth: int = 0,
    ) -> _Value:
        """What a value annotated ``raw`` holds, when the annotation names exactly one in-repo
        class: its instance (``Store``, ``Optional["Store"]``, ``Store | None``,
        ``Annotated[Store, ...]``, ``Page[T]``), or the class itself (``type[Store]``); a union
        of in-repo classes' instances is an ``_Either``. Any other union, a container
        (``list[Store]``) or anything else is no type. A type alias stands for what it names
        (``TextType``: ``Union[str, "Text"]``), to a depth of a few aliases.
        ``-> Self`` on ``method`` is its class's instance. ``unwrap`` names the generics that
        stand for their first argument at the top (``Iterator[Store]`` is what a fixture
        yields, ``list[Store]`` what a loop over it gets)."""
        found: set[_Value] = set()
        for name, is_class_object in _annotation_types(raw, unwrap):
            if _SELF_TYPE.fullmatch(name):
                owner = self._enclosing_class(path, method.definition.parent) if method is not None else None
                found.add(None if owner is None else _Sym(owner) if is_class_object else _Inst(owner))
                continue
            value = self._resolve_dotted(path, scope, name)
            if isinstance(value, _Sym) and value.symbol.label == "Class":
                found.add(value if is_class_object else _Inst(value.symbol))
            elif isinstance(value, _Ext) and not is_class_object and (builtin := _builtin_type(value.name)):
                # `self.view_functions: dict[str, View]` is a dict: `.get` is the builtin's,
                # not any in-repo `get` (left unresolved, test selection matched it by name).
                found.add(_Ext(builtin))
            elif isinstance(value, _Var) and value.alias is not None and not is_class_object and depth < _ALIAS_DEPTH:
                found.add(self._annotated(*value.alias, None, depth=depth + 1))
            elif isinstance(value, _Ext) and not is_class_object and _is_callable_type(value.name):
                # `send: Callable[[Message], Awaitable[None]]` runs, called, whatever was passed.
                found.add(_Param())
            else:
                found.add(None)
        return _either(found)

    def _entered(self, callee: _Value) -> _Value:
        """``with callee(...) as x``: what a ``@contextmanager`` yields, else what the called
        value's ``__enter__`` returns."""
        if isinstance(callee, _Sym) and any(_CONTEXT_MANAGER.fullmatch(d) for d in callee.symbol.definition.decorators):
            return self._call_result(callee, unwrap=_GENERATORS)
        value = self._call_result(callee)
        if isinstance(value, (_Dyn, _Ext)):  # a proxy's or a library's context manager
            return value if isinstance(value, _Dyn) else _Ext(f"{value.name}.__enter__()")
        if not isinstance(value, _Inst):
            return None
        for hook in ("__enter__", "__aenter__"):
            enter = self._class_member(value.symbol, hook, set())
            if isinstance(enter, _Sym) and enter.symbol.label == "Method":
                return self._call_result(enter)
        return None

    def _element(self, callee: _Value) -> _Value:
        """``for x in callee(...)``: an element of what the call returns, by its annotation
        (``-> Iterator[Rule]``, ``-> list[Rule]``), its yields (an unannotated generator), or
        the ``__iter__`` of the in-repo instance it returns."""
        element = self._call_result(callee, unwrap=_ITERABLES)
        value = self._call_result(callee)
        if element != value:  # a container's or a generator's element
            return element
        if isinstance(value, _Dyn):
            return value
        if isinstance(value, _Inst):
            iterate = self._class_member(value.symbol, "__iter__", set())
            if isinstance(iterate, _Sym) and iterate.symbol.label == "Method":
                return self._call_result(iterate, unwrap=_ITERABLES)
        return None

    def _element_of_name(self, path: str, scope: int | None, raw: str) -> _Value:
        """``for x in name`` / ``for x in self.attr``: an element of the declared container
        (``rules: list[Rule]``, ``self.order: list[Tag] = []``, ``self.rules = rules`` of such a
        parameter), or of an in-repo iterable's ``__iter__``."""
        declarations = self._declarations(path, scope, raw, 0)
        elements = {self._annotated(where, annotation, at, unwrap=_ITERABLES) for where, annotation, at in declarations}
        themselves = {self._annotated(where, annotation, at) for where, annotation, at in declarations}
        if len(elements) == 1 and elements != themselves:
            return elements.pop()  # every declaration is a container of one class
        value = self._resolve_dotted(path, scope, raw)
        if isinstance(value, _Inst):
            iterate = self._class_member(value.symbol, "__iter__", set())
            if isinstance(iterate, _Sym) and iterate.symbol.label == "Method":
                return self._call_result(iterate, unwrap=_ITERABLES)
        return None

    def _declared_place(
        self, path: str, scope: int | None, raw: str, position: int, places_of: Callable[[str], list[str] | None]
    ) -> _Value:
        """What every declaration of ``raw`` says is at ``position`` of what it holds, as
        ``places_of`` reads a declaration: a container of tuples' element (``list[tuple[Part,
        bytes]]``), a mapping's key or value (``dict[str, Field]``)."""
        found = set()
        for where, annotation, at in self._declarations(path, scope, raw, 0):
            place = _place(places_of(annotation), position)
            if place is None:
                return None
            found.add(self._annotated(where, place, at))
        return found.pop() if len(found) == 1 else None

    def _declarations(self, path: str, scope: int | None, raw: str, depth: int) -> list[tuple[str, str, int | None]]:
        """The annotations that say what a name or a ``self`` attribute holds, each (path,
        annotation, scope it is written in): its own annotation, or those of the names it is
        assigned from. Empty when any assignment has none."""
        if depth > MAX_BASE_DEPTH:
            return []
        head, _, attr = raw.partition(".")
        if not attr:
            binding = self._binding(path, scope, raw)
            bindings = [binding] if binding is not None else []
            where = path
        elif head == "self" and "." not in attr:
            owner = self._enclosing_class(path, scope)
            klass = (
                next(
                    (k for k in self._mro(owner) if isinstance(k, _Symbol) and self._attribute_bindings(k, attr)), None
                )
                if owner is not None
                else None
            )
            if klass is None:
                return []
            bindings = self._attribute_bindings(klass, attr)
            declared = [b for b in bindings if b[0] == "annotated"]
            bindings, where = declared or bindings, klass.file.path
        else:
            return []
        found: list[tuple[str, str, int | None]] = []
        for binding in bindings:
            if binding[0] == "annotated":
                found.append((where, binding[1], binding[2]))
            elif binding[0] == "alias":
                more = self._declarations(where, binding[2], binding[1], depth + 1)
                if not more:
                    return []
                found += more
            else:
                return []
        return found

    def _attribute_bindings(self, cls: _Symbol, attr: str) -> list[_Binding]:
        return self.attributes.get((cls.file.path, cls.index), {}).get(attr, [])

    def _binding(self, path: str, scope: int | None, name: str) -> _Binding | None:
        """The binding ``name`` finds from ``scope`` outward (functions, then the module)."""
        defs = self._file(path).parsed.definitions
        current, innermost = scope, True
        while current is not None:
            if defs[current].kind != "class" or innermost:
                binding = self.bindings.get((path, current), {}).get(name)
                if binding is not None:
                    return binding
            innermost = False
            current = defs[current].parent
        return self.bindings.get((path, None), {}).get(name)

    def _returned(self, function: _Symbol, yielded: bool) -> _Value:
        """An unannotated function's result when every return agrees on one class's instance,
        or on one function or class (a factory's closure); for a generator (``yielded``), what
        every yield gives."""
        key = (function.file.path, function.index)
        generator = key in self.yields
        bindings = self.yields[key] if generator and yielded else [] if generator else self.returns.get(key, [])
        only = self._agreed(function.file.path, bindings)
        if isinstance(only, _Sym) and only.symbol.label in _CALLABLE_LABELS:
            return only  # a factory returning a function or class (`lazy(...)` returns its wrapper)
        # A library's value (`return psycopg.connect(...)`), or a proxy's, or an instance.
        return only if isinstance(only, (_Inst, _Either, _Ext, _Dyn)) else None

    def _lookup_uncached(self, path: str, scope: int | None, name: str) -> _Value:
        """Functions, then the module, then builtins."""
        defs = self._file(path).parsed.definitions
        for current, d in _visible_scopes(defs, scope):
            binding = self.bindings.get((path, current), {}).get(name)
            if binding is not None:
                return self._resolve_binding(path, binding)
            if d.kind == "function" and d.parent is not None and defs[d.parent].kind == "class":
                owner = self.symbols[(path, d.parent)]
                if name == "self":
                    return _Inst(owner)
                if name == "cls":
                    return _Sym(owner)
        value = self._module_attribute(path, name)
        if value is not None:
            return value
        if scope is not None and is_support_file(path):
            # A test's or fixture's parameter that no code binds: pytest passes the fixture of
            # that name (this file's, else the nearest conftest.py's) — its value is what the
            # fixture returns or yields.
            fixture = self._fixture(path, name)
            if fixture is not None:
                return self._memo(("fixture", fixture.id), lambda: self._call_result(_Sym(fixture), unwrap=_GENERATORS))
        if name in BUILTIN_NAMES:
            return _Ext(name)
        return None

    def _fixture(self, path: str, name: str) -> _Symbol | None:
        found = self.fixtures.get(path, {}).get(name)
        directory = _directory(path)
        while found is None:
            found = self.fixtures.get(directory, {}).get(name)
            if not directory:
                break
            directory = _directory(directory)
        return found

    def _module_attribute(self, path: str, name: str) -> _Value:
        binding = self.bindings.get((path, None), {}).get(name)
        if binding is not None:
            return self._resolve_binding(path, binding)
        if not name.startswith("_"):
            for module in self.wildcards.get(path, ()):
                value = self._memo(("star", module, name), functools.partial(self._module_namespace, module, name))
                if value is not None:
                    return value
        return None

    def _module_namespace(self, module: str, name: str) -> _Value:
        """What a module's own namespace binds to ``name`` (definitions, imports, its star
        imports, other globals): what ``from module import *`` hands on. A submodule it never
        imports is not among them (`from django.db.models import *` in the package of
        `django.contrib.gis.db.models.functions` does not bind `functions` to
        `django.db.models.functions`)."""
        f = self.modules.get(module)
        if f is None:
            return None
        found = self._module_attribute(f.path, name)
        if found is None and name in f.parsed.globals:
            return _Var(module)
        return found

    def _member_uncached(self, value: _Value, attr: str) -> _Value:
        if isinstance(value, _Either):
            answers = {self._member(option, attr) for option in value.options if not _lacks(option, attr)}
            return _either(answers) if answers else None
        if isinstance(value, _Ext):
            return _Ext(f"{value.name}.{attr}")
        if isinstance(value, _Dyn):
            return value
        if isinstance(value, _Mod):
            f = self.modules.get(value.name)
            if f is not None:
                found = self._module_attribute(f.path, attr)
                if found is not None:
                    return found
            sub = f"{value.name}.{attr}"
            if sub in self.module_prefixes:
                return _Mod(sub)
            if f is not None and attr in f.parsed.globals:
                return _Var(value.name)
            return None
        if isinstance(value, (_Sym, _Inst)) and value.symbol.label == "Class":
            found = self._class_member(value.symbol, attr, set())
            if found is None and self._made_by_metaclass(value.symbol):
                return _Dyn(value.symbol.qualname)  # `Author.objects`: added when the class is made
            if found is None and isinstance(value, _Inst):
                hook = self._attribute_hook(value.symbol)
                if hook is not None:
                    # A proxy (`connection.cursor()`) answers at run time, unless its hook
                    # says what every attribute is (`def __getattr__(...) -> HookCaller`).
                    answered = self._call_result(hook)
                    return answered if isinstance(answered, _Inst) else _Dyn(value.symbol.qualname)
                return self._from_subclasses(value.symbol, attr)
            return found
        return None

    def _from_subclasses(self, cls: _Symbol, attr: str) -> _Value:
        """An instance attribute its class does not have, when every in-repo subclass has the
        same one: a mixin's ``self.assertEqual(...)`` runs on a ``TestCase`` that mixes it in.
        A class nobody subclasses, or subclasses that disagree, give nothing."""
        if self.reads is not None:
            self.reads.add((SUBCLASSES, symbol_key(cls.id)))
        subclasses = self._subclasses(cls.id)
        if not subclasses or any(
            attr in self.attributes.get((k.file.path, k.index), {}) for k in self._mro(cls) if isinstance(k, _Symbol)
        ):
            return None  # nobody subclasses it, or it assigns the attribute itself (to something unknown)
        found = {self._class_member(sub, attr, set()) for sub in subclasses}
        return found.pop() if len(found) == 1 else None

    def _declared_facts(self) -> dict[str, set[str]]:
        """Per file, each of its classes as a subclass of its in-repo bases: what an update
        compares to find the classes whose subclasses changed."""
        return {path: set(stated) for path, stated in self._facts.items() if stated}

    def changed_keys(self, changed: set[str], added_or_deleted: set[str]) -> set[ReadKey]:
        """A module appearing or vanishing changes its name and every dotted prefix of it
        (``import a.b`` binds ``a``); a changed file, the fixtures of its place."""
        keys: set[ReadKey] = set()
        for path in added_or_deleted:
            if path.endswith((".py", ".pyi")):
                keys.update((MODULE, prefix) for prefix in dotted_prefixes(module_name(path)))
        for path in changed:
            if path.endswith((".py", ".pyi")):
                keys.add((FIXTURES, _fixture_scope(path)))
        return keys

    def _class_member(self, cls: _Symbol, attr: str, seen: set[str]) -> _Value:
        """A member of a class as Python finds it: its own definitions and instance attributes,
        then each in-repo class of its method resolution order (C3, so in a diamond a
        sibling's override comes before the shared base); past them, an external base's."""
        return self._first_member(self._mro(cls), attr)

    def _first_member(self, classes: list[_Symbol | _Ext | _Dyn], attr: str) -> _Value:
        unknown: _Ext | _Dyn | None = None
        receiver = classes[0] if classes else None
        for position, klass in enumerate(classes):
            if not isinstance(klass, _Symbol):
                unknown = unknown or klass
                continue
            child = self.children.get((klass.file.path, klass.index), {}).get(attr)
            if child is not None:
                return _Sym(child)
            if (
                position
                and isinstance(receiver, _Symbol)
                and self._overridden_for_receiver(klass, attr, classes[:position])
            ):
                return self._memo(
                    ("receiver attribute", receiver.id, klass.id, attr),
                    functools.partial(self._receiver_attribute, klass, attr, receiver),
                )
            attribute = self._own_attribute(klass, attr)
            if attribute is not None:
                return attribute
        if isinstance(unknown, _Dyn):
            return unknown  # a base made at run time (`BaseManager.from_queryset(QuerySet)`)
        return _Ext(f"{unknown.name}.{attr}") if unknown is not None else None

    def _overridden_for_receiver(self, klass: _Symbol, attr: str, before: list[_Symbol | _Ext | _Dyn]) -> bool:
        """Whether a base's attribute made from the receiver (``cls.engine = cls.engine_class()``
        in ``setUpClass``) takes what a class before it in the receiver's order overrides
        (``engine_class = Jinja2``): then the base's reading is not the receiver's."""
        for binding in self._attribute_bindings(klass, attr):
            chain = _head_and_steps(binding[1]) if binding[0] in ("call_result", "alias") else None
            if chain is None or chain[0] not in ("self", "cls") or not chain[1] or chain[1][0] == _CALL:
                continue
            name = chain[1][0]
            for k in before:
                if isinstance(k, _Symbol) and (
                    name in self.children.get((k.file.path, k.index), {}) or self._attribute_bindings(k, name)
                ):
                    return True
        return False

    def _receiver_attribute(self, klass: _Symbol, attr: str, receiver: _Symbol) -> _Value:
        """A base's attribute as a subclass's instance holds it: what the base's assignments
        read through ``self``/``cls`` is read on the subclass (``cls.engine =
        cls.engine_class()`` makes the ``engine_class`` the subclass names)."""
        values = set()
        for binding in self._attribute_bindings(klass, attr):
            kind, raw = binding[0], binding[1]
            chain = _head_and_steps(raw) if kind in ("call_result", "alias") else None
            if chain is None or chain[0] not in ("self", "cls"):
                values.add(self._resolve_binding(klass.file.path, binding))
                continue
            start: _Value = _Inst(receiver) if chain[0] == "self" else _Sym(receiver)
            values.add(self._made_from(kind, self._walk_steps(start, chain[1], raw)))
        return values.pop() if len(values) == 1 else None

    def _instance_attribute(self, cls: _Symbol, attr: str) -> _Value:
        """An attribute's declared type wins over its assignments (``self.x: Store = make()``,
        a dataclass's ``store: Store = field(default_factory=Store)``); without one, or when it
        names no type the resolver follows (a library class: ``_exit_stack: ExitStack``),
        every assignment must agree."""
        bindings = self.attributes.get((cls.file.path, cls.index), {}).get(attr)
        if not bindings:
            return None
        declared = [b for b in bindings if b[0] == "annotated"]
        assigned = [b for b in bindings if b[0] != "annotated"]
        if declared:
            value = self._agreed(cls.file.path, declared)
            if value is not None or not assigned:
                return value
        return self._agreed(cls.file.path, assigned)

    def _own_attribute(self, cls: _Symbol, attr: str) -> _Value:
        """An instance attribute the class's own methods or body assign."""
        return self._memo(("attribute", cls.id, attr), lambda: self._instance_attribute(cls, attr))

    def _mro(self, cls: _Symbol) -> list[_Symbol | _Ext | _Dyn]:
        """The class's C3 linearization over its resolved bases (an external base stands for
        itself; bases that resolve to nothing are left out). A hierarchy C3 refuses (or a
        cycle) falls back to depth-first order; a class among its own bases is its own MRO."""
        found: list[_Symbol | _Ext | _Dyn] = self._memo(("mro", cls.id), lambda: self._mro_uncached(cls), reentry=[cls])
        return found

    def _mro_uncached(self, cls: _Symbol) -> list[_Symbol | _Ext | _Dyn]:
        bases: list[_Symbol | _Ext | _Dyn] = []
        for _raw, _line, base in self._class_bases(cls):
            if isinstance(base, _Sym) and base.symbol.label == "Class":
                bases.append(base.symbol)
            elif isinstance(base, (_Ext, _Dyn)):
                bases.append(base)  # a library's class, or one made at run time: its members are its own
        chains = [self._mro(b) if isinstance(b, _Symbol) else [b] for b in bases]
        merged = _c3_merge([*(list(c) for c in chains), list(bases)])
        if merged is None:  # inconsistent order: depth-first, first occurrence kept
            merged = list(dict.fromkeys(klass for chain in chains for klass in chain))
        return [cls, *merged][: MAX_BASE_DEPTH + 1]

    def _made_by_metaclass(self, cls: _Symbol) -> bool:
        """Whether the class or an in-repo base names an in-repo metaclass, which may give it
        attributes no class body shows (django's ModelBase adds a model's ``objects``)."""
        return self._memo(("metaclass", cls.id), lambda: self._made_by_metaclass_uncached(cls)) or False

    def _made_by_metaclass_uncached(self, cls: _Symbol) -> bool:
        for klass in self._mro(cls):
            if not isinstance(klass, _Symbol):
                continue
            raw = self._metaclasses.get((klass.file.path, klass.index))
            if raw is not None:
                metaclass = self._resolve_dotted(klass.file.path, klass.definition.parent, raw)
                if isinstance(metaclass, _Sym) and metaclass.symbol.label == "Class":
                    return True
        return False

    def _attribute_hook(self, cls: _Symbol) -> _Sym | None:
        """The class's (or an in-repo base's) ``__getattr__``/``__getattribute__``: then a
        missing attribute of its instances is looked up at run time."""
        for name in _DYNAMIC_ATTRIBUTE_HOOKS:
            hook = self._class_member(cls, name, set())
            if isinstance(hook, _Sym):
                return hook
        return None

    def _bases_uncached(self, cls: _Symbol) -> list[tuple[str, int, _Value]]:
        parent = cls.definition.parent
        shadowed = self._shadowed_imports.get((cls.file.path, cls.index))
        found = []
        for ref in self._base_refs.get((cls.file.path, cls.index), ()):
            base = self._resolve_dotted(cls.file.path, parent, ref.raw.split("[", 1)[0])
            if shadowed is not None and base == _Sym(cls):
                base = self._resolve_binding(cls.file.path, shadowed)
            found.append((ref.raw, ref.line, base))
        return found

    def _resolve_dotted(self, path: str, scope: int | None, raw: str) -> _Value:
        """Resolve ``a.b.c`` as written in ``scope`` of ``path``, or a chain of calls and
        attributes (``Invoice().add_line``, ``build_client(...).send``, ``qs.filter(...)
        .order_by``, ``super().save``): each call gives what calling the value before returns
        (a fresh instance of a class, a function's annotated or single returned type)."""
        if ("(" in raw or "[" in raw) and (steps := _call_chain(raw)) is not None:
            return self._resolve_chain(path, scope, raw, steps)
        if not _DOTTED.match(raw):
            return _Ext(raw) if _LITERAL_RECEIVER.match(raw) else None
        return self._dotted_chain(path, scope, raw)

    def _resolve_chain(self, path: str, scope: int | None, raw: str, steps: list[str]) -> _Value:
        head, rest = steps[0], steps[1:]
        if head == "super" and rest[:1] == [_CALL] and len(rest) > 1:
            value, rest = self._super_member(path, scope, raw, rest[1]), rest[2:]
        else:
            value = self._resolve_dotted(path, scope, head)
        return self._walk_steps(value, rest, raw)

    def _walk_steps(self, value: _Value, steps: list[str], raw: str) -> _Value:
        """Each call or attribute of a chain in turn, from what its head holds."""
        for step in steps:
            before = value
            if step == _CALL:
                value = self._call_result(value)
            elif step == _ITEM:
                # An in-repo class subscripted is that class, generic (`ConfigAttribute[bool]
                # ("TESTING")` builds a ConfigAttribute). An item of anything else is not
                # followed, and is no library's either: `self.tags[key].to_python()` may run any
                # in-repo `to_python` a registry holds.
                if not (isinstance(value, _Sym) and value.symbol.label == "Class"):
                    return None
            elif value is not None:
                value = self._member(self._through_property(value), step)
            if value is None:
                # What a library call gives is the library's (`sorted(rows).index` included).
                return _Ext(raw) if isinstance(before, _Ext) else None
        return value

    def _resolve_at(self, path: str, scope: int | None, raw: str, line: int, made_there: bool = False) -> _Value:
        """``raw`` as used on ``line``: its head read as the binding that surely holds there
        when the function binds it more than once, else as ``_resolve_dotted`` reads it.
        ``made_there``: ``raw`` is what a binding on ``line`` is made from, read before it."""
        narrowed = self._narrowed(path, scope, raw, line) if scope is not None and "." in raw else None
        if narrowed is not None:
            return narrowed
        name = _IDENTIFIER.match(raw)
        chain = _head_and_steps(raw) if name and scope is not None else None
        if chain is None or scope is None:
            return self._resolve_dotted(path, scope, raw)
        local = chain[0]
        binding = self._rebound(path, scope, local, line, made_there)
        if binding is not None:
            return self._walk_steps(self._resolve_binding(path, *binding), chain[1], raw)
        bound = self.bindings.get((path, scope), {}).get(local)
        if bound is None or bound[0] != "any_of":
            return self._resolve_dotted(path, scope, raw)  # bound once here, or not here
        agreed = self._memo(("agreed", path, scope, local), lambda: self._agreed_where_made(path, scope, local))
        if agreed is None:
            return self._resolve_dotted(path, scope, raw)
        return self._walk_steps(agreed[0], chain[1], raw)

    def _agreed_where_made(self, path: str, scope: int, name: str) -> tuple[_Value] | None:
        """What every binding of a local bound more than once agrees on, each read on the line
        it is made on (``a, b = b, a`` reads ``b`` as it stood there, not as the swap leaves
        it): what a use holds where no one binding surely does. None when one of them cannot
        be placed (then the bindings' table says it)."""
        bindings = self.bindings.get((path, scope), {})[name][1]
        points = self._binding_points.get((path, scope), {}).get(name, [])
        if not set(bindings) <= {p[3] for p in points}:
            return None
        return (_either({self._resolve_binding(path, p[3], p[0]) for p in points}),)

    def _narrowed(self, path: str, scope: int, raw: str, line: int) -> _Value:
        """``raw`` on ``line`` read from the innermost ``isinstance(subject, T)`` test that holds
        there and whose subject ``raw`` starts with (``node.render`` under ``if
        isinstance(node, Text):``): the subject is a T (``(A, B)``: an A or a B, as ``A | B``
        says). None when no test holds there, or T is no type this knows: the subject is still
        what it was before the test, so what that says stands."""
        tests = self._narrowings.get((path, scope))
        if not tests:
            return None
        holding = [
            a
            for a in tests
            if a.reach is not None and a.reach[0] <= line <= a.reach[1] and raw.startswith(f"{a.name}.")
        ]
        chain = _head_and_steps(raw) if holding else None
        if not holding or chain is None:
            return None
        test = max(holding, key=lambda a: a.line)
        types = test.callee[1:-1].split(",") if test.callee.startswith("(") else [test.callee]
        value = self._annotated(path, " | ".join(t.strip() for t in types if t.strip()), scope)
        return self._walk_steps(value, chain[1][test.name.count(".") :], raw) if value is not None else None

    def _rebound(
        self, path: str, scope: int, name: str, line: int, made_there: bool = False
    ) -> tuple[_Binding, int] | None:
        """Of a local bound more than once in its function, the binding that surely holds on
        ``line``: the last one before it, when the line lies in the rest of that binding's
        block and no later binding can come round a loop to it first (``for ...: x.go(); x =
        other()``), with the line it is made on. None when the name has one binding, or no
        binding surely holds."""
        table = self.bindings.get((path, scope), {})
        if table.get(name, ("",))[0] != "any_of":
            return None
        points = self._binding_points.get((path, scope), {}).get(name, [])
        if not set(table[name][1]) <= {p[3] for p in points}:
            return None  # bound by what cannot be placed too (`def f(f): ... def f()`)
        # A comprehension's target holds from the comprehension's first line, before its own,
        # but what it iterates is read before it binds (`[n for n in n.children]`).
        before = [p for p in points if p[0] < line or (not made_there and p[1][0] <= min(p[0], line))]
        if not before:
            return None
        last = max(before, key=lambda p: p[0])
        bound_at, (first, end), _, binding = last
        if not first <= line <= end:
            return None
        for later_line, _, loops, _ in points:
            if later_line >= line and any(s <= line <= e and not s <= bound_at <= e for s, e in loops):
                return None
        together = tuple(dict.fromkeys(p[3] for p in before if p[0] == bound_at))
        if len(together) > 1:  # the branches of `x = a if cond else b`: what both agree on
            return ("any_of", together), bound_at
        return binding, bound_at

    def _super_member(self, path: str, scope: int | None, raw: str, attr: str) -> _Value:
        """``super().attr`` in a method: the first class after the method's own in its method
        resolution order that has it; ``super(Klass, self).attr``: the first after ``Klass``."""
        owner = self._enclosing_class(path, scope)
        if owner is None:
            return None
        after: _Symbol | None = owner
        if not raw.startswith("super()"):
            named = _SUPER_ARGUMENTS.match(raw)
            klass = self._resolve_dotted(path, scope, named.group(1)) if named else None
            after = klass.symbol if isinstance(klass, _Sym) and klass.symbol.label == "Class" else None
        order = self._mro(owner)
        if after is None or after not in order:
            return None  # not a class of the method's own order: not followed, no guess
        return self._first_member(order[order.index(after) + 1 :], attr)

    def _attribute(self, value: _Value, attr: str) -> _Value:
        return self._member(self._through_property(value), attr)

    def _through_property(self, value: _Value) -> _Value:
        """A property read on the way to an attribute (``self.client.send``) stands for what
        the property returns; a decorated function's attribute (``cli.command`` of a
        ``@click.group()`` function) is an attribute of what its decorator made of it;
        anything else stands for itself."""
        if not isinstance(value, _Sym) or value.symbol.label not in ("Function", "Method"):
            return value
        decorators = value.symbol.definition.decorators
        if _is_property(value.symbol):
            return self._call_result(value)
        if decorators:
            made = self._memo(("decorated", value.symbol.id), functools.partial(self._decorated, value.symbol))
            return value if made is None else made
        return value

    def _decorated(self, function: _Symbol) -> _Value:
        """What the outermost decorator makes of ``function``, when that is known: an instance
        of a class decorating it (not a descriptor: ``cached_property`` gives what the method
        returns), or what a decorator's declared result says, a decorator factory's
        (``@group(...)``, ``-> Callable[[F], Group]``) or a decorator's (``-> Group``), the two
        told apart by nothing but the call."""
        outer = function.definition.decorators[0]
        factory = outer.split("(", 1)[0] if outer.endswith(")") else outer
        made_by = self._resolve_dotted(function.file.path, function.definition.parent, factory)
        if isinstance(made_by, _Ext):
            result = self._call_result(made_by)
            return self._call_result(result) if factory != outer else result
        if not isinstance(made_by, _Sym):
            return None
        decorator = made_by.symbol
        if decorator.label == "Class":
            if self._class_member(decorator, "__get__", set()) is not None:
                return None
            return _Inst(decorator) if factory == outer else self._call_result(_Inst(decorator))
        declared = self.return_types.get((decorator.file.path, decorator.index))
        if declared is None:
            return None
        return self._annotated(
            decorator.file.path, _decoration_result(declared), decorator.definition.parent, method=decorator
        )

    def _attribute_origin(
        self, path: str, scope: int | None, head: str, attr: str, depth: int
    ) -> tuple[str, str] | None:
        module = self._resolve_dotted(path, scope, head)
        found = self.modules.get(module.name) if isinstance(module, _Mod) and "." not in attr else None
        return self.origin(found.path, None, attr, depth) if found is not None else None

    def _imported_origin(self, path: str, binding: _Binding, depth: int) -> tuple[str, str] | None:
        if binding[0] != "from":
            return None
        found = self.modules.get(binding[1])
        return self.origin(found.path, None, binding[2], depth) if found is not None else None

    def module_path(self, module: str) -> str | None:
        """The file of an in-repo module named by its dotted name."""
        found = self.modules.get(module)
        return found.path if found is not None else None

    # ----- graph output ---------------------------------------------------------------

    def _module_qualname(self, path: str) -> str:
        return module_name(path)

    def _emit_references(self, f: ParsedSource, out: SubgraphEmitter, file_target: Target) -> None:
        defs = f.parsed.definitions
        for symbol in (self.symbols[(f.path, index)] for index in range(len(defs))):
            if symbol.label == "Class":
                for raw, line, base in self._class_bases(symbol):
                    self._emit_reference(
                        out, f.path, Target(symbol.id, "Class"), "INHERITS_FROM", raw, line, base, ("Class",)
                    )

        for imp in f.parsed.imports:
            self._emit_import(out, f, file_target, imp)

        for ref in f.parsed.references:
            source = self.scope_target(f.path, ref.scope)
            if ref.kind == "call":
                if _INLINE_LAMBDA.match(ref.raw):
                    continue  # `(lambda: ...)()`: the caller's own code, no reference to anything
                value = self._called(self._resolve_at(f.path, ref.scope, ref.raw, ref.line))
                edge = self._emit_reference(
                    out, f.path, source, "CALLS", ref.raw, ref.line, value, ("Class", "Function", "Method")
                )
                if edge.resolved and ref.scope is not None:
                    self._emit_tested_by(out, f, ref.scope, edge)
                elif not edge.resolved:
                    for method in self._stored_methods(f.path, ref.scope, ref.raw):
                        out.inferred(f.path, source, "CALLS", method, ref.raw, ref.line, via="stored method")
            elif ref.kind == "value":
                self._emit_value(out, f.path, source, ref)
            elif ref.kind == "dispatch" and ref.param:
                self._emit_dispatch(out, f.path, source, ref)
            elif ref.kind == "metaclass" and ref.scope is not None:
                # Making the class calls its metaclass (`SchemaMeta.__new__` runs for every
                # Schema subclass defined): an in-repo metaclass is called by the class.
                value = self._resolve_dotted(f.path, defs[ref.scope].parent, ref.raw)
                target = self._target(value, ("Class",))
                if target is not None:
                    out.reference(f.path, source, "CALLS", ref.raw, ref.line, target)
            elif ref.kind in ("param_type", "return_type"):
                edge_type = "PARAM_TYPE" if ref.kind == "param_type" else "RETURNS_TYPE"
                scope = defs[ref.scope].parent if ref.scope is not None else None
                declared = self._type_parameters_around(f.path, defs, ref.scope)
                for name in _type_names(ref.raw):
                    if name in declared:
                        continue  # `items: list[T]` in `def first[T]`: a type of the caller's choosing
                    for value in self._types_named(f.path, scope, name):
                        self._emit_reference(
                            out, f.path, source, edge_type, name, ref.line, value, ("Class", "Interface")
                        )

        if is_support_file(f.path):
            self._emit_fixture_uses(out, f)

    def _type_parameters_around(self, path: str, defs: list[Definition], scope: int | None) -> set[str]:
        """The PEP 695 type parameters a definition and those around it declare."""
        found: set[str] = set()
        while scope is not None:
            found |= self.type_parameters.get((path, scope), set())
            scope = defs[scope].parent
        return found

    def _types_named(self, path: str, scope: int | None, name: str, depth: int = 0) -> list[_Value]:
        """What a name in an annotation stands for: itself, or, for a type alias (``Scope =
        Union[HTTPScope, LifespanScope]``), the in-repo classes it names, to a depth of a few
        aliases (a function taking a ``Scope`` takes an ``HTTPScope``); an alias of library types
        alone (``Handler = Callable[[Request], Awaitable[None]]``) is the library's; a type
        parameter (``T = TypeVar("T")``) is nothing."""
        value = self._resolve_dotted(path, scope, name)
        if isinstance(value, _Var) and value.type_parameter:
            return []  # `items: list[T]` takes a list of any type: no reference to one
        if not (isinstance(value, _Var) and value.alias is not None and depth < _ALIAS_DEPTH):
            return [value]
        alias_path, raw = value.alias
        named = [
            meant
            for part in dict.fromkeys(_type_names(raw))
            for meant in self._types_named(alias_path, None, part, depth + 1)
        ]
        in_repo: list[_Value] = list(
            dict.fromkeys(v for v in named if isinstance(v, _Sym) and v.symbol.label in ("Class", "Interface"))
        )
        if in_repo:
            return in_repo
        if named and all(isinstance(v, _Ext) for v in named):
            return [named[0]]
        return [value]

    def _called(self, value: _Value) -> _Value:
        """What a call of ``value`` runs: an in-repo instance runs its class's ``__call__``
        (``hookimpl = HookimplMarker("x")`` then ``@hookimpl``), when the class or an in-repo
        base defines one; anything else is called as it is."""
        if isinstance(value, _Inst):
            call = self._class_member(value.symbol, "__call__", set())
            if isinstance(call, _Sym) and call.symbol.label == "Method":
                return call
        return value

    def _emit_value(self, out: SubgraphEmitter, path: str, source: Target, ref: Reference) -> None:
        """A REFERENCES edge from the scope that names a function, method or class as a value
        to it, or, for a name bound to a module's collection, to each element the collection
        names. Only what resolves is an edge: a value is mostly a variable, and a dangling
        edge for each would say nothing."""
        head, dot, _ = ref.raw.partition(".")
        if not self._may_name_a_symbol(path, ref.scope, head, attribute=bool(dot)):
            return
        target = self._target(self._resolve_dotted(path, ref.scope, ref.raw), _VALUE_LABELS)
        if target is not None:
            if target.id != source.id:
                out.reference(path, source, "REFERENCES", ref.raw, ref.line, target)
            return
        origin = self.origin(path, ref.scope, ref.raw) if ref.param is None else None
        if origin is None:
            return
        for element in self._collections.get(origin, ()):
            found = self._target(self._resolve_dotted(origin[0], None, element.raw), _VALUE_LABELS)
            if found is not None and found.id != source.id:
                out.reference(path, source, "REFERENCES", ref.raw, ref.line, found)

    def _emit_dispatch(self, out: SubgraphEmitter, path: str, source: Target, ref: Reference) -> None:
        """Inferred CALLS edges from a ``getattr(receiver, prefix + ...)`` to each method whose name
        has the prefix (``ref.param``), of the receiver's class, its in-repo bases and every
        in-repo subclass below it (a visitor's ``visit_<Node>`` methods live in its subclasses),
        class-body aliases of methods (``visit_Block = _simple_visit``) among them. A prefix too
        short to say anything (``getattr(self, name)`` has none) gives nothing."""
        prefix = ref.param or ""
        if len(prefix) < 3 or not prefix.isidentifier():
            return
        value = self._resolve_dotted(path, ref.scope, ref.raw)
        if not isinstance(value, (_Inst, _Sym)) or value.symbol.label != "Class":
            return
        classes: dict[str, _Symbol] = {}
        pending = [value.symbol]
        while pending and len(classes) < _MAX_DISPATCH_CLASSES:
            cls = pending.pop()
            if cls.id in classes:
                continue
            classes[cls.id] = cls
            if self.reads is not None:
                self.reads.add((SUBCLASSES, symbol_key(cls.id)))
            pending.extend(self._subclasses(cls.id))
        for base in self._mro(value.symbol)[1:]:
            if isinstance(base, _Symbol):
                classes.setdefault(base.id, base)
        methods: set[str] = set()
        for cls in classes.values():
            key = (cls.file.path, cls.index)
            for name, method in self.children.get(key, {}).items():
                if name.startswith(prefix) and len(name) > len(prefix) and method.label == "Method":
                    methods.add(method.id)
            for name in self.attributes.get(key, {}):
                # A class-body alias (`visit_Block = _simple_visit`) dispatches to the method it names.
                if name.startswith(prefix) and len(name) > len(prefix):
                    aliased = self._own_attribute(cls, name)
                    if isinstance(aliased, _Sym) and aliased.symbol.label == "Method":
                        methods.add(aliased.symbol.id)
        for method_id in sorted(methods - {source.id})[:_MAX_DISPATCH_TARGETS]:
            target = Target(method_id, "Method")
            out.inferred(path, source, "CALLS", target, ref.raw, ref.line, via=f"getattr {prefix}*")

    def _stored_methods(self, path: str, scope: int | None, raw: str) -> list[Target]:
        """The methods a call of ``self.attr`` that resolved to nothing may run, when every
        assignment of the attribute stores one of the class's methods and they disagree
        (``self._add = self._add_safe`` or ``self._add_unsafe``): each is called, inferred."""
        receiver, dot, attr = raw.partition(".")
        if receiver != "self" or not dot or "." in attr or not attr.isidentifier() or scope is None:
            return []
        defs = self._file(path).parsed.definitions
        owner = defs[scope].parent
        if owner is None or defs[owner].kind != "class":
            return []
        for klass in self._mro(self.symbols[(path, owner)]):
            if not isinstance(klass, _Symbol):
                return []
            bindings = self.attributes.get((klass.file.path, klass.index), {}).get(attr)
            if not bindings:
                continue
            found: dict[str, Target] = {}
            for binding in bindings:
                stored = binding[1] if binding[0] == "alias" else ""
                if not stored.startswith("self.") or stored.count(".") != 1:
                    return []  # something else is stored too: nothing is sure enough to name
                target = self._target(self._resolve_dotted(klass.file.path, binding[2], stored), ("Method",))
                if target is None:
                    return []
                found[target.id] = target
            return sorted(found.values(), key=lambda t: t.id)
        return []

    def _may_name_a_symbol(self, path: str, scope: int | None, head: str, attribute: bool) -> bool:
        """Whether a value whose first name is ``head`` may be a symbol, from the file's own
        bindings alone (cheap, and what resolving it would read first): most values are the
        scope's parameters and locals (`request`, `value`), made at run time, or names the file
        never binds (a builtin); a star import may bind any name. An attribute of a local made
        at run time may still be one (`response.content`: reading a property runs it)."""
        if head in _RECEIVERS or not head.isidentifier():
            return True  # `self.x`, `super().x`, `Form(data).clean`
        for current, _ in _visible_scopes(self._file(path).parsed.definitions, scope):
            binding = self.bindings.get((path, current), {}).get(head)
            if binding is not None:
                if not attribute:
                    return binding[0] not in _COMPUTED_BINDINGS
                # An untyped parameter's attribute is the caller's (a test's parameter may be a
                # fixture's typed value), a literal's the builtin's.
                return binding[0] != "literal" and (binding[0] != "parameter" or is_support_file(path))
        if head in self.bindings.get((path, None), {}):
            return True  # a module's name: its list of cases (`ALL_FIELDS = [...]`) too
        return bool(self.wildcards.get(path)) and not head.startswith("_")

    def _emit_fixture_uses(self, out: SubgraphEmitter, f: ParsedSource) -> None:
        """A test or fixture runs the fixtures its parameters name: pytest calls them on its
        behalf (this file's, else the nearest conftest.py's). Without these edges a change to
        code only a fixture reaches selected none of the tests that use it."""
        # Untyped parameters are assignments; typed ones (`app: Flask`) only annotate their type.
        parameters = [(a.scope, a.name, a.line) for a in f.parsed.assignments if a.kind == "parameter"]
        parameters += [(r.scope, r.param, r.line) for r in f.parsed.references if r.kind == "param_type" and r.param]
        uses: list[tuple[_Symbol, str, int]] = []
        for scope, name, line in parameters:
            if scope is not None and name not in _RECEIVERS:
                user = self.symbols[(f.path, scope)]
                if user.is_test or _is_fixture(user.definition):
                    uses.append((user, name, line))
        # `@pytest.mark.usefixtures("db")` on a test, or on a class for each of its tests.
        for index, d in enumerate(f.parsed.definitions):
            names = [
                n for decorator in d.decorators if _USEFIXTURES.match(decorator) for n in _QUOTED.findall(decorator)
            ]
            if not names:
                continue
            symbol = self.symbols[(f.path, index)]
            users = [symbol] if d.kind == "function" else list(self.children.get((f.path, index), {}).values())
            uses.extend((user, name, d.start_line) for user in users if user.is_test for name in names)
        for user, name, line in uses:
            fixture = self._fixture(f.path, name)
            if fixture is not None and fixture.id != user.id:
                out.inferred(
                    f.path, Target(user.id, user.label), "CALLS", Target(fixture.id, fixture.label), name, line,
                    via=FIXTURE_VIA,
                )  # fmt: skip

    def _emit_import(self, out: SubgraphEmitter, f: ParsedSource, file_target: Target, imp: Import) -> None:
        if imp.name is None:
            target = self._find_module(f, imp.module)
            raw = imp.module
            value: _Value = _Mod(target) if target in self.module_prefixes else _Ext(target)
        else:
            module = self._find_module(f, imp.module)
            raw = f"{imp.module}.{imp.name}" if not imp.module.endswith(".") else f"{imp.module}{imp.name}"
            if imp.name == "*":
                value = _Mod(module) if module in self.module_prefixes else _Ext(module)
            elif module not in self.module_prefixes:
                value = _Ext(f"{module}.{imp.name}" if module else imp.name)
            else:
                value = self._member(_Mod(module), imp.name)
                if isinstance(value, (_Inst, _Var)):
                    # `from m import CONSTANT`: a name that is no symbol node imports its module.
                    value = _Mod(module)
        self._emit_reference(
            out, f.path, file_target, "IMPORTS", raw, imp.line, value, ("File", "Class", "Function", "Interface")
        )

    def _emit_reference(
        self,
        out: SubgraphEmitter,
        path: str,
        source: Target,
        edge_type: str,
        raw: str,
        line: int,
        value: _Value,
        target_labels: tuple[str, ...],
    ) -> Edge:
        external = value.name if isinstance(value, _Ext) else None
        target = self._target(value, target_labels)
        # Calling an untyped parameter runs what the caller passed, and calling what an expression
        # computes (`(a or b)(x)`, `handlers[key]()`) whatever it gave: decided at run time.
        dynamic = isinstance(value, _Dyn) or (
            edge_type == "CALLS" and (isinstance(value, _Param) or (value is None and is_computed_callee(raw)))
        )
        return out.reference(path, source, edge_type, raw, line, target, external=external, dynamic=dynamic)

    def _target(self, value: _Value, labels: tuple[str, ...]) -> Target | None:
        if isinstance(value, _Sym) and value.symbol.label in labels:
            return Target(value.symbol.id, value.symbol.label)
        if isinstance(value, _Mod) and "File" in labels:
            f = self.modules.get(value.name)
            if f is not None:
                return Target(self.file_ids[f.path], "File")
        return None

    def _emit_tested_by(self, out: SubgraphEmitter, f: ParsedSource, scope: int, call: Edge) -> None:
        test = self.symbols[(f.path, scope)]
        if not test.is_test or test.label == "Class":
            return
        target = self._by_id.get(call.dst)
        if target is None or self._is_test_symbol(target) or self._in_test_class(target):
            return
        out.tested_by(f.path, Target(target.id, target.label), Target(test.id, test.label), call.raw, call.line)

    def _in_test_class(self, symbol: _Symbol) -> bool:
        parent = symbol.definition.parent
        return parent is not None and self._is_test_symbol(self.symbols[(symbol.file.path, parent)])

    def _is_test_symbol(self, symbol: _Symbol) -> bool:
        """Whether another file's symbol is a test, with what deciding it read."""
        is_test = self._test_flag(symbol)
        if self.reads is not None:
            self.reads.update(self._test_reads.get(symbol.id, _NO_READS))
        return is_test

    def _file_dependencies(self, f: ParsedSource, reads: set[ReadKey]) -> set[ReadKey]:
        """What resolving the file read, what deciding its own symbols are tests read, and
        what indexing each file read on the way read (the modules its imports looked for)."""
        found = reads | {f.path}
        for index in range(len(f.parsed.definitions)):
            found |= self._test_reads.get(self.symbols[(f.path, index)].id, _NO_READS)
        for key in [k for k in found if isinstance(k, str)]:
            self._ensure(key)  # a module found is a file read, even when none of its rows was
            found |= self._index_reads.get(key, set())
        return found


_CALL = "()"  # a call step of ``_call_chain``
_ITEM = "[]"  # a subscript step of ``_call_chain``
_SUPER_ARGUMENTS = re.compile(r"super\(\s*([A-Za-z_][\w.]*)\s*,\s*(?:self|cls)\s*\)")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_DOTTED_HEAD = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def _call_chain(raw: str) -> list[str] | None:
    """``a.b(x).c(y) .d`` -> ``["a.b", "()", "c", "()", "d"]``: a dotted head, then calls,
    subscripts (``Attr[bool]`` -> ``["Attr", "[]"]``) and attributes; None when ``raw`` is
    something else (a literal receiver)."""
    head = _DOTTED_HEAD.match(raw)
    if head is None:
        return None
    steps = [head.group(0)]
    i, n = head.end(), len(raw)
    while i < n:
        if raw[i] in "([":
            end = _closing(raw, i)
            if end is None:
                return None
            steps.append(_CALL if raw[i] == "(" else _ITEM)
            i = end + 1
        elif raw[i] == "." or raw[i].isspace():
            while i < n and raw[i].isspace():
                i += 1
            if i >= n or raw[i] != "." or (steps[-1] != _CALL and raw[i - 1].isspace()):
                return None
            name = _IDENTIFIER.match(raw, i + 1)
            if name is None:
                return None
            steps.append(name.group(0))
            i = name.end()
        else:
            return None
    return steps


def _head_and_steps(raw: str) -> tuple[str, list[str]] | None:
    """``a.b(x).c`` -> ``("a", ["b", "()", "c"])``: the first name, then each attribute and
    call after it; None for what is no such chain."""
    steps = _call_chain(raw) if "(" in raw or "[" in raw else raw.split(".") if _DOTTED.match(raw) else None
    if not steps:
        return None
    head, *attributes = steps[0].split(".")
    return head, [*attributes, *steps[1:]]


def _closing(text: str, start: int) -> int | None:
    """The index of the bracket closing the one at ``start`` (a parenthesis or a square
    bracket; strings skipped), None when another kind closes it first."""
    closer = {"(": ")", "[": "]"}[text[start]]
    depth, i, quote = 0, start, ""
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i if c == closer else None
        i += 1
    return None


def _fixture_scope(path: str) -> str:
    """Where a file's fixtures are seen: a conftest.py's folder, any other file itself."""
    return _directory(path) if _file_name(path) == "conftest.py" else path


def _is_fixture(d: Definition) -> bool:
    return d.kind == "function" and any(_FIXTURE.match(decorator) for decorator in d.decorators)


_FIXTURE_NAMED = re.compile(r"""fixture\(.*\bname\s*=\s*["'](\w+)["']""")


def _fixture_name(d: Definition) -> str:
    """The name tests ask a fixture by: ``@pytest.fixture(name="app")``'s, else the function's."""
    for decorator in d.decorators:
        named = _FIXTURE_NAMED.search(decorator)
        if named:
            return named.group(1)
    return d.name


def resolve_python(
    repo: str, branch: str, files: list[ParsedSource], project_files: Mapping[str, bytes] | None = None
) -> list[FileSubgraph]:
    """Resolve a whole commit's Python files into per-file graphs (Python reads no project
    files: a module's name is its path)."""
    return PythonResolver(repo, branch, files).build()


def _generic(raw: str) -> tuple[str, list[str]] | None:
    """A subscripted annotation's last name and arguments: ``t.List[tuple[A, B]]`` -> ("List",
    ["tuple[A, B]"]); None for any other."""
    head, _, rest = raw.strip().strip("\"'").partition("[")
    if not rest.endswith("]"):
        return None
    return head.strip().rsplit(".", 1)[-1], [a.strip() for a in _split_top_level(rest[:-1], ",")]


def _element_annotation(raw: str) -> str | None:
    """What a declared container's elements are declared as: ``list[tuple[A, B]]`` ->
    ``tuple[A, B]`` (an optional container's too: ``Optional[List[X]]`` -> ``X``)."""
    generic = _generic(raw)
    if generic is None or not generic[1]:
        return None
    name, arguments = generic
    if name == "Optional" and len(arguments) == 1:
        return _element_annotation(arguments[0])
    return arguments[0] if name in _ITERABLES and name not in ("tuple", "Tuple") else None


def _tuple_places(raw: str) -> list[str] | None:
    """The places of a declared tuple (``Tuple["A", B]``, ``tuple[A, B]``): their annotations."""
    generic = _generic(raw)
    return generic[1] if generic is not None and generic[0] in ("Tuple", "tuple") else None


def _element_tuple_places(raw: str) -> list[str] | None:
    """The places of a declared container's element tuple (``list[tuple[A, B]]``)."""
    element = _element_annotation(raw)
    return _tuple_places(element) if element is not None else None


def _mapping_places(raw: str) -> list[str] | None:
    """A declared mapping's key and value (``dict[str, Field]``)."""
    generic = _generic(raw)
    return generic[1] if generic is not None and generic[0] in _MAPPINGS and len(generic[1]) == 2 else None


def _place(places: list[str] | None, position: int) -> str | None:
    """The annotation at ``position`` of a declared tuple's places, unless it has no such
    place or is of any length (``tuple[A, ...]``)."""
    return places[position] if places is not None and position < len(places) and "..." not in places else None


def _annotation_types(raw: str, unwrap: frozenset[str] = frozenset()) -> list[tuple[str, bool]]:
    """The types an annotation says a value may be, each as (dotted name, whether it is the
    class object itself): ``Optional["Store"]`` -> [("Store", False)], ``A | None`` -> [("A",
    False)], ``type[A]`` -> [("A", True)], ``list[A]`` -> [("list", False)]."""
    out: list[tuple[str, bool]] = []

    def walk(text: str, is_class_object: bool, top: bool = False) -> None:
        for part in _split_top_level(text, "|"):
            part = part.strip()
            head, _, rest = part.partition("[")
            head = head.strip()
            if not _DOTTED.match(head) or head in _TYPE_KEYWORDS:
                continue
            arguments = _split_top_level(rest[: rest.rfind("]")], ",") if rest else []
            last = head.rsplit(".", 1)[-1]
            if last in _FIRST_ARGUMENT or (top and last in unwrap):
                if arguments:  # a bare `Final` says nothing about the type
                    walk(arguments[0], is_class_object)
            elif last in _ANY_ARGUMENT:
                for argument in arguments:
                    walk(argument, is_class_object)
            elif last in _CLASS_OBJECT and len(arguments) == 1 and not is_class_object:
                walk(arguments[0], True)
            else:
                out.append((head, is_class_object))

    walk(raw.replace('"', "").replace("'", ""), False, top=True)
    return out


def _decoration_result(raw: str) -> str:
    """What a decorator's declared result says the decorated becomes, as one annotation: a
    ``Callable``'s result for each ``Callable`` it may return (a factory's decorator),
    everything else as written (``Group | Callable[[F], Group | G]`` -> ``Group | Group | G``)."""
    parts = []
    for part in _split_top_level(raw.replace('"', "").replace("'", ""), "|"):
        head, _, rest = part.strip().partition("[")
        last = head.strip().rsplit(".", 1)[-1]
        arguments = _split_top_level(rest[: rest.rfind("]")], ",") if rest else []
        if last == "Callable" and len(arguments) == 2:
            parts.append(_decoration_result(arguments[1]))
        elif last == "Union":
            parts.extend(_decoration_result(argument) for argument in arguments)
        else:
            parts.append(part.strip())
    return " | ".join(parts)


def _type_names(raw: str) -> list[str]:
    """The dotted names an annotation uses as types, in order: ``Literal[...]``'s values and
    ``Annotated[...]``'s metadata are none (``Literal["http"]`` names no ``http``, and
    ``Annotated[int, Doc("n")]`` no ``n``); a quoted forward reference is one."""
    names: list[str] = []
    pos = 0
    while match := _TYPE_NAME.search(raw, pos):
        name, pos = match.group(), match.end()
        if name not in _TYPE_KEYWORDS:
            names.append(name)
        last = name.rsplit(".", 1)[-1]
        if last in ("Literal", "Annotated") and raw[pos : pos + 1] == "[":
            close = _closing_bracket(raw, pos)
            if last == "Annotated":
                names.extend(_type_names((_split_top_level(raw[pos + 1 : close], ",") or [""])[0]))
            pos = close + 1
    return names


def _closing_bracket(text: str, start: int) -> int:
    """Where the bracket opened at ``start`` closes (the end, when it does not: raw text is cut
    at a length)."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "[":
            depth += 1
        elif text[i] == "]":
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def _split_top_level(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside brackets."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in parts if p.strip()]


# Library callables whose result is (or holds) what they were given, which may be the
# repository's: their results are not known, not the library's.
_PASS_THROUGH_MODULES = ("functools.", "itertools.", "copy.", "operator.", "typing.", "typing_extensions.", "weakref.")
_BUILTIN_VALUES = frozenset(
    {"str", "int", "float", "bytes", "bytearray", "bool", "complex", "dict", "list", "set", "frozenset", "tuple"}
    | {"open", "range", "memoryview", "object", "Exception", "ValueError", "TypeError", "KeyError", "RuntimeError"}
)


# typing's names for the builtin types (``t.Dict[str, int]`` is a dict).
_TYPING_BUILTINS = {"Dict": "dict", "List": "list", "Set": "set", "FrozenSet": "frozenset", "Tuple": "tuple"}


def _builtin_type(name: str) -> str | None:
    """The builtin type a library name is (``dict``, ``typing.Dict``), else None."""
    if name in _BUILTIN_VALUES and name not in ("open", "object"):
        return name
    module, _, last = name.rpartition(".")
    return _TYPING_BUILTINS.get(last) if module in ("typing", "typing_extensions") else None


def _is_callable_type(name: str) -> bool:
    """Whether a library name is the type of any callable (``typing.Callable``)."""
    module, _, last = name.rpartition(".")
    return last == "Callable" and module in ("typing", "typing_extensions", "collections.abc")


def _passes_through(name: str) -> bool:
    """Whether a library call may give back the repository's own values (``sorted(rows)``,
    ``getattr(obj, name)``, ``functools.partial(Serializer)``); a builtin type's constructor or
    any other library's call gives the library's value."""
    if name in BUILTIN_NAMES:
        return name not in _BUILTIN_VALUES
    return name.startswith(_PASS_THROUGH_MODULES)


def _visible_scopes(defs: list[Definition], scope: int | None) -> Iterator[tuple[int, Definition]]:
    """The definitions whose names code in ``scope`` sees, innermost first: the enclosing
    functions, and a class body only from inside the body itself, not from its methods."""
    current, innermost = scope, True
    while current is not None:
        d = defs[current]
        if d.kind != "class" or innermost:
            yield current, d
        innermost = False
        current = d.parent


def _local_binding(a: Assignment) -> _Binding:
    """``f = partial(g, ...)`` holds g; ``x = callee(...)`` holds what the call returns;
    ``x = y`` holds what y holds; ``with callee(...) as x`` what its ``__enter__`` gives;
    ``for x in callee(...)`` an element of what the call returns; a tuple's name keeps its
    place (``a, b = f()``)."""
    kind = "wraps" if a.kind == "partial" else a.kind if a.kind in _ASSIGNED else "call_result"
    if kind in _PLACED_BINDINGS:
        return (kind, a.callee, a.scope, a.position or 0)
    return (kind, a.callee, a.scope)


def _class_body_binding(a: Assignment, defs: list[Definition]) -> _Binding:
    """A class body's ``name = name`` (``hashed_file_path = hashed_file_path``) reads the name
    from around the class: the class's own is not bound yet."""
    binding = _local_binding(a)
    if binding[0] == "alias" and a.callee == a.name and a.scope is not None:
        return ("alias", a.callee, defs[a.scope].parent)
    return binding


def _directory(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _file_name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _c3_merge(sequences: list[list]) -> list | None:
    """C3's merge: repeatedly take the first head that is in no other sequence's tail."""
    out: list = []
    sequences = [seq for seq in sequences if seq]
    while sequences:
        for seq in sequences:
            head = seq[0]
            if not any(head in other[1:] for other in sequences):
                break
        else:
            return None
        out.append(head)
        sequences = [[x for x in seq if x != head] for seq in sequences]
        sequences = [seq for seq in sequences if seq]
    return out
