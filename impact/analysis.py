"""Impact of a change on one indexed branch: the changed symbols found in the graph, every
caller and subclass up to a depth (level by level, the shortest path kept as ``via``), the
tests that reach any of them, the dangling references that might be callers the graph could
not resolve, and a risk with its reasons. An answer that may be incomplete says so
(``exact`` false) and never reads "no impact" while unresolved possible callers exist."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from branchgraph.core.languages import is_declaration_path, language_for_path
from branchgraph.graph.protocols import GraphReader
from branchgraph.impact.changes import ADDED, DELETED, SIGNATURE, ChangedSymbol
from branchgraph.impact.run_commands import ReadFile, RunCommand, run_commands
from branchgraph.impact.state_memo import StateMemo, per_node
from branchgraph.impact.test_selection import MAX_WALK, TestToRun, select_tests

TIERS = {1: "will_break", 2: "likely_affected"}
FAR_TIER = "may_need_testing"
RISKS = ("low", "medium", "high", "critical")
# A change with this many direct users, or this many users in all, is a high risk.
_HIGH_DIRECT, _HIGH_TOTAL = 10, 50
# Rows one level of users may return.
_STEP_ROWS = 100_000


@dataclass(frozen=True, slots=True)
class Impacted:
    id: str
    kind: str
    qualname: str
    path: str
    start_line: int | None
    end_line: int | None
    depth: int
    tier: str
    via: list[str]  # qualnames from this symbol down to the changed one
    lines: list[int]  # where this symbol uses the next one on ``via`` (every call site)


@dataclass(frozen=True, slots=True)
class Unknown:
    path: str
    user: str | None  # the symbol (or module) holding the reference
    raw: str
    line: int | None
    edge: str


@dataclass(slots=True)
class ImpactReport:
    branch: str
    commit: str
    changed: list[dict[str, Any]]
    impacted: list[Impacted] = field(default_factory=list)
    tests: list[TestToRun] = field(default_factory=list)
    unknowns: dict[str, list[Unknown]] = field(default_factory=dict)  # by file
    risk: str = "low"
    reasons: list[str] = field(default_factory=list)
    exact: bool = True
    notes: list[str] = field(default_factory=list)  # why the answer may be incomplete
    commands: list[RunCommand] = field(default_factory=list)  # what runs ``tests``, a runner each

    def to_dict(self) -> dict[str, Any]:
        return {
            "branch": self.branch,
            "commit": self.commit,
            "changed": self.changed,
            "impacted": [asdict(i) for i in self.impacted],
            "tests": [asdict(t) for t in self.tests],
            "commands": [asdict(c) for c in self.commands],
            "risk": self.risk,
            "reasons": self.reasons,
            "exact": self.exact,
            "notes": self.notes,
            "unknowns": {path: [asdict(u) for u in items] for path, items in self.unknowns.items()},
        }

    def reaches(self, level: str) -> bool:
        """Whether the risk is ``level`` or worse (``--fail-on``); an unknown risk reaches any."""
        return self.risk == "unknown" or RISKS.index(self.risk) >= RISKS.index(level)


def analyze(
    graph: GraphReader,
    repo: str,
    branch: str,
    commit: str,
    changes: list[ChangedSymbol],
    depth: int,
    memo: StateMemo | None = None,
    read_file: ReadFile = lambda path: None,
) -> ImpactReport:
    """The impact of ``changes`` on the branch as indexed at ``commit``; ``memo``: what was read
    of this indexed state of the branch before (``state_memo.py``); ``read_file``: the files of
    that commit, which say what runs the tests (``run_commands.py``; without them, Maven and
    jest)."""
    found = definitions_by_qualname(
        graph.named_query(
            "symbols_named", {"repo": repo, "branch": branch, "qualnames": sorted({c.qualname for c in changes})}
        )
    )
    report = ImpactReport(branch, commit, [_changed_row(c, _in_file(found.get(c.qualname), c.path)) for c in changes])
    missing = [c for c in changes if c.qualname not in found and c.change != ADDED]
    if missing:
        report.exact = False
        report.notes.append(
            f"{len(missing)} changed symbols are not in the index of {branch} at {commit[:12]} "
            f"(e.g. {missing[0].qualname}): index the branch at the change's base or head for their users"
        )
    # Every definition of a changed name is a start: a stub's users are the implementation's
    # (``setters.pyi`` beside ``setters.py``), and so are a redefinition's in the same file.
    start = {row["id"]: row["qualname"] for rows in found.values() for row in rows}
    memo = memo or StateMemo()
    names = sorted({c.name for c in changes})

    def read_unknowns() -> list[dict[str, Any]]:
        rows = graph.named_query("impact_unknowns", {"repo": repo, "branch": branch, "names": names}, limit=5000)
        # An external reference (`java.io.InputStream.read`) may be a user only of a name some
        # changed symbol can be reached by from outside the repository: any of a language
        # without nominal types; in Java, a method of a class with a library base.
        methods = sorted({c.qualname for c in changes if _nominal(c.path) and c.kind == "Method"})
        subtypes = {"repo": repo, "branch": branch, "qualnames": methods}
        reachable = {row["qualname"] for row in graph.named_query("library_subtypes", subtypes)} if methods else set()
        open_names = {c.name for c in changes if not _nominal(c.path) or c.qualname in reachable}
        return [r for r in rows if r["reason"] != "external" or any(_names(r["raw"], n) for n in open_names)]

    # The three reads do not depend on each other: the server answers them side by side.
    with ThreadPoolExecutor(max_workers=2) as pool:
        users = pool.submit(users_of, graph, start, depth, memo)
        # What is kept depends on the changed symbols, not only on their names.
        qualnames = " ".join(sorted({c.qualname for c in changes}))
        unknowns = pool.submit(memo.value, "impact_unknowns " + qualnames, read_unknowns)
        tests_to_run(graph, repo, branch, {row["id"]: row for rows in found.values() for row in rows}, report, memo)
        report.impacted = users.result()
    for row in unknowns.result():
        unknown = Unknown(row["path"], row["user"], row["raw"], row["line"], row["edge"])
        report.unknowns.setdefault(unknown.path, []).append(unknown)
    if report.unknowns:
        report.exact = False
        count = sum(len(v) for v in report.unknowns.values())
        report.notes.append(
            f"{count} unresolved references in {len(report.unknowns)} files name a changed symbol: possible users"
        )
    report.risk, report.reasons = _risk(changes, report)
    report.commands = run_commands([(t.path, t.runner, t.selector) for t in report.tests], read_file)
    return report


def _nominal(path: str) -> bool:
    spec = language_for_path(path)
    return spec is not None and spec.conventions.nominal_types


def _names(raw: str, name: str) -> bool:
    """Whether a reference's raw text names ``name`` (``name`` or ``anything.name``), as
    ``impact_unknowns`` matches them."""
    return raw == name or raw.endswith("." + name)


def definitions_by_qualname(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """``symbols_named`` rows by qualified name, an implementation before a declaration of the
    same name (a type stub), then by path and line: the first is the one a name means."""
    out: dict[str, list[dict[str, Any]]] = {}
    for row in sorted(rows, key=lambda r: (is_declaration_path(r["path"]), r["path"], r["start_line"])):
        out.setdefault(row["qualname"], []).append(row)
    return out


def _in_file(rows: list[dict[str, Any]] | None, path: str) -> dict[str, Any] | None:
    """The definition in the changed file, else the one the name means."""
    if not rows:
        return None
    return next((r for r in rows if r["path"] == path), rows[0])


def _changed_row(change: ChangedSymbol, node: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "id": node["id"] if node else None,
        "kind": change.kind,
        "qualname": change.qualname,
        "path": change.path,
        "start_line": change.start_line,
        "end_line": change.end_line,
        "change": change.change,
    }


def users_of(graph: GraphReader, start: dict[str, str], depth: int, memo: StateMemo | None = None) -> list[Impacted]:
    """Callers and subclasses level by level; each keeps the first (shortest) path found."""
    memo = memo or StateMemo()
    via: dict[str, list[str]] = {node_id: [qualname] for node_id, qualname in start.items()}
    out: list[Impacted] = []
    frontier = list(start)

    def fetch(ids: list[str]) -> tuple[dict[str, list[dict[str, Any]]], bool]:
        rows = graph.named_query("impact_step", {"ids": ids}, limit=_STEP_ROWS)
        found: dict[str, list[dict[str, Any]]] = {node: [] for node in ids}
        for row in rows:
            found[row["target"]].append(row)
        return found, len(rows) < _STEP_ROWS

    for level in range(1, depth + 1):
        if not frontier:
            break
        users, _ = per_node(memo, "impact_step", frontier, fetch)
        rows = [row for node in frontier for row in users[node]]
        frontier = []
        for row in sorted(rows, key=lambda r: (r["qualname"] or "", r["target"])):
            if row["id"] in via:
                continue
            # A caller of the method an override overrides reaches it through that method.
            through = [row["through"]] if row.get("through") else []
            via[row["id"]] = [row["qualname"], *through, *via[row["target"]]]
            out.append(
                Impacted(
                    row["id"],
                    row["kind"],
                    row["qualname"],
                    row["path"],
                    row["start_line"],
                    row["end_line"],
                    level,
                    TIERS.get(level, FAR_TIER),
                    via[row["id"]],
                    sorted(line for line in row["lines"] or [] if line is not None),
                )
            )
            if row["kind"] != "File":  # a module-level use has no callers of its own
                frontier.append(row["id"])
    return out


def tests_to_run(
    graph: GraphReader,
    repo: str,
    branch: str,
    rows: dict[str, dict[str, Any]],
    report: ImpactReport,
    memo: StateMemo | None = None,
) -> None:
    """The tests to run when the symbols of ``rows`` change (``test_selection.py``), as the
    report lists them."""
    selection = select_tests(graph, repo, branch, rows, memo)
    report.tests = selection.tests
    if not selection.complete:
        report.exact = False
        report.notes.append(
            f"the search for tests stopped after {MAX_WALK} symbols (a change this central may need the whole "
            "suite): the tests of every test file importing the changed files were added"
        )


def _risk(changes: list[ChangedSymbol], report: ImpactReport) -> tuple[str, list[str]]:
    direct = [i for i in report.impacted if i.depth == 1]
    breaking = [c for c in changes if c.change in (DELETED, SIGNATURE)]
    reasons = []
    if not changes:
        return "low", ["no function, method or class changed"]
    if breaking and (direct or report.unknowns):
        reasons.append(
            f"{len(breaking)} symbols deleted or with a changed signature still have users "
            f"({len(direct)} direct, {sum(len(v) for v in report.unknowns.values())} unresolved)"
        )
        return "critical", reasons
    if len(direct) >= _HIGH_DIRECT or len(report.impacted) >= _HIGH_TOTAL:
        reasons.append(f"{len(direct)} direct and {len(report.impacted)} transitive users")
        return "high", reasons
    if report.impacted or report.unknowns:
        if report.impacted:
            reasons.append(f"{len(direct)} direct and {len(report.impacted)} transitive users")
        if report.unknowns:
            reasons.append("unresolved references may be users: the graph cannot rule out impact")
        return "medium", reasons
    if not report.exact:
        return "unknown", ["the changed symbols are not in the index, so their users are unknown"]
    return "low", ["no user of a changed symbol in the graph, and no unresolved reference names one"]
