"""Which tests to run for a change, from static evidence only.

A walk up from the changed symbols through whatever may run them (``cypher/tests_walk_step``:
callers, subclasses and holders — REFERENCES from a test or a class body: a callback a test
hands on, a table of formatters; a test's pytest fixtures among its callees —, TESTED_BY, the
method an override overrides, the callers of a library base's methods, the tests a set-up
method or an autouse fixture runs before, the closures a factory makes of a function a module
hands it (``stdout = cached(get_stdout)``), the tests of a test file whose top-level code calls
them, dangling calls by the same bare name, the function a nested function or class lives in,
the class of a method the language calls by itself — but for the ``__call__`` of a class
another in-repo subclass of a library class holds, the callers of the library's methods), to
any depth;
every test it reaches is selected, with the path that reached it — but a test reached only
through an override (``IntRange.convert`` from the ``ParamType.convert`` it overrides) only when
it may make an instance of the override's class (``_instance_makers``; a walk cut short keeps
every test it reached). A changed symbol from which the walk reaches no test falls back to the
test files named after its module (``tests/test_config.py`` for ``config.py``), else to the test
files that import its file directly or through other files.

Measured against what the tests really execute (coverage.py dynamic contexts,
``bench/impact_tests.py``), tuned on pluggy, flask, click and marshmallow; see the README for
the figures and for the held-out projects.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections import deque
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from branchgraph.core.languages import language_for_path
from branchgraph.graph.protocols import GraphReader
from branchgraph.impact.run_commands import selector
from branchgraph.impact.state_memo import StateMemo, per_node

# Methods Python runs without a call by their name: when the class is constructed, called,
# iterated, compared, printed, used as a context manager or a descriptor, ... Such a method
# runs whenever its class is used, so the walk goes on from the class. (`__call__` has a rule of
# its own in tests_walk_step: an instance a library holds is called by the library.)
IMPLICIT_METHODS = (
    "__init__ __new__ __post_init__ __init_subclass__ __getattr__ __getattribute__ __setattr__ "
    "__delattr__ __enter__ __exit__ __aenter__ __aexit__ __iter__ __next__ __aiter__ __anext__ __len__ "
    "__getitem__ __setitem__ __delitem__ __contains__ __eq__ __ne__ __lt__ __le__ __gt__ __ge__ __hash__ "
    "__bool__ __repr__ __str__ __format__ __get__ __set__ __set_name__ __del__ __await__ __missing__ "
    "__class_getitem__ __fspath__ __index__ __int__ __float__ __add__ __sub__ __mul__ __truediv__ __or__ "
    "__and__ __reduce__ __copy__ __deepcopy__ __getstate__ __setstate__ __reduce_ex__ __getnewargs__ "
    "__getnewargs_ex__ __replace__ __dir__ __sizeof__ __reversed__ __length_hint__ __bytes__ __complex__ "
    "__round__ __trunc__ __floor__ __ceil__ __neg__ __pos__ __abs__ __invert__ __floordiv__ __mod__ "
    "__divmod__ __pow__ __matmul__ __lshift__ __rshift__ __xor__ __radd__ __rsub__ __rmul__ __rtruediv__ "
    "__rfloordiv__ __rmod__ __rpow__ __rmatmul__ __ror__ __rand__ __rxor__ __iadd__ __isub__ __imul__ "
    "__itruediv__ __ifloordiv__ __imod__ __ipow__ __ior__ __iand__ __ixor__ __instancecheck__ "
    "__subclasscheck__ __prepare__"
).split()
# Set-up methods a test framework runs before each test of their class (unittest, django,
# pytest's xunit style): what they call runs for every one of those tests.
SETUP_METHODS = (
    "setUp asyncSetUp setUpClass setUpTestData tearDown asyncTearDown tearDownClass "
    "setup_method setup_class teardown_method teardown_class"
).split()
# Library bases that hold no code calling a subclass's methods: they declare types or
# abstractness. A subclass's overrides do not run where their members are used.
INERT_BASES = "typing.Generic typing.Protocol typing_extensions.Generic typing_extensions.Protocol abc.ABC".split()
# The walk stops growing past this many symbols: a change to a core function of a large
# repository reaches most of it, and following it to the end costs seconds (django's
# `reverse` reaches 20,000). A step returns no more than the walk has room for (the first by
# id of what its frontier's first chunks reach: the same answer every time); what was found
# stays selected, the fallback's tests are added, and the answer is marked inexact.
MAX_WALK = 5_000
# A walk step (a read that waits on the server) from this many symbols is read in this many parts at once.
_SPLIT_FROM = 32
_STEP_PARTS = 2

EVIDENCE_CALLS = "calls"  # reached by the walk
EVIDENCE_MODULE_NAME = "module name"  # a test file named after the changed symbol's module
EVIDENCE_IMPORTS = "imports"  # a test file importing the changed symbol's file
EVIDENCE_COVERAGE = "coverage"  # an imported coverage run saw it execute the changed symbol
EVIDENCE_CHANGED = "changed"  # the test itself changed


@dataclass(frozen=True, slots=True)
class TestToRun:
    qualname: str
    path: str
    start_line: int | None
    end_line: int | None
    depth: int  # hops of the walk (0 for a fallback)
    via: list[str]  # from the test down to the changed symbol (a fallback: the test, the changed symbol)
    pytest_id: str | None  # path::Class::test, what `pytest` takes on its command line (Python tests)
    # "changed" (the test itself), "coverage" (a run executed it), "calls" (the walk reached it),
    # "module name" or "imports" (the fallback)
    evidence: str
    runner: str = "pytest"  # pytest, junit, go or js (jest, vitest): impact/run_commands.py
    selector: str = ""  # the test as its runner names it (a pytest id, `Class#method`, `TestX`, a full title)


def _test_to_run(
    qualname: str, path: str, start_line: int | None, end_line: int | None, depth: int, via: list[str], evidence: str
) -> TestToRun:
    runner, name = selector(path, qualname, _module_name(path))
    pytest_id = name if runner == "pytest" else None
    return TestToRun(qualname, path, start_line, end_line, depth, via, pytest_id, evidence, runner, name)


@functools.lru_cache(maxsize=65_536)
def _module_name(path: str) -> str:
    """The module a test file is (a central change selects thousands of tests in a few files)."""
    spec = language_for_path(path)
    return spec.conventions.module_name(path) if spec else ""


@dataclass(frozen=True, slots=True)
class Selection:
    tests: list[TestToRun]
    complete: bool  # False: the walk hit MAX_WALK


def select_tests(
    graph: GraphReader,
    repo: str,
    branch: str,
    rows: Mapping[str, dict[str, Any]],
    memo: StateMemo | None = None,
) -> Selection:
    """The tests to run when the symbols of ``rows`` change (id -> qualname, kind, path, span,
    is_test); ``memo``: what was read of this indexed state of the branch before
    (``state_memo.py``)."""
    memo = memo or StateMemo()
    start = {node: row["qualname"] for node, row in rows.items()}
    walk = _walk(graph, repo, branch, {node_id: frozenset((node_id,)) for node_id in start}, memo)
    origins, parent, depth, rows_of = walk.origins, walk.parent, walk.depth, walk.rows
    complete = walk.complete

    def via(node: str) -> list[str]:
        path = []
        while node in parent:
            path.append(rows_of[node]["qualname"] or rows_of[node]["path"])
            node = parent[node]
        return [*path, start[node]]

    chosen: dict[str, TestToRun] = {}
    tested: set[str] = set()
    # A changed test is run itself, whatever calls it, and it tests the changes the walk reached
    # it from (a test changed beside the function it calls: no fallback for that function).
    for node, row in sorted(rows.items()):
        if _is_test(row):
            tested |= origins[node]
            chosen[row["qualname"]] = _test_to_run(
                row["qualname"], row["path"], row["start_line"], row["end_line"], 0, [row["qualname"]], EVIDENCE_CHANGED
            )
    tests = [(node, row) for node, row in rows_of.items() if _is_test(row)]
    # A cut walk's answer is inexact and widened by the fallback's tests anyway: no test is
    # filtered out of it, which spares a walk per class (on django each is cut too, after
    # hundreds of milliseconds, and filters nothing).
    if complete:
        needing: dict[str, set[str]] = {}  # class -> the tests kept only if they make an instance of it
        for node, _ in tests:
            for cls in walk.conds[node] or ():
                needing.setdefault(cls, set()).add(node)
        makers = _instance_makers(graph, repo, branch, needing, memo)
        tests = [(node, row) for node, row in tests if _makes_instance(walk.conds[node], node, makers)]
    for node, row in sorted(tests, key=lambda item: (depth[item[0]], item[1]["qualname"] or "")):
        tested |= origins[node]
        if row["qualname"] not in chosen:
            chosen[row["qualname"]] = _test_to_run(
                row["qualname"], row["path"], row["start_line"], row["end_line"], depth[node], via(node), EVIDENCE_CALLS
            )
    _add_covered(chosen, graph, start, memo)
    # A change no test reaches, or one too central to follow to the end (its walk reached
    # MAX_WALK symbols: most of the repository runs it), gets the fallback's tests as well.
    fallback = start if not complete else {node_id: q for node_id, q in start.items() if node_id not in tested}
    if fallback:
        files = {fallback[node_id]: rows[node_id]["path"] for node_id in sorted(fallback)}
        _add_fallback(chosen, _branch_test_files(graph, repo, branch, memo), files)
    return Selection(sorted(chosen.values(), key=lambda t: (t.depth, t.qualname)), complete)


@dataclass(slots=True)
class _Walk:
    """What a walk up from some symbols reached: per symbol, the start symbols it was reached
    from, the symbol it was first reached from (its `via`), its hops and row; and ``conds``: None
    where anything reaching it runs it, else the classes one of whose instances must be made for
    it to run the start (it was reached only through overrides of those classes' methods)."""

    origins: dict[str, frozenset[str]]
    parent: dict[str, str]
    depth: dict[str, int]
    rows: dict[str, dict[str, Any]]
    conds: dict[str, frozenset[str] | None]
    complete: bool  # False: the walk hit MAX_WALK
    reached_all: bool = False  # it stopped early, having reached every symbol it was to look for


def _walk(
    graph: GraphReader,
    repo: str,
    branch: str,
    start: dict[str, frozenset[str]],
    memo: StateMemo,
    looking_for: set[str] | None = None,
) -> _Walk:
    """The walk up from ``start`` (id -> the start symbols it stands for); given ``looking_for``,
    it stops as soon as it has reached all of those symbols."""
    # Every symbol reached carries the start symbols it was reached from, so one walk serves a
    # whole diff and each changed symbol still learns whether it reached a test. (Frozen sets:
    # most symbols share their one target's, and a central change reaches thousands.)
    walk = _Walk(dict(start), {}, dict.fromkeys(start, 0), {}, dict.fromkeys(start), True)
    origins, conds = walk.origins, walk.conds
    frontier = set(start)
    while frontier:
        if looking_for is not None and looking_for <= origins.keys():
            walk.reached_all = True
            break
        if len(origins) > MAX_WALK:
            walk.complete = False
            break
        rows, cut = _step(graph, repo, branch, frontier, memo, MAX_WALK + 1 - len(origins))
        frontier = set()
        for row, reached_from in rows:
            node = row["id"]
            first = reached_from[0][0]
            reaching = (
                origins[first] if len(reached_from) == 1 else frozenset().union(*(origins[t] for t, _ in reached_from))
            )
            cond = _merged(*(_through(conds[t], c) for t, c in reached_from))
            if node not in origins:
                origins[node], conds[node] = reaching, cond
                walk.parent[node] = first
                walk.depth[node] = walk.depth[first] + 1
                walk.rows[node] = row
            else:
                had, had_cond = origins[node], conds[node]
                cond = _merged(had_cond, cond)
                if reaching <= had and cond == had_cond:
                    continue
                origins[node], conds[node] = had | reaching, cond
            if row["kind"] != "File":  # a module-level use runs when the module is imported
                frontier.add(node)
        if cut:  # the walk is full: what it found still counts
            walk.complete = False
            break
    return walk


def _through(cond: frozenset[str] | None, override_of: str | None) -> frozenset[str] | None:
    """The condition of a symbol reached from one with ``cond``, through an override of a method
    of the class ``override_of`` (None: a hop anything takes). A path through two overrides
    keeps the first's class: the instance the changed method needs is the one that matters."""
    if override_of is None or cond is not None:
        return cond
    return frozenset((override_of,))


def _merged(*conds: frozenset[str] | None) -> frozenset[str] | None:
    """Reached along several paths, a symbol runs the start when any of them holds."""
    if any(cond is None for cond in conds):
        return None
    return frozenset().union(*conds)  # type: ignore[arg-type]


def _makes_instance(cond: frozenset[str] | None, test: str, makers: dict[str, set[str] | None]) -> bool:
    """Whether a test reached with ``cond`` runs the start: it makes an instance of one of the
    classes (or nobody can tell where their instances come from: ``makers`` None)."""
    if cond is None:
        return True
    return any((tests := makers.get(c)) is None or test in tests for c in cond)


def _instance_makers(
    graph: GraphReader, repo: str, branch: str, needing: dict[str, set[str]], memo: StateMemo
) -> dict[str, set[str] | None]:
    """Per class of ``needing`` (class -> the tests that run the change only with an instance of
    it), the tests that may make an instance of it or of an in-repo subclass: those the walk up
    from the class and from the functions that name it as a value reaches (a test constructs
    it, calls a factory handed it, defines a subclass, uses a fixture that makes one), and the
    tests of the test files importing a module that makes one or keeps the class at import
    (`INT = IntParamType()`, a list of cases). None for a class whose instances may come from
    anywhere — one no test is seen to make (a factory the graph does not see), one a test helper
    no test file is seen to import makes, or one whose walk is too large to follow — and for one
    every test needing it is seen to make (its walk stops there: more would change nothing)."""
    if not needing:
        return {}

    def fetch(ids: list[str]) -> tuple[dict[str, list[dict[str, Any]]], bool]:
        found: dict[str, list[dict[str, Any]]] = {node: [] for node in ids}
        for row in graph.named_query("instance_sites", {"ids": ids}, limit=1_000_000):
            found[row["id"]].append(row)
        return found, True

    sites, _ = per_node(memo, "instance_sites", sorted(needing), fetch)
    makers: dict[str, set[str] | None] = {}
    for cls in sorted(needing):
        rows = sites.get(cls, [])
        named = [site for row in rows for site in row["sites"]]
        if not rows:
            makers[cls] = None
            continue
        # One walk a class: a class made everywhere fills its walk, and must not stop another's.
        start = {node: frozenset((cls,)) for row in rows for node in row["classes"]}
        start.update((site["id"], frozenset((cls,))) for site in named if site["kind"] != "File")
        tests = {site["id"] for site in named if site["is_test"]}
        walk = _walk(graph, repo, branch, start, memo, looking_for=needing[cls] - tests)
        if walk.reached_all:
            makers[cls] = None
            continue
        tests.update(node for node, row in walk.rows.items() if _is_test(row))
        # What a module makes at import (the class, or something made from it), the tests of
        # the test files importing it may use; a test helper no test file is seen to import (a
        # test app its tests put on the path) may reach any test, an example nobody imports none.
        modules = {site["path"] for site in named if site["kind"] == "File"}
        modules.update(row["path"] for row in walk.rows.values() if row["kind"] == "File")
        imported = True
        if modules:
            test_files = _branch_test_files(graph, repo, branch, memo)
            for module in sorted(modules):
                # Set intersection, not a scan of every test file: a walk reaches many modules.
                importing = test_files.importers.of(module) & test_files.tests_of.keys()
                imported = imported and (bool(importing) or not test_files.beside_tests(module))
                tests.update(t["id"] for path in importing for t in test_files.tests_of[path])
        makers[cls] = tests if tests and imported and walk.complete else None
    return makers


def _add_covered(chosen: dict[str, TestToRun], graph: GraphReader, start: dict[str, str], memo: StateMemo) -> None:
    """The tests an imported coverage run saw execute a changed symbol, marked as such (the walk
    reaches them too, through their TESTED_BY edges, unless it was cut first)."""

    def fetch(ids: list[str]) -> tuple[dict[str, list[dict[str, Any]]], bool]:
        found: dict[str, list[dict[str, Any]]] = {node: [] for node in ids}
        for row in graph.named_query("coverage_tests", {"ids": ids}, limit=10_000_000):
            found[row.pop("target")].append(row)
        return found, True

    covered, _ = per_node(memo, "coverage_tests", start, fetch)
    for node in sorted(covered):
        for row in covered[node]:
            known = chosen.get(row["qualname"])
            if known is not None and known.evidence == EVIDENCE_CHANGED:
                continue
            chosen[row["qualname"]] = (
                dataclasses.replace(known, evidence=EVIDENCE_COVERAGE)
                if known is not None
                else _test_to_run(
                    row["qualname"], row["path"], row["start_line"], row["end_line"], 1, [row["qualname"], start[node]],
                    EVIDENCE_COVERAGE,
                )
            )  # fmt: skip


def _is_test(row: dict[str, Any]) -> bool:
    """A test a runner runs: a function or method its language calls a test (`test_*` in
    Python, JUnit's `@Test`, Go's `TestX`, a jest `it(...)`), never a test class."""
    return bool(row["is_test"]) and row["kind"] in ("Function", "Method")


def _step(
    graph: GraphReader, repo: str, branch: str, frontier: set[str], memo: StateMemo, room: int
) -> tuple[list[tuple[dict[str, Any], list[tuple[str, str | None]]]], bool]:
    """What runs the symbols of ``frontier``: each symbol reached, with the frontier ids it was
    reached from (sorted; each with the class whose override the hop went through, or None), in
    a stable order; and whether the step was cut at ``room`` symbols."""

    def fetch(ids: list[str]) -> tuple[dict[str, list[tuple[dict[str, Any], str | None]]], bool]:
        # A read cut at the walk's room is not what these nodes reach, so it is not kept per
        # node; the walk that reads it stops there, and the same walk asked again reads the
        # same cut: kept as it is.
        cut_key = f"tests_walk_step {room} " + hashlib.sha1(" ".join(ids).encode()).hexdigest()
        kept = memo.get(cut_key)
        if kept is not None:
            return kept

        def read(part: list[str]) -> list[dict[str, Any]]:
            (step,) = graph.named_query(
                "tests_walk_step",
                {
                    "repo": repo,
                    "branch": branch,
                    "ids": part,
                    "implicit": IMPLICIT_METHODS,
                    "setups": SETUP_METHODS,
                    "inert_bases": INERT_BASES,
                    "rows": room,
                },
            )
            return step["reached"]

        def read_parts(chunk: list[str]) -> list[list[dict[str, Any]]]:
            # A wide step is read in parts side by side: the server answers each on a core of its own.
            parts = [chunk[i::_STEP_PARTS] for i in range(_STEP_PARTS)] if len(chunk) >= _SPLIT_FROM else [chunk]
            with ThreadPoolExecutor(max_workers=len(parts)) as pool:
                return list(pool.map(read, parts))

        # A frontier wider than the walk's room reaches more than it (a symbol is reached from about
        # one frontier symbol or more): it is read a chunk at a time, and once what was read overfills
        # the room the rest is not, since the walk stops there. (Read whole, django's widest step
        # cost the server a second, to keep a tenth of it.)
        reads: list[list[dict[str, Any]]] = []
        reached_ids: set[str] = set()
        for first in range(0, len(ids), room):
            chunk_reads = read_parts(ids[first : first + room])
            reads += chunk_reads
            reached_ids.update(entry["id"] for part in chunk_reads for entry in part)
            if len(reached_ids) > room:
                break
        found: dict[str, list[tuple[dict[str, Any], str | None]]] = {node: [] for node in ids}
        for part in reads:
            for entry in part:
                # Without its lists of targets an entry holds only strings and numbers, and the
                # garbage collector stops tracking it: kept, it is not scanned again and again.
                for target in entry.pop("targets"):
                    found[target].append((entry, None))
                for target, override_of in entry.pop("through"):
                    found[target].append((entry, override_of))
        if len(reached_ids) > room or any(len(part) >= room for part in reads):
            memo.put(cut_key, (found, False), entries=sum(len(part) for part in reads))
            return found, False
        return found, True

    reached, complete = per_node(memo, "tests_walk_step", frontier, fetch)
    rows: dict[str, tuple[dict[str, Any], list[tuple[str, str | None]]]] = {}
    for node in sorted(reached):
        for entry, override_of in reached[node]:
            if entry["id"] in rows:
                rows[entry["id"]][1].append((node, override_of))
            else:
                rows[entry["id"]] = (entry, [(node, override_of)])
    if len(rows) > room:  # kept entries beside a read: the same first ones by id as one read gives
        rows = {node: rows[node] for node in sorted(rows)[:room]}
        complete = False
    return sorted(rows.values(), key=lambda r: (r[0]["qualname"] or "", r[0]["id"])), not complete


def read_test_files_ahead(graph: GraphReader, repo: str, branch: str, memo: StateMemo) -> None:
    """Start reading what the fallback needs while the change is still being worked out: one
    read of every test file, a third of a first answer on django when it waits its turn."""
    memo.read_ahead(_TEST_FILES, lambda: _test_files(graph, repo, branch))


_TEST_FILES = "test_files"


@dataclass(frozen=True, slots=True)
class _TestFiles:
    """What the fallback needs of a branch: the tests of each test file, and what each file imports."""

    tests_of: dict[str, list[dict[str, Any]]]
    importers: _Importers
    names: dict[str, str]  # test file -> what it is named after (``_test_file_name``)
    test_folders: frozenset[str]  # the folders (below the root) holding test files

    def beside_tests(self, path: str) -> bool:
        """Whether a file lives in a folder that holds test files: a test helper or a test app,
        which tests may load without an import the graph sees."""
        return any(path.startswith(folder + "/") for folder in self.test_folders)


def _branch_test_files(graph: GraphReader, repo: str, branch: str, memo: StateMemo) -> _TestFiles:
    """The branch's test files, read once per indexed state (or waited for, when read ahead)."""
    return memo.value(_TEST_FILES, lambda: _test_files(graph, repo, branch))


def _test_files(graph: GraphReader, repo: str, branch: str) -> _TestFiles:
    files = graph.named_query("test_files_imports", {"repo": repo, "branch": branch}, limit=1_000_000)
    imports = {f["path"]: set(f["imports"]) for f in files}
    tests_of = {f["path"]: [t for t in f["tests"] if t] for f in files if any(f["tests"])}
    folders = frozenset(folder for folder in (str(PurePosixPath(path).parent) for path in tests_of) if folder != ".")
    return _TestFiles(tests_of, _Importers(imports), {path: _test_file_name(path) for path in tests_of}, folders)


def _add_fallback(chosen: dict[str, TestToRun], test_files: _TestFiles, untested: dict[str, str]) -> None:
    """For each changed symbol no walk reached a test from (qualname -> its file): the tests of
    the test files named after its module, else of the test files that import its file (those
    not chosen already)."""
    tests_of = test_files.tests_of
    for qualname, path in sorted(untested.items()):
        module = _module_stem(path)
        named = [t for t, name in test_files.names.items() if module and module in name]
        evidence = EVIDENCE_MODULE_NAME
        if not named:
            importers = test_files.importers.of(path)
            named = [t for t in tests_of if t in importers]
            evidence = EVIDENCE_IMPORTS
        for test_file in sorted(named):
            for t in tests_of[test_file]:
                if t["qualname"] not in chosen:
                    chosen[t["qualname"]] = _test_to_run(
                        t["qualname"], test_file, t["start_line"], t["end_line"], 0, [t["qualname"], qualname], evidence
                    )


def _module_stem(path: str) -> str:
    """What a test file named after ``flask/config.py`` mentions (``config``); a package's
    ``__init__.py`` goes by the package's name."""
    source = PurePosixPath(path)
    return (source.parent.name if source.stem == "__init__" else source.stem).lstrip("_")


def _test_file_name(test_file: str) -> str:
    """``tests/test_config.py`` (or ``config_test.py``) is named after ``config``."""
    return PurePosixPath(test_file).stem.replace("test_", "").replace("_test", "")


class _Importers:
    """The files that import a file, directly or through the files they import — itself
    included (one walk back along the imports from the changed file, not one closure per test
    file; memoised and shared by the threads of a server, where two computing one set at once
    compute the same)."""

    def __init__(self, imports: dict[str, set[str]]):
        self.imported_by: dict[str, set[str]] = {}
        for path, imported in imports.items():
            for target in imported:
                self.imported_by.setdefault(target, set()).add(path)
        self._memo: dict[str, set[str]] = {}

    def of(self, path: str) -> set[str]:
        if path not in self._memo:
            seen, pending = {path}, deque([path])
            while pending:
                for importer in self.imported_by.get(pending.popleft(), ()):
                    if importer not in seen:
                        seen.add(importer)
                        pending.append(importer)
            self._memo[path] = seen
        return self._memo[path]
