"""What a change touches, symbol by symbol: the hunks of a diff (read with dulwich, compared
line by line) mapped to the innermost definitions whose spans hold a changed line, on both
sides — a deleted symbol is found on the base side, an added one on the head side."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from dulwich.index import IndexEntry
from dulwich.repo import Repo

from branchgraph.core import git
from branchgraph.core.extract import Definition, extract, local_names
from branchgraph.core.files import classify, source_lines
from branchgraph.core.languages import language_for_path

ADDED, MODIFIED, DELETED, SIGNATURE = "added", "modified", "deleted", "signature"


@dataclass(frozen=True, slots=True)
class ChangedSymbol:
    qualname: str
    kind: str  # Class | Function | Method
    path: str
    start_line: int  # on the head side (the base side for a deleted symbol)
    end_line: int
    change: str  # added | modified | deleted | signature
    name: str


@dataclass(frozen=True, slots=True)
class FileVersions:
    """One changed file: its bytes before and after (None where it does not exist)."""

    path: str
    old: bytes | None
    new: bytes | None


def changed_symbols(files: list[FileVersions]) -> list[ChangedSymbol]:
    """The symbols each changed file's hunks touch, innermost first in each hunk."""
    out: list[ChangedSymbol] = []
    for f in files:
        spec = language_for_path(f.path)
        if spec is None:
            continue
        (old_lines, old), (new_lines, new) = _version(spec.name, f.old), _version(spec.name, f.new)
        removed, added = _changed_lines(old_lines, new_lines)
        module = spec.conventions.module_name(f.path)
        old_by_name, new_by_name = dict(_named(old)), dict(_named(new))
        touched_old = {name for name, d in old_by_name.items() if _innermost_holds(d, old, removed)}
        touched_new = {name for name, d in new_by_name.items() if _innermost_holds(d, new, added)}
        for name in sorted(touched_old | touched_new):
            before, after = old_by_name.get(name), new_by_name.get(name)
            if after is None and before is not None:
                change, shown = DELETED, before
            elif before is None and after is not None:
                change, shown = ADDED, after
            elif before is not None and after is not None:
                change = SIGNATURE if before.signature != after.signature else MODIFIED
                shown = after
            else:
                continue
            qualname = f"{module}.{name}" if module else name
            out.append(
                ChangedSymbol(qualname, _kind(shown, old if shown is before else new), f.path,
                              shown.start_line, shown.end_line, change, shown.name)
            )  # fmt: skip
    return out


def added_lines(files: list[FileVersions]) -> dict[str, set[int]]:
    """Per source file that exists after the change, its new or changed lines (1-based)."""
    return {
        f.path: _changed_lines(_lines(f.old), _lines(f.new))[1]
        for f in files
        if f.new is not None and language_for_path(f.path) is not None
    }


def diff_files(repo: Repo, base: str, head: str) -> list[FileVersions]:
    """Changed files between two commits (renames as a deletion and an addition)."""
    changes = git.diff_commits(repo, base, head, detect_renames=False)
    base_commit, head_commit = git.commit_object(repo, base), git.commit_object(repo, head)
    return [
        FileVersions(path, git.blob_at(repo, base_commit, path), git.blob_at(repo, head_commit, path))
        for path in sorted({*changes.added, *changes.modified, *changes.deleted})
    ]


def worktree_files(repo: Repo, root: Path, staged: bool) -> list[FileVersions]:
    """Changed files of the index (``staged``) or of the working tree, against HEAD."""
    head = git.commit_object(repo, "HEAD")
    head_tree = {f.path: f.blob_sha for f in git.tree_files(repo, head)}
    index = repo.open_index()
    out = []
    for raw_path in index:
        path = raw_path.decode("utf-8", "surrogateescape")
        if language_for_path(path) is None:
            continue
        old = git.read_blob(repo, head_tree[path]) if path in head_tree else None
        new: bytes | None
        if staged:
            entry = index[raw_path]
            if not isinstance(entry, IndexEntry):
                continue  # a merge conflict in the index: no one staged version to read
            new = git.read_blob(repo, entry.sha.decode("ascii"))
        else:
            on_disk = root / path
            new = on_disk.read_bytes() if on_disk.is_file() else None
        if old != new:
            out.append(FileVersions(path, old, new))
    for path in sorted(set(head_tree) - {p.decode("utf-8", "surrogateescape") for p in index}):
        if language_for_path(path) is not None:  # removed from the index
            out.append(FileVersions(path, git.read_blob(repo, head_tree[path]), None))
    return out


def _lines(data: bytes | None) -> list[str]:
    if data is None:
        return []
    verdict = classify(data)
    return source_lines(verdict.text) if not isinstance(verdict, str) else []


def _version(language: str, data: bytes | None) -> tuple[list[str], list[Definition]]:
    """One side of a changed file: its lines and its definitions (none for a missing or
    unreadable file)."""
    verdict = classify(data) if data is not None else None
    if verdict is None or isinstance(verdict, str):
        return [], []
    return source_lines(verdict.text), extract(language, verdict.data).definitions


def _changed_lines(old: list[str], new: list[str]) -> tuple[set[int], set[int]]:
    """1-based lines removed or changed on the old side, added or changed on the new side. A
    pure insertion also marks the old line it lands before, so the symbol around it counts."""
    removed: set[int] = set()
    added: set[int] = set()
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        removed.update(range(i1 + 1, i2 + 1) if i2 > i1 else [min(i1 + 1, max(len(old), 1))])
        added.update(range(j1 + 1, j2 + 1) if j2 > j1 else [min(j1 + 1, max(len(new), 1))])
    return removed, added


def _named(defs: list[Definition]) -> list[tuple[str, Definition]]:
    return list(zip(local_names(defs), defs, strict=True))


def _innermost_holds(d: Definition, defs: list[Definition], lines: set[int]) -> bool:
    """Whether a changed line lies in ``d`` and in none of the definitions nested in it."""
    index = next(i for i, candidate in enumerate(defs) if candidate is d)
    children = [c for c in defs if c.parent == index]
    return any(
        d.start_line <= line <= d.end_line and not any(c.start_line <= line <= c.end_line for c in children)
        for line in lines
    )


def _kind(d: Definition, defs: list[Definition]) -> str:
    if d.kind in ("class", "interface"):
        return "Interface" if d.kind == "interface" else "Class"
    if d.receiver or (d.parent is not None and defs[d.parent].kind in ("class", "interface")):
        return "Method"  # written in its class, or (Go) declared on a receiver type
    return "Function"
