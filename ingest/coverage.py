"""Coverage a user already has, as evidence of which tests run which code: a coverage.py JSON
report with contexts (``coverage json --show-contexts``, after a run with ``dynamic_context =
test_function`` or pytest-cov's ``--cov-context=test``) becomes ``TESTED_BY`` edges from each
function or method to the tests that executed its body, marked ``evidence: 'coverage'`` and
kept apart from the edges the static analysis derives.

A context names a test in one of two ways: coverage's own (``tests.test_config.TestEnv.test_x``,
a module and a qualname; hypothesis's ``test_config.accept.<locals>.test_x`` for a wrapped
test) or pytest-cov's (``tests/test_config.py::TestEnv::test_x[param]|run``). Either is matched
to the branch's test functions and methods by path and qualified name; a context that fits no
test (a test added since the index, an unindexed file) is counted and left out, never guessed.
A line belongs to the innermost function or method whose body holds it.
"""

from __future__ import annotations

import bisect
import json
import re
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from branchgraph.core.errors import CoverageReportError
from branchgraph.core.languages import language_for_path
from branchgraph.graph.protocols import GraphReader, GraphWriter, RowProgress

# pytest-cov's phases of a test (`path::test|run`), and a parametrized test's case id.
_PHASE = re.compile(r"\|(setup|run|teardown)$")
_CASE = re.compile(r"\[.*\]$")


@dataclass(frozen=True, slots=True)
class IndexedTest:
    id: str
    label: str
    qualname: str
    path: str


@dataclass(frozen=True, slots=True)
class FunctionSpan:
    id: str
    label: str
    start_line: int
    end_line: int


@dataclass(slots=True)
class CoverageEvidence:
    """What a report says about one branch: (symbol id, label, test id, label) -> lines of the
    symbol's body the test executed; and what could not be matched."""

    edges: dict[tuple[str, str, str, str], int] = field(default_factory=dict)
    contexts: int = 0
    contexts_matched: int = 0
    unmatched_contexts: list[str] = field(default_factory=list)
    files: int = 0
    files_matched: int = 0
    unmatched_files: list[str] = field(default_factory=list)


def read_report(path: Path) -> dict[str, dict[int, list[str]]]:
    """Per measured file (as the report names it), line -> the non-empty contexts that ran it."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise CoverageReportError(f"{path}: no such file") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CoverageReportError(
            f"{path} is not a JSON coverage report (`coverage json --show-contexts`): {exc}"
        ) from exc
    files = document.get("files") if isinstance(document, dict) else None
    if not isinstance(files, dict):
        raise CoverageReportError(f"{path} has no 'files': not a coverage.py JSON report (`coverage json`)")
    lines: dict[str, dict[int, list[str]]] = {}
    with_contexts = False
    for name, data in files.items():
        contexts = data.get("contexts") if isinstance(data, dict) else None
        if contexts is None:
            continue
        with_contexts = True
        try:
            named = {int(line): [str(c) for c in found if c] for line, found in contexts.items()}
        except (AttributeError, TypeError, ValueError) as exc:
            raise CoverageReportError(f"{path}: the contexts of {name} are not line -> contexts ({exc})") from exc
        lines[name] = {line: found for line, found in named.items() if found}
    if files and not with_contexts:
        raise CoverageReportError(
            f"{path} records no contexts: run the tests with `dynamic_context = test_function` in the "
            "coverage configuration (or pytest-cov's --cov-context=test), then `coverage json --show-contexts`"
        )
    return lines


class ContextNames:
    """The branch's tests by the names a coverage context gives them."""

    def __init__(self, tests: list[IndexedTest]):
        self.by_suffix: dict[str, list[IndexedTest]] = defaultdict(list)
        self.by_module_and_name: dict[tuple[str, str], list[IndexedTest]] = defaultdict(list)
        self.by_path: dict[str, list[IndexedTest]] = defaultdict(list)
        for test in tests:
            parts = test.qualname.split(".")
            for i in range(len(parts)):
                self.by_suffix[".".join(parts[i:])].append(test)
            self.by_path[test.path].append(test)
            for module in parts[:-1]:
                self.by_module_and_name[(module, parts[-1])].append(test)

    def of(self, context: str) -> list[IndexedTest]:
        context = _PHASE.sub("", context)
        if "::" in context:  # pytest-cov: path::Class::test[case]
            path, _, local = context.partition("::")
            spec = language_for_path(path)
            qualname = ".".join(
                filter(None, [spec.conventions.module_name(path) if spec else "", _CASE.sub("", local)])
            )
            return [t for t in self.by_path.get(path, []) if t.qualname == qualname.replace("::", ".")]
        if ".<locals>." in context:
            # A decorator's inner function ran the test (hypothesis's @given): the tests of that
            # module with that name — several when two classes share it, and the context is theirs.
            module, name = context.split(".<locals>.", 1)[0].rsplit(".", 1)[0], context.rsplit(".", 1)[-1]
            return list(self.by_module_and_name.get((module.rsplit(".", 1)[-1], name), []))
        # coverage names the module as Python imported it, which may hold more packages (or
        # fewer) than the indexed qualname: the longest dotted tail that names a test decides.
        parts = context.split(".")
        for i in range(len(parts) - 1):
            found = self.by_suffix.get(".".join(parts[i:]))
            if found:
                return list(found)
        return []


