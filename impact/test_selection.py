"""Which tests to run for a change, from static evidence only.

A walk up from the changed symbols through whatever may run them (``cypher/tests_walk_step``:
callers and subclasses — a test's pytest fixtures among its callees —, TESTED_BY, the method an
override overrides, the callers of a library base's methods, the tests a set-up method or an
autouse fixture runs before, dangling calls by the same bare name, the function a nested
function lives in, the class of a method the language calls by itself — but for the ``__call__``
of a class an in-repo subclass of a library class holds, the callers of the library's methods),
to any depth;
every test it reaches is selected, with the path that reached it. A changed symbol from which
the walk reaches no test falls back to the test files named after its module
(``tests/test_config.py`` for ``config.py``), else to the test files that import its file
directly or through other files.

Measured against what the tests really execute (coverage.py dynamic contexts,
``bench/impact_tests.py``), tuned on pluggy and flask only; see the README for the figures
and for the held-out projects.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from branchgraph.core.languages import language_for_path
from branchgraph.graph.protocols import GraphReader

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
    "__and__ __reduce__ __copy__ __deepcopy__"
).split()
# Set-up methods a test framework runs before each test of their class (unittest, django,
# pytest's xunit style): what they call runs for every one of those tests.
SETUP_METHODS = (
    "setUp asyncSetUp setUpClass setUpTestData tearDown asyncTearDown tearDownClass "
    "setup_method setup_class teardown_method teardown_class"
).split()
# The walk stops growing past this many symbols: a change to a core function of a large
# repository reaches most of it, and following it to the end costs seconds (django's
# `reverse` reaches 20,000). What it found stays selected, the fallback's tests are added,
# and the answer is marked inexact.
MAX_WALK = 5_000
# Rows one step may return (one per symbol it reaches).
STEP_ROWS = 100_000

EVIDENCE_CALLS = "calls"  # reached by the walk
EVIDENCE_MODULE_NAME = "module name"  # a test file named after the changed symbol's module
EVIDENCE_IMPORTS = "imports"  # a test file importing the changed symbol's file


@dataclass(frozen=True, slots=True)
class SelectedTest:
    qualname: str
    path: str
    start_line: int | None
    end_line: int | None
    depth: int  # hops of the walk (0 for a fallback)
    via: list[str]  # from the test down to the changed symbol (a fallback: the test, the changed symbol)
    evidence: str

    @property
    def pytest_id(self) -> str:
        """``path::Class::test``, what `pytest` takes on its command line."""
        spec = language_for_path(self.path)
        module = spec.conventions.module_name(self.path) if spec else ""
        q = self.qualname
        local = q[len(module) + 1 :] if module and q.startswith(module + ".") else q
        return "::".join([self.path, *local.split(".")])


@dataclass(frozen=True, slots=True)
class Selection:
    tests: list[SelectedTest]
    complete: bool  # False: the walk hit MAX_WALK


def select_tests(
    graph: GraphReader, repo: str, branch: str, start: dict[str, str], paths: dict[str, str], state: str | None = None
) -> Selection:
    """The tests to run when the symbols ``start`` (id -> qualname, ``paths`` id -> file) change.
    ``state`` names the indexed state of the branch (its commit and when it was indexed): what
    the fallback reads of the whole branch is kept for the next change asked about in that state."""
    # Every symbol reached carries the changed symbols it was reached from, so one walk
    # serves a whole diff and each changed symbol still learns whether it reached a test.
    origins: dict[str, set[str]] = {node_id: {node_id} for node_id in start}
    via: dict[str, list[str]] = {node_id: [qualname] for node_id, qualname in start.items()}
    depth: dict[str, int] = dict.fromkeys(start, 0)
    rows_of: dict[str, dict[str, Any]] = {}
    frontier = set(start)
    complete = True
    while frontier:
        if len(origins) > MAX_WALK:
            complete = False
            break
        (step,) = graph.named_query(
            "tests_walk_step",
            {
                "repo": repo,
                "branch": branch,
                "ids": sorted(frontier),
                "implicit": IMPLICIT_METHODS,
                "setups": SETUP_METHODS,
                "rows": STEP_ROWS,
            },
        )
        rows = step["reached"]
        if len(rows) >= STEP_ROWS:
            complete = False  # the step was cut at the row limit: what it found still counts
        frontier = set()
        for row in sorted(rows, key=lambda r: (r["qualname"] or "", r["id"])):
            node = row["id"]
            targets = sorted(row["targets"])
            gained = set().union(*(origins[t] for t in targets)) - origins.get(node, set())
            if not gained:
                continue
            if node not in origins:
                origins[node] = set()
                via[node] = [row["qualname"] or row["path"], *via[targets[0]]]
                depth[node] = depth[targets[0]] + 1
                rows_of[node] = row
            origins[node] |= gained
            if row["kind"] != "File":  # a module-level use runs when the module is imported
                frontier.add(node)
    chosen: dict[str, SelectedTest] = {}
    tested: set[str] = set()
    for node, row in sorted(rows_of.items(), key=lambda item: (depth[item[0]], item[1]["qualname"] or "")):
        if not _is_test(row):
            continue
        tested |= origins[node]
        if row["qualname"] not in chosen:
            chosen[row["qualname"]] = SelectedTest(
                row["qualname"], row["path"], row["start_line"], row["end_line"], depth[node], via[node], EVIDENCE_CALLS
            )
    # A change no test reaches, or one too central to follow to the end (its walk reached
    # MAX_WALK symbols: most of the repository runs it), gets the fallback's tests as well.
    fallback = start if not complete else {node_id: q for node_id, q in start.items() if node_id not in tested}
    if fallback:
        files = {fallback[node_id]: paths[node_id] for node_id in sorted(fallback) if node_id in paths}
        for test in _fallback(_test_files(graph, repo, branch, state), files):
            chosen.setdefault(test.qualname, test)
    return Selection(sorted(chosen.values(), key=lambda t: (t.depth, t.qualname)), complete)


def _is_test(row: dict[str, Any]) -> bool:
    return bool(row["is_test"]) and row["kind"] in ("Function", "Method") and (row["name"] or "").startswith("test")


@dataclass(frozen=True, slots=True)
class _TestFiles:
    """What the fallback needs of a branch: the tests of each test file, and what each file imports."""

    tests_of: dict[str, list[dict[str, Any]]]
    closure: _ImportClosure


# The test files of the branches asked about lately, by (repo, branch, indexed state): reading
# them is most of an answer's time on a large repository (django: 2,900 files), and they do
# not change until the branch is indexed again.
_TEST_FILES: OrderedDict[tuple[str, str, str], _TestFiles] = OrderedDict()
_TEST_FILES_KEPT = 8
_TEST_FILES_LOCK = threading.Lock()


def _test_files(graph: GraphReader, repo: str, branch: str, state: str | None) -> _TestFiles:
    key = (repo, branch, state) if state is not None else None
    if key is not None:
        with _TEST_FILES_LOCK:
            known = _TEST_FILES.get(key)
            if known is not None:
                _TEST_FILES.move_to_end(key)
                return known
    files = graph.named_query("test_files_imports", {"repo": repo, "branch": branch}, limit=1_000_000)
    imports = {f["path"]: set(f["imports"]) for f in files}
    tests_of = {f["path"]: [t for t in f["tests"] if t] for f in files if any(f["tests"])}
    found = _TestFiles(tests_of, _ImportClosure(imports))
    if key is not None:
        with _TEST_FILES_LOCK:
            _TEST_FILES[key] = found
            while len(_TEST_FILES) > _TEST_FILES_KEPT:
                _TEST_FILES.popitem(last=False)
    return found


def _fallback(test_files: _TestFiles, untested: dict[str, str]) -> Iterable[SelectedTest]:
    """For each changed symbol no walk reached a test from (qualname -> its file): the tests of
    the test files named after its module, else of the test files that import its file."""
    tests_of = test_files.tests_of
    for qualname, path in sorted(untested.items()):
        named = [t for t in tests_of if _named_after(t, path)]
        evidence = EVIDENCE_MODULE_NAME
        if not named:
            named = [t for t in tests_of if path in test_files.closure.of(t)]
            evidence = EVIDENCE_IMPORTS
        for test_file in sorted(named):
            for t in tests_of[test_file]:
                yield SelectedTest(
                    t["qualname"], test_file, t["start_line"], t["end_line"], 0, [t["qualname"], qualname], evidence
                )


def _named_after(test_file: str, path: str) -> bool:
    """``tests/test_config.py`` (or ``config_test.py``) is named after ``flask/config.py``; a
    package's ``__init__.py`` goes by the package's name."""
    source = PurePosixPath(path)
    module = (source.parent.name if source.stem == "__init__" else source.stem).lstrip("_")
    stem = PurePosixPath(test_file).stem.replace("test_", "").replace("_test", "")
    return bool(module) and module in stem


class _ImportClosure:
    """The files a file imports, directly or through the files it imports (memoised; shared by
    the threads of a server, where two computing one closure at once compute the same set)."""

    def __init__(self, imports: dict[str, set[str]]):
        self.imports = imports
        self._memo: dict[str, set[str]] = {}

    def of(self, path: str) -> set[str]:
        if path not in self._memo:
            seen, pending = {path}, deque([path])
            while pending:
                for imported in self.imports.get(pending.popleft(), ()):
                    if imported not in seen:
                        seen.add(imported)
                        pending.append(imported)
            self._memo[path] = seen
        return self._memo[path]
