"""What every resolver shares: the symbols of a commit, the values a name can stand for,
scoped bindings resolved lazily and memoised with a cycle guard, and a file's own nodes.

A language's resolver subclasses ``Resolver`` and supplies how a binding resolves
(``_resolve_binding``) and what a file's references become (``_emit_references``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from branchgraph.core.extract import Definition, Reference
from branchgraph.core.model import Edge, FileSubgraph, node_id, pack_subgraphs, unpack_subgraphs
from branchgraph.ingest.forked import split_work
from branchgraph.ingest.incremental import fact, fingerprint
from branchgraph.ingest.read_log import (
    MEMBER_NAME,
    PROJECT,
    ReadKey,
    ReadLog,
    TaggedSet,
    TaggedTable,
    TrackedTable,
    stored_key,
)
from branchgraph.ingest.subgraphs import ParsedSource, SubgraphEmitter, SymbolNode, Target


@dataclass(eq=False, slots=True)
class ResolvedSymbol:
    """A definition of the commit with its node id, label and qualname."""

    id: str
    label: str
    qualname: str
    file: ParsedSource
    index: int
    is_test: bool = False

    @property
    def definition(self) -> Definition:
        return self.file.parsed.definitions[self.index]


# Values a name can stand for during resolution.
@dataclass(frozen=True, slots=True)
class Module:
    name: str  # a module of the repository (Python: its dotted name; ECMAScript: its path)


@dataclass(frozen=True, slots=True)
class SymbolValue:
    symbol: ResolvedSymbol  # the class or function itself


@dataclass(frozen=True, slots=True)
class Instance:
    symbol: ResolvedSymbol  # an instance of this class (or a value of this interface)


@dataclass(frozen=True, slots=True)
class External:
    name: str  # something outside the repository, by the name it is reached by


@dataclass(frozen=True, slots=True)
class Elements:
    symbol: ResolvedSymbol  # an array or slice of this type's values (`OrderLine[]`, `[]Line`)


Binding = tuple  # resolved lazily: (kind, payload...)

_NAME = re.compile(r"[A-Za-z_$][\w$]*")

# How deep a chain of base classes is followed (a cycle or a generated tower ends there).
MAX_BASE_DEPTH = 25


def is_computed_callee(raw: str) -> bool:
    """Whether a callee is a value an expression computes — a call's result (`handlers.pop()()`),
    an element (`table[key]()`), a parenthesised choice (`(parser or json.loads)(s)`) — rather
    than a name or an attribute chain: what such a call runs is decided at run time. (A member
    of an unknown value, `rows[0].save`, is a name looked up on it: not this.)"""
    return raw.endswith((")", "]")) and not raw.startswith("new ")


_MISSING = object()
T = TypeVar("T")
# A build of this many files emits half of them in a forked child (``ingest.forked``): emitting
# reads only the index, which the child inherits. Measured on a first ingest: django's resolve
# 5.3 s -> 3.9 s, jsoup's (197 files) 0.73 s -> 0.59 s, echo's (104) 0.23 s -> 0.19 s.
_FORK_MIN_FILES = 100

_Emitted = tuple[list[FileSubgraph], dict[str, set[ReadKey]]]


def _pack_emitted(emitted: _Emitted) -> tuple[list[tuple[Any, ...]], dict[str, set[ReadKey]]]:
    return pack_subgraphs(emitted[0]), emitted[1]


def _unpack_emitted(sent: tuple[list[tuple[Any, ...]], dict[str, set[ReadKey]]]) -> _Emitted:
    return unpack_subgraphs(sent[0]), sent[1]


class Resolver:
    """The commit's files and symbols, bindings per (path, scope), instance attributes per
    class, what each function returns, and memoised resolution."""

    # Whether what resolving each file reads is logged (``ingest.read_log``), so an update
    # re-resolves only the files a change can reach; a resolver without it re-resolves all.
    TRACKS_READS = False
    # Whether the language's lookups read project files (tsconfig.json, go.mod): then every
    # file's resolution depends on them.
    READS_PROJECT_FILES = False

    def __init__(
        self, repo: str, branch: str, files: list[ParsedSource], project_files: Mapping[str, bytes] | None = None
    ):
        self.repo = repo
        self.branch = branch
        self.files = files
        self.reads = ReadLog() if self.TRACKS_READS else None
        self.project_print = fingerprint((project_files or {}).items())
        # Every name a definition or an instance attribute carries (``_leaves_repository``),
        # and which file adds each (an update compares them as facts).
        self.member_names: set[str] = TaggedSet(self.reads, MEMBER_NAME) if self.reads is not None else set()
        self._names_of: dict[str, set[str]] = {}
        self._files_by_path: dict[str, ParsedSource] = self._path_table()
        self._files_by_path.update((f.path, f) for f in files)
        self.file_ids: dict[str, str] = self._path_table()
        self.symbols: dict[tuple[str, int], ResolvedSymbol] = self._table()
        self.children: dict[tuple[str, int | None], dict[str, ResolvedSymbol]] = self._table()
        self.bindings: dict[tuple[str, int | None], dict[str, Binding]] = self._table()
        # (path, class index) -> instance attribute -> what its assignments bind
        self.attributes: dict[tuple[str, int], dict[str, list[Binding]]] = self._table()
        # (path, function index) -> what its return (and yield) statements give
        self.returns: dict[tuple[str, int], list[Binding]] = self._table()
        self._cache: dict[tuple, Any] = {}
        self._in_progress: set[tuple] = set()
        # path -> what resolving its references read (filled by ``build``)
        self.file_reads: dict[str, set[ReadKey]] = {}
        # (path, scope, name) -> the lines a local is declared on: read only by the file's own
        # references, so it needs no logging.
        self._declared_on: dict[tuple[str, int | None, str], set[int]] = {}

    def _table(self, tag: str | None = None) -> dict:
        """A table keyed by (path, ...) (or by (name, ...) logged under ``tag``): its reads are
        logged when the resolver tracks them."""
        return TrackedTable(self.reads, tag) if self.reads is not None else {}

    def _path_table(self, tag: str | None = None) -> dict:
        """A table keyed by one name, logged as that path (or under ``tag``)."""
        return TaggedTable(self.reads, tag) if self.reads is not None else {}

    def _add_symbol(
        self, f: ParsedSource, index: int, label: str, qualname: str, seen: Counter[tuple[str, str]]
    ) -> ResolvedSymbol:
        """The definition ``index`` of ``f`` as a symbol of the commit; ``seen`` counts the
        file's (label, qualname) pairs so far, which tells same-named definitions apart."""
        ordinal = seen[(label, qualname)]
        seen[(label, qualname)] += 1
        symbol = ResolvedSymbol(
            node_id(self.repo, self.branch, f.path, label, qualname, ordinal), label, qualname, f, index
        )
        self.symbols[(f.path, index)] = symbol
        return symbol

    def _resolve_binding(self, path: str, binding: Binding) -> Any:
        raise NotImplementedError

    def _emit_references(self, f: ParsedSource, out: SubgraphEmitter, file_target: Target) -> None:
        raise NotImplementedError

    def _module_qualname(self, path: str) -> str:
        raise NotImplementedError

    def _class_bases(self, cls: ResolvedSymbol) -> list[tuple[str, int, Any]]:
        """(raw, line, value) of each base a class or interface names (memoised; a class
        that inherits from itself finds no bases on the way)."""
        found: list[tuple[str, int, Any]] = self._memo(("bases", cls.id), lambda: self._bases_uncached(cls), reentry=[])
        return found

    def _bases_uncached(self, cls: ResolvedSymbol) -> list[tuple[str, int, Any]]:
        raise NotImplementedError

    # The labels whose members are looked up through their bases.
    TYPE_LABELS: tuple[str, ...] = ("Class",)

    @staticmethod
    def _instance_of(value: Any) -> Any:
        """What a value declared with type ``value`` is: an instance of a class or interface;
        an external type or a collection stays what it is."""
        if isinstance(value, SymbolValue) and value.symbol.label in ("Class", "Interface"):
            return Instance(value.symbol)
        return value if isinstance(value, (External, Elements)) else None

    def _element_of(self, path: str, scope: int | None, collection: str) -> Any:
        """An element of the collection ``collection`` names (a callback's or a range's value)."""
        found = self._resolve_dotted(path, scope, collection)
        return Instance(found.symbol) if isinstance(found, Elements) else None

    def _member(self, value: Any, attr: str) -> Any:
        return self._memo(("member", value, attr), lambda: self._member_uncached(value, attr))

    def _lookup(self, path: str, scope: int | None, name: str) -> Any:
        """``name`` looked up from ``scope`` outward, as the language scopes it (memoised)."""
        return self._memo(("lookup", path, scope, name), lambda: self._lookup_uncached(path, scope, name))

    def _lookup_uncached(self, path: str, scope: int | None, name: str) -> Any:
        raise NotImplementedError

    def _dotted_chain(self, path: str, scope: int | None, raw: str) -> Any:
        """``a.b.c``: ``a`` looked up, then each attribute of what the name before it holds."""
        head, *rest = raw.split(".")
        value = self._lookup(path, scope, head)
        for attr in rest:
            if value is None:
                return None
            value = self._attribute(value, attr)
        return value

    def _attribute(self, value: Any, attr: str) -> Any:
        """One step of a dotted name (Python reads a property's value on the way)."""
        return self._member(value, attr)

    def _member_uncached(self, value: Any, attr: str) -> Any:
        raise NotImplementedError

    def _add_member_name(self, path: str, name: str) -> None:
        self.member_names.add(name)
        self._names_of.setdefault(path, set()).add(name)

    def _leaves_repository(self, raw: str) -> bool:
        """A member call (``x.toFixed()``) whose name no definition or attribute of the
        repository carries cannot run code of the repository."""
        raw = raw.replace("?.", ".")
        if "." not in raw:
            return False
        attr = raw.rsplit(".", 1)[1]
        return bool(_NAME.fullmatch(attr)) and attr not in self.member_names

    def _class_member(self, cls: ResolvedSymbol, attr: str, seen: set[str]) -> Any:
        """A member of a class (or interface): its own definitions, then its instance
        attributes, then its in-repo bases in order; past an external base, that library's
        member."""
        if cls.id in seen or len(seen) > MAX_BASE_DEPTH:
            return None
        seen.add(cls.id)
        child = self.children.get((cls.file.path, cls.index), {}).get(attr)
        if child is not None:
            return SymbolValue(child)
        attribute = self._memo(("attribute", cls.id, attr), lambda: self._instance_attribute(cls, attr))
        if attribute is not None:
            return attribute
        external_base = None
        for _raw, _line, base in self._class_bases(cls):
            if isinstance(base, SymbolValue) and base.symbol.label in self.TYPE_LABELS:
                found = self._class_member(base.symbol, attr, seen)
                if found is not None:
                    return found
            elif isinstance(base, External) and external_base is None:
                external_base = base
        return External(f"{external_base.name}.{attr}") if external_base is not None else None

    def _lacks_method(self, path: str, scope: int | None, raw: str) -> bool:
        """Whether the call ``raw`` (``receiver.method``) names a method its receiver's type
        surely lacks (``store.fetch()`` on a type declaring no ``fetch``): a mistake, not a
        library's call. The receiver's binding is certain (``_receiver_certain``), it is a type
        of the repository, and the method is none of its (``_closed``)."""
        receiver, _, method = raw.rpartition(".")
        if not self.DOTTED.match(receiver) or not self._receiver_certain(
            path, scope, receiver.split(".", 1)[0], method
        ):
            return False
        value = self._resolve_dotted(path, scope, receiver)
        return isinstance(value, (SymbolValue, Instance)) and self._closed(value.symbol, method, set())

    def _receiver_certain(self, path: str, scope: int | None, head: str, method: str) -> bool:
        """Whether the receiver's first name ``head`` holds one value where ``method`` is
        called on it: a local declared once (``_bound_once``); a language narrows this."""
        return self._bound_once(path, scope, head)

    def _closed(self, cls: ResolvedSymbol, method: str, seen: set[str]) -> bool:
        """Whether ``method`` is surely none of ``cls``'s: the type and every base it has,
        through in-repo bases only, declares all its members in the repository
        (``_members_known``). A call of such a method is a mistake, not a library's call."""
        if cls.id in seen or len(seen) > MAX_BASE_DEPTH or cls.label not in self.TYPE_LABELS:
            return False
        seen.add(cls.id)
        if not self._members_known(cls, method):
            return False
        return all(
            isinstance(base, SymbolValue) and self._closed(base.symbol, method, seen)  # a library base may have it
            for _raw, _line, base in self._class_bases(cls)
        )

    def _members_known(self, cls: ResolvedSymbol, method: str) -> bool:
        """Whether the language says every member of ``cls`` (but ``method``'s kind of
        implicit ones) is declared in its source: none by default."""
        return False

    def _note_declaration(self, path: str, scope: int | None, name: str, line: int) -> None:
        self._declared_on.setdefault((path, scope, name), set()).add(line)

    def _bound_once(self, path: str, scope: int | None, name: str) -> bool:
        """Whether the local ``name`` seen from ``scope`` is declared once in the scope that
        binds it: a name declared again in another block (`for (Foo x ...)`, later `Bar x`)
        is bound to its first declaration only, which may not be the one in force here."""
        defs = self._file(path).parsed.definitions
        current = scope
        while current is not None:
            if name in self.bindings.get((path, current), {}):
                return len(self._declared_on.get((path, current, name), ())) <= 1
            current = defs[current].parent
        return True

    def _bind(self, path: str, scope: int | None, name: str, binding: Binding, keep_existing: bool = False) -> None:
        table = self.bindings.setdefault((path, scope), {})
        if keep_existing and name in table:
            return
        table[name] = binding

    def _memo(self, key: tuple, compute: Callable[[], Any], reentry: Any = None) -> Any:
        """Cache a resolution; one that re-enters itself (an import cycle, a function
        returning its own call) finds ``reentry`` (nothing)."""
        log = self.reads
        if log is not None:
            return self._memo_logged(log, key, compute, reentry)
        if key in self._cache:
            return self._cache[key]
        if key in self._in_progress:
            return reentry
        self._in_progress.add(key)
        try:
            value = compute()
        finally:
            self._in_progress.discard(key)
        self._cache[key] = value
        return value

    def _memo_logged(self, log: ReadLog, key: tuple, compute: Callable[[], Any], reentry: Any) -> Any:
        """``_memo`` that keeps each answer's reads with it, and memoises no answer that
        depended on a cycle entered further out (``ingest.read_log``)."""
        cached = self._cache.get(key, _MISSING)
        if cached is not _MISSING:
            value, reads = cached
            log.update(reads)
            return value
        if key in self._in_progress:
            log.hit_in_progress(key)
            return reentry
        self._in_progress.add(key)
        log.push()
        try:
            value = compute()
        finally:
            self._in_progress.discard(key)
            reads, taints = log.pop()
        taints.discard(key)
        if not taints:
            self._cache[key] = (value, frozenset(reads))
        return value

    def _logged(self, compute: Callable[..., Any], *args: Any) -> tuple[Any, set[ReadKey]]:
        """``compute(*args)`` and what it read (nothing when reads are not tracked)."""
        log = self.reads
        if log is None:
            return compute(*args), set()
        log.push()
        try:
            value = compute(*args)
        finally:
            reads, _ = log.pop()
        return value, reads

    def _agreed(self, path: str, bindings: list[Binding]) -> Any:
        """The one value every binding gives, or None when they disagree."""
        values = {self._resolve_binding(path, b) for b in bindings}
        return values.pop() if len(values) == 1 else None

    def _instance_attribute(self, cls: ResolvedSymbol, attr: str) -> Any:
        """The value of ``self.<attr>`` / ``this.<attr>`` when every assignment agrees."""
        bindings = self.attributes.get((cls.file.path, cls.index), {}).get(attr)
        return self._agreed(cls.file.path, bindings) if bindings else None

    # The definition kinds whose bodies make `self`/`this` an instance of them.
    ENCLOSING_KINDS: tuple[str, ...] = ("class",)

    def _enclosing_class(self, path: str, scope: int | None) -> ResolvedSymbol | None:
        defs = self._file(path).parsed.definitions
        while scope is not None:
            if defs[scope].kind in self.ENCLOSING_KINDS:
                return self.symbols[(path, scope)]
            scope = defs[scope].parent
        return None

    def _file(self, path: str) -> ParsedSource:
        return self._files_by_path[path]

    def _resolve_dotted(self, path: str, scope: int | None, raw: str) -> Any:
        raise NotImplementedError

    # A dotted name as the language writes it (``a.b.c``).
    DOTTED: re.Pattern[str] = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")

    def origin(self, path: str, scope: int | None, raw: str, depth: int = 0) -> tuple[str, str] | None:
        """Where the variable ``raw`` (a name, or ``module.name``) used in ``scope`` of
        ``path`` is assigned: (path, name) in the module that assigns it, imports followed."""
        if depth > MAX_BASE_DEPTH or not self.DOTTED.match(raw):
            return None
        head, _, attr = raw.partition(".")
        if attr:
            return self._attribute_origin(path, scope, head, attr, depth + 1)
        binding = self.bindings.get((path, scope), {}).get(raw) or self.bindings.get((path, None), {}).get(raw)
        if binding is not None and binding[0] in ("from", "import"):
            return self._imported_origin(path, binding, depth + 1)
        return (path, raw)

    def _attribute_origin(
        self, path: str, scope: int | None, head: str, attr: str, depth: int
    ) -> tuple[str, str] | None:
        """The origin of ``head.attr`` where ``head`` names a module."""
        raise NotImplementedError

    def _imported_origin(self, path: str, binding: Binding, depth: int) -> tuple[str, str] | None:
        """The origin of what an import binding binds."""
        raise NotImplementedError

    def module_path(self, module: str) -> str | None:
        """The file of an in-repo module named as the language names modules."""
        return None

    def callable_target(self, path: str, scope: int | None, raw: str) -> Target | None:
        """The in-repo function, method or class ``raw`` names there, if any."""
        value = self._resolve_dotted(path, scope, raw)
        if isinstance(value, SymbolValue) and value.symbol.label in ("Function", "Method", "Class"):
            return Target(value.symbol.id, value.symbol.label)
        return None

    def _emit_named_value(
        self,
        out: SubgraphEmitter,
        path: str,
        source: Target,
        ref: Reference,
        labels: tuple[str, ...] = ("Class", "Function", "Method"),
        resolve: Callable[[str, Reference], Any] | None = None,
    ) -> None:
        """A REFERENCES edge from ``source`` to the symbol of ``labels`` a value names (a callback
        handed on, `s.serve`, `Order::total`), as its scope resolves it or as ``resolve``
        (path, reference) says. Only what resolves is an
        edge: such a name is mostly a variable, and a dangling edge for each would say nothing;
        one that no definition of the repository is named like is not looked up at all."""
        member = ref.raw.rsplit(".", 1)[-1].rsplit("::", 1)[-1].strip()
        if member != "new" and member not in self.member_names:
            return
        value = resolve(path, ref) if resolve is not None else self._resolve_dotted(path, ref.scope, ref.raw)
        if isinstance(value, SymbolValue) and value.symbol.label in labels and value.symbol.id != source.id:
            out.reference(path, source, "REFERENCES", ref.raw, ref.line, Target(value.symbol.id, value.symbol.label))

    def external_name(self, path: str, scope: int | None, raw: str) -> str | None:
        """The library name ``raw`` stands for there (``django.urls.path``), if it leaves the
        repository."""
        value = self._resolve_dotted(path, scope, raw)
        return value.name if isinstance(value, External) else None

    def scope_target(self, path: str, scope: int | None) -> Target:
        """The definition code in ``scope`` belongs to, or the file."""
        return Target(self.file_ids[path], "File") if scope is None else self.symbol_target(path, scope)

    def test_holding(self, path: str, line: int) -> str | None:
        """The id of the test whose body holds ``line`` of ``path``, if any."""
        defs = self._file(path).parsed.definitions
        holding = [i for i, d in enumerate(defs) if d.start_line <= line <= d.end_line]
        scope = max(holding, key=lambda i: defs[i].start_line, default=None)
        while scope is not None:
            symbol = self.symbols[(path, scope)]
            if symbol.is_test:
                return symbol.id
            scope = defs[scope].parent
        return None

    def is_test_scope(self, path: str, scope: int | None) -> bool:
        return scope is not None and self.symbols[(path, scope)].is_test

    def symbol_target(self, path: str, index: int) -> Target:
        symbol = self.symbols[(path, index)]
        return Target(symbol.id, symbol.label)

    def _emit_tested_by(self, out: SubgraphEmitter, f: ParsedSource, scope: int, call: Edge) -> None:
        """A test's call of a symbol that is no test: the symbol is ``TESTED_BY`` the test."""
        test = self.symbols[(f.path, scope)]
        target = self._by_id.get(call.dst)
        if test.is_test and target is not None and not target.is_test:
            out.tested_by(f.path, Target(target.id, target.label), Target(test.id, test.label), call.raw, call.line)

    # Symbols by node id, filled once every file is indexed.
    _by_id: dict[str, ResolvedSymbol]

    def _definer(self, symbol: ResolvedSymbol) -> Target | None:
        """Who defines ``symbol`` when that is not its lexical parent (None: the parent)."""
        return None

    def build(self, paths: set[str] | None = None) -> list[FileSubgraph]:
        """Nodes and owned edges for every file (or only those of ``paths``); what each
        file's resolution read goes to ``file_reads``."""
        files = self.files if paths is None else [f for f in self.files if f.path in paths]
        by_path: dict[str, FileSubgraph] = {}
        parts = split_work(files, self._emit_files, _FORK_MIN_FILES, _pack_emitted, _unpack_emitted)
        for subgraphs, file_reads in parts:
            by_path.update((s.path, s) for s in subgraphs)
            self.file_reads.update(file_reads)
        return [by_path[f.path] for f in files]

    def scan(self, read: Callable[[Resolver, ParsedSource], T], paths: set[str] | None = None) -> dict[str, T]:
        """``read(self, f)`` of every file (or of those in ``paths``), what each one read joined
        to the file's reads: what is kept with a file's resolution is stale when they change."""
        out: dict[str, T] = {}
        for f in self.files:
            if paths is None or f.path in paths:
                out[f.path], reads = self._logged(read, self, f)
                if self.reads is not None:
                    self.file_reads[f.path] = self.file_reads.get(f.path, set()) | reads
        return out

    def _emit_files(self, files: list[ParsedSource]) -> _Emitted:
        """The files' subgraphs and what each one's resolution read (nothing when untracked)."""
        emitter = SubgraphEmitter(self.repo, self.branch, files)
        file_reads = {}
        for f in files:
            _, reads = self._logged(self._emit_file, f, emitter)
            if self.reads is not None:
                file_reads[f.path] = self._file_dependencies(f, reads)
        return emitter.subgraphs(), file_reads

    def _emit_file(self, f: ParsedSource, emitter: SubgraphEmitter) -> None:
        file_id = self.file_ids[f.path]
        emitter.file(f, file_id, self._module_qualname(f.path))
        symbols = [self.symbols[(f.path, index)] for index in range(len(f.parsed.definitions))]
        nodes = [SymbolNode(s.id, s.label, s.qualname, s.is_test, self._definer(s)) for s in symbols]
        emitter.definitions(f, nodes, file_id)
        self._emit_references(f, emitter, Target(file_id, "File"))

    def facts(self) -> dict[str, list[str]]:
        """Per file, what it tells other files' resolution besides its own tables
        (``ingest.incremental.fact``): the member names it adds (a name appearing or vanishing
        changes what a call on an unknown receiver may reach), the project files' fingerprint
        when the language reads them, and what the language declares besides."""
        facts = {
            path: {fact(stored_key((MEMBER_NAME, n)), "") for n in names} for path, names in self._names_of.items()
        }
        if self.READS_PROJECT_FILES:
            project = fact(stored_key(PROJECT), self.project_print)
            for f in self.files:
                facts.setdefault(f.path, set()).add(project)
        for path, more in self._declared_facts().items():
            facts.setdefault(path, set()).update(more)
        return {path: sorted(found) for path, found in facts.items()}

    def _declared_facts(self) -> dict[str, set[str]]:
        """A language's own facts, per file (a class's subclasses, the interfaces declared)."""
        return {}

    def changed_keys(self, changed: set[str], added_or_deleted: set[str]) -> set[ReadKey]:
        """The tagged read keys that files changing (or appearing, or vanishing) touch."""
        return set()

    def _file_dependencies(self, f: ParsedSource, reads: set[ReadKey]) -> set[ReadKey]:
        """Everything a file's subgraph depends on, given what resolving it read."""
        return reads | ({f.path, PROJECT} if self.READS_PROJECT_FILES else {f.path})