def repo_path(name: str, root: Path, indexed: set[str]) -> str | None:
    """An indexed file's path for a file the report names (relative to where the tests ran,
    or absolute)."""
    candidate = PurePosixPath(name.replace("\\", "/"))
    if candidate.is_absolute() and Path(name).resolve().is_relative_to(root.resolve()):
        candidate = PurePosixPath(Path(name).resolve().relative_to(root.resolve()).as_posix())
    text = str(candidate)
    if text in indexed:
        return text
    # Run from a subfolder, or from another checkout: the one indexed path it ends with.
    tails = [p for p in indexed if text.endswith("/" + p) or p.endswith("/" + text)]
    return tails[0] if len(tails) == 1 else None


class Spans:
    """The innermost function or method holding a line of a file."""

    def __init__(self, symbols: list[FunctionSpan]):
        self.symbols = sorted(symbols, key=lambda s: (s.start_line, -s.end_line))
        self.starts = [s.start_line for s in self.symbols]

    def at(self, line: int) -> FunctionSpan | None:
        # The last-starting span that holds the line is the innermost; its first line (the
        # `def`, run when the module is imported) is not its body.
        for i in range(bisect.bisect_left(self.starts, line) - 1, -1, -1):
            symbol = self.symbols[i]
            if symbol.start_line < line <= symbol.end_line:
                return symbol
        return None


def evidence_of(
    report: dict[str, dict[int, list[str]]],
    paths: dict[str, str | None],
    tests: list[IndexedTest],
    symbols_of: dict[str, list[FunctionSpan]],
) -> CoverageEvidence:
    """The edges a report's contexts and lines give, on a branch with these ``tests`` and, per
    indexed file, these non-test functions and methods (``paths``: each file the report names
    as ``repo_path`` places it)."""
    out = CoverageEvidence()
    names = ContextNames(tests)
    contexts: dict[str, list[IndexedTest]] = {}
    spans: dict[str, Spans] = {}
    for name, lines in sorted(report.items()):
        out.files += 1
        path = paths.get(name)
        if path is None:
            out.unmatched_files.append(name)
            continue
        out.files_matched += 1
        if path not in spans:
            spans[path] = Spans(symbols_of.get(path, []))
        for line, found in lines.items():
            symbol = spans[path].at(line)
            if symbol is None:
                continue  # module-level code
            for context in found:
                if context not in contexts:
                    contexts[context] = names.of(context)
                for test in contexts[context]:
                    if test.id != symbol.id:
                        key = (symbol.id, symbol.label, test.id, test.label)
                        out.edges[key] = out.edges.get(key, 0) + 1
    out.contexts = len(contexts)
    out.contexts_matched = sum(1 for found in contexts.values() if found)
    out.unmatched_contexts = sorted(c for c, found in contexts.items() if not found)
    return out


def rows_by_shape(edges: dict[tuple[str, str, str, str], int]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The edges as write rows, grouped by their ends' labels."""
    rows: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for (source, source_label, test, test_label), lines in sorted(edges.items()):
        rows[(source_label, test_label)].append({"s": source, "d": test, "lines": lines})
    return rows


@dataclass(frozen=True, slots=True)
class CoverageImport:
    """What an import of a coverage report wrote, and what it could not place."""

    repo: str
    branch: str
    report: str
    run: str  # the id the import's edges carry (``run``)
    edges: int  # TESTED_BY edges with evidence 'coverage' now on the branch
    removed: int  # those of earlier imports, gone
    symbols: int  # functions and methods some test executed
    tests: int  # tests that executed some
    contexts: int
    contexts_matched: int
    files: int
    files_matched: int
    unmatched_contexts: list[str]  # the first few, sorted
    unmatched_files: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


# Listed unmatched contexts and files, at most (their counts are always whole).
_LISTED = 20


def import_coverage(
    reader: GraphReader,
    writer: GraphWriter,
    repo: str,
    branch: str,
    root: Path,
    report: str,
    lines: dict[str, dict[int, list[str]]],
    progress: RowProgress | None = None,
) -> CoverageImport:
    """Replace the branch's coverage evidence with what ``report`` says (``lines``: as
    ``read_report`` read it; the caller holds the branch's ingest lock); ``progress`` hears
    (edges written, edges in all)."""
    tests = [
        IndexedTest(r["id"], r["kind"], r["qualname"], r["path"])
        for r in reader.named_query("branch_tests", {"repo": repo, "branch": branch}, limit=10_000_000)
    ]
    indexed = {
        r["path"] for r in reader.named_query("branch_files", {"repo": repo, "branch": branch}, limit=10_000_000)
    }
    paths = {name: repo_path(name, root, indexed) for name in lines}
    measured = sorted({p for p in paths.values() if p is not None})
    test_ids = {t.id for t in tests}
    symbols_of: dict[str, list[FunctionSpan]] = defaultdict(list)
    for r in reader.named_query("file_symbols", {"repo": repo, "branch": branch, "paths": measured}, limit=10_000_000):
        if r["kind"] in ("Function", "Method") and r["id"] not in test_ids:
            symbols_of[r["path"]].append(FunctionSpan(r["id"], r["kind"], r["start_line"], r["end_line"]))
    found = evidence_of(lines, paths, tests, symbols_of)
    run = uuid.uuid4().hex
    removed = writer.replace_coverage(repo, branch, rows_by_shape(found.edges), run, progress)
    return CoverageImport(
        repo,
        branch,
        report,
        run,
        len(found.edges),
        removed,
        len({key[0] for key in found.edges}),
        len({key[2] for key in found.edges}),
        found.contexts,
        found.contexts_matched,
        found.files,
        found.files_matched,
        found.unmatched_contexts[:_LISTED],
        found.unmatched_files[:_LISTED],
    )
