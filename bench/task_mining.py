"""Development tasks mined from real git histories: a commit's message is the question, the
functions and methods it changed are the answer.

A case is a non-merge commit that modifies 1-4 non-test source files of a parsed language and 3-150 lines
of them, minus housekeeping (release, bump, typo, lint, format, docs, typing, revert, merge,
dependencies, ...: words of the query). The query is its subject line, plus the first paragraph of its body when the subject
has fewer than six words. The gold is every function and method whose span at the parent
commit (as branchgraph's extractor sees it) overlaps a removed or changed line of the diff;
a pure insertion counts at the line it follows. Commits whose gold is empty (only new code)
are dropped.

The split into a tuning half and a held-out half is fixed by the commit id (its first 8 hex
digits, odd = held out): no choice depends on it, and it never changes between runs.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path

from branchgraph.core.extract import extract
from branchgraph.core.languages import language_for_path

_HOUSEKEEPING = re.compile(
    r"\b(release|released|releasing|bump|bumped|version|typos?|lint|linting|flake8|pylint|ruff|black|isort|"
    r"format|formatting|reformat|docs?|documentation|docstrings?|changelog|changes\.rst|readme|typing|typed|"
    r"type hints?|annotations?|mypy|pyright|revert|merge|pre-commit|ci|tox|deprecat\w*|copyright|license|"
    r"whitespace|style|cleanup|clean up|refactor tests?|tests? only|project files|dependencies|deps|requirements)\b",
    re.IGNORECASE,
)
_TEST_OR_SUPPORT = re.compile(
    r"(^|/)(tests?|testing|docs?|examples?|benchmarks?|bench|scripts?|tools?|\.github)/|(^|/)(test_[^/]*|[^/]*_tests?|conftest|setup|noxfile)\.py$"
)
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", re.MULTILINE)
MIN_LINES, MAX_LINES = 3, 150
MAX_FILES = 4


@dataclass(frozen=True, slots=True)
class GoldSymbol:
    path: str
    name: str  # dotted name inside the file (Class.method)
    start_line: int
    end_line: int


@dataclass(slots=True)
class Case:
    repo: str
    commit: str
    parent: str
    date: int  # commit time, for indexing parents in order
    query: str
    gold: list[GoldSymbol] = field(default_factory=list)

    @property
    def held_out(self) -> bool:
        return int(self.commit[:8], 16) % 2 == 1

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Case:
        gold = [GoldSymbol(**g) for g in data.pop("gold")]
        return cls(**data, gold=gold)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, errors="replace"
    ).stdout


def is_source(path: str) -> bool:
    """A file of a parsed language that is neither a test, a test helper, generated nor a
    declaration file (by its language's conventions), outside docs, examples and scripts."""
    spec = language_for_path(path)
    if spec is None or _TEST_OR_SUPPORT.search(path):
        return False
    conventions = spec.conventions
    return not (
        conventions.is_support_file(path)
        or conventions.is_generated_file(path)
        or conventions.is_declaration_file(path)
    )


def query_of(subject: str, body: str) -> str:
    subject = subject.strip()
    if len(subject.split()) >= 6:
        return subject
    paragraph = body.strip().split("\n\n", 1)[0].strip()
    # Trailers (Co-authored-by, Signed-off-by) and issue references say nothing of the task.
    if not paragraph or re.match(r"^[\w-]+-by:|^(fixes|closes|refs?) #?\d+", paragraph, re.IGNORECASE):
        return subject
    return f"{subject}\n\n{' '.join(paragraph.split())}"


def mine_cases(repo: Path, name: str, limit: int, scan: int = 4000, revisions: str = "HEAD") -> list[Case]:
    """Up to ``limit`` cases from the newest ``scan`` non-merge commits of ``revisions``
    (a revision or a range such as ``3.0.0..3.1.0``) in ``repo``."""
    log = git(repo, "log", "--no-merges", f"-n{scan}", "--format=%H%x1f%P%x1f%ct%x1f%s%x1f%b%x1e", revisions)
    cases: list[Case] = []
    for record in log.split("\x1e"):
        fields = record.strip("\n").split("\x1f")
        if len(fields) < 5 or len(fields[1].split()) != 1:
            continue
        commit, parent, when, subject, body = fields
        if _HOUSEKEEPING.search(subject) or _HOUSEKEEPING.search(query_of(subject, body)):
            continue
        changed = _source_changes(repo, parent, commit)
        if not changed or len(changed) > MAX_FILES:
            continue
        lines = sum(added + removed for added, removed in changed.values())
        if not MIN_LINES <= lines <= MAX_LINES:
            continue
        gold = _gold(repo, parent, commit, sorted(changed))
        if gold:
            cases.append(Case(name, commit, parent, int(when), query_of(subject, body), gold))
        if len(cases) >= limit:
            break
    return cases


def _source_changes(repo: Path, parent: str, commit: str) -> dict[str, tuple[int, int]]:
    """path -> (added, removed) lines of the commit's modified source files; empty when the
    commit changes no source file or only adds or deletes whole ones."""
    out: dict[str, tuple[int, int]] = {}
    for line in git(repo, "diff", "--numstat", "--no-renames", parent, commit).splitlines():
        added, removed, path = line.split("\t", 2)
        if added == "-" or not is_source(path):
            continue
        out[path] = (int(added), int(removed))
    return out


def _gold(repo: Path, parent: str, commit: str, paths: list[str]) -> list[GoldSymbol]:
    gold: list[GoldSymbol] = []
    for path in paths:
        diff = git(repo, "diff", "-U0", "--no-renames", parent, commit, "--", path)
        touched: set[int] = set()
        for start, count in _HUNK.findall(diff):
            first, n = int(start), int(count) if count != "" else 1
            # A pure insertion (n == 0) sits after line `first`: the code it extends.
            touched.update(range(first, first + n) if n else [first])
        try:
            data = subprocess.run(
                ["git", "-C", str(repo), "show", f"{parent}:{path}"], check=True, capture_output=True
            ).stdout
        except subprocess.CalledProcessError:
            continue  # added by the commit: nothing at the parent
        spec = language_for_path(path)
        assert spec is not None  # is_source kept only parsed languages
        parsed = extract(spec.name, data)
        defs = parsed.definitions
        for d in defs:
            if d.kind != "function" or not any(d.start_line <= line <= d.end_line for line in touched):
                continue
            parts, parent_index = [d.name], d.parent
            while parent_index is not None:
                parts.append(defs[parent_index].name)
                parent_index = defs[parent_index].parent
            gold.append(GoldSymbol(path, ".".join(reversed(parts)), d.start_line, d.end_line))
    return gold
