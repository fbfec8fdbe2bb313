"""What a change touches, symbol by symbol: the hunks of a diff (read with dulwich, compared
line by line) mapped to the innermost definitions whose spans hold a changed line, on both
sides — a deleted symbol is found on the base side, an added one on the head side."""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from dulwich.index import IndexEntry
from dulwich.repo import Repo

from branchgraph.core import git
from branchgraph.core.extract import EXTRACTOR_VERSION, Definition, decode_parsed, extract, local_names
from branchgraph.core.files import classify, source_lines
from branchgraph.core.languages import language_for_path
from branchgraph.graph.protocols import ParseCache

ADDED, MODIFIED, DELETED, SIGNATURE = "added", "modified", "deleted", "signature"
# A comment after a Python header's colon, which its signature text keeps.
_TRAILING_COMMENT = re.compile(r":\s*#.*$")
# A line that is no code: blank, or a comment of the C family's or Python's.
_NOT_CODE = re.compile(r"^\s*(?:$|//|/\*|\*/|\*(?:\s|$)|#(?![\[!]))")


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


def changed_symbols(files: list[FileVersions], cache: ParseCache | None = None) -> list[ChangedSymbol]:
    """The symbols each changed file's hunks touch, innermost first in each hunk. A version an
    ingest parsed before is read from its parse ``cache`` (by blob SHA) instead of parsed again:
    most of the first answer to a CI job's `impact --diff`, whose sides are both indexed."""
    parsed = _cached_parses(files, cache)
    out: list[ChangedSymbol] = []
    for f in files:
        spec = language_for_path(f.path)
        if spec is None:
            continue
        (old_lines, old), (new_lines, new) = _version(spec.name, f.old, parsed), _version(spec.name, f.new, parsed)
        opcodes = _opcodes(old_lines, new_lines)
        removed, added = _changed_lines(opcodes)
        # Where lines appeared or vanished, the line of the other side they land before.
        old_gaps = [i1 + 1 for tag, i1, _, _, _ in opcodes if tag == "insert"]
        new_gaps = [j1 + 1 for tag, _, _, j1, _ in opcodes if tag == "delete"]
        module = spec.conventions.module_name(f.path)
        # A name several definitions share on either side (Java's overloads) tells them apart
        # by their headers: a new overload is added, not the old one modified.
        repeated = {n for defs in (old, new) for n, c in Counter(local_names(defs)).items() if c > 1}
        old_keys, new_keys = _keyed(old, repeated), _keyed(new, repeated)
        old_by_key, new_by_key = dict(zip(old_keys, old, strict=True)), dict(zip(new_keys, new, strict=True))
        touched_old = {old_keys[i] for i in _touched(old_lines, old, removed, old_gaps)}
        touched_new = {new_keys[i] for i in _touched(new_lines, new, added, new_gaps)}
        for key in sorted(touched_old | touched_new):
            name = key[0]
            before, after = old_by_key.get(key), new_by_key.get(key)
            if after is None and before is not None:
                change, shown = DELETED, before
            elif before is None and after is not None:
                change, shown = ADDED, after
            elif before is not None and after is not None:
                change = SIGNATURE if _header(before) != _header(after) else MODIFIED
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
        f.path: _changed_lines(_opcodes(_lines(f.old), _lines(f.new)))[1]
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


def _cached_parses(files: list[FileVersions], cache: ParseCache | None) -> dict[str, bytes]:
    """The encoded parses the cache holds of the files' versions, by blob SHA (one read per language)."""
    if cache is None:
        return {}
    wanted: dict[str, set[str]] = {}
    for f in files:
        spec = language_for_path(f.path)
        if spec is not None:
            wanted.setdefault(spec.name, set()).update(git.git_blob_sha(d) for d in (f.old, f.new) if d is not None)
    found: dict[str, bytes] = {}
    for language, shas in sorted(wanted.items()):
        found.update(cache.cached_parses(shas, language, EXTRACTOR_VERSION))
    return found


def _version(language: str, data: bytes | None, parsed: dict[str, bytes]) -> tuple[list[str], list[Definition]]:
    """One side of a changed file: its lines and its definitions (none for a missing or
    unreadable file), the definitions from ``parsed`` (by blob SHA) when an ingest parsed it."""
    if data is None:
        return [], []
    verdict = classify(data)
    if isinstance(verdict, str):
        return [], []
    cached = parsed.get(git.git_blob_sha(data))
    definitions = (
        decode_parsed(cached).definitions if cached is not None else extract(language, verdict.data).definitions
    )
    return source_lines(verdict.text), definitions


def _changed_lines(opcodes: list[tuple[str, int, int, int, int]]) -> tuple[set[int], set[int]]:
    """1-based lines removed or changed on the old side, added or changed on the new side."""
    removed: set[int] = set()
    added: set[int] = set()
    for _tag, i1, i2, j1, j2 in opcodes:
        removed.update(range(i1 + 1, i2 + 1))
        added.update(range(j1 + 1, j2 + 1))
    return removed, added


def _opcodes(old: list[str], new: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib's changes of ``old`` into ``new``, a pure insertion or deletion slid down past
    the lines it repeats, as git places it: a method added after another begins with its own
    header, not with the closing brace and blank line the two share."""
    out: list[tuple[str, int, int, int, int]] = []
    opcodes = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "equal":
            continue
        after = opcodes[index + 1] if index + 1 < len(opcodes) else None
        room = after[2] - after[1] if after is not None and after[0] == "equal" else 0
        shift = 0
        if tag == "insert":
            while shift < room and new[j1 + shift] == new[j2 + shift]:
                shift += 1
        elif tag == "delete":
            while shift < room and old[i1 + shift] == old[i2 + shift]:
                shift += 1
        out.append((tag, i1 + shift, i2 + shift, j1 + shift, j2 + shift))
    return out


def _touched(lines: list[str], defs: list[Definition], changed: set[int], gaps: list[int]) -> set[int]:
    """The indexes of the definitions a change touches on one side: those innermost around a
    changed line of code (not a blank or comment line: a method added with its Javadoc adds
    lines to its class that change nothing of it), and the function a pure insertion or deletion
    on the other side lands inside (``gaps``: the line it lands before). Landing between two
    members of a class, or between two tests of a suite (a jest `describe`), changes neither it
    nor them: the member or test added or removed is the change."""
    code = {n for n in changed if n <= len(lines) and not _NOT_CODE.match(lines[n - 1])}
    touched = {i for i, d in enumerate(defs) if _innermost_holds(d, defs, code)}
    suites = {d.parent for d in defs if d.kind == "test" and d.parent is not None and defs[d.parent].kind == "test"}
    for line in gaps:
        around = [i for i, d in enumerate(defs) if d.start_line < line <= d.end_line]
        innermost = max(around, key=lambda i: defs[i].start_line, default=None)
        if innermost is not None and defs[innermost].kind not in ("class", "interface") and innermost not in suites:
            touched.add(innermost)
    return touched


def _header(d: Definition) -> str:
    """A definition's signature without a comment written after it (Python's signature text
    keeps one that follows the header's colon: ``def two(self): # set x``)."""
    return _TRAILING_COMMENT.sub("", d.signature)


def _keyed(defs: list[Definition], repeated: set[str]) -> list[tuple[str, str, int]]:
    """Each definition's (local name, header when the name repeats, ordinal among equals)."""
    seen: Counter[tuple[str, str]] = Counter()
    keys = []
    for name, d in zip(local_names(defs), defs, strict=True):
        header = _header(d) if name in repeated else ""
        keys.append((name, header, seen[(name, header)]))
        seen[(name, header)] += 1
    return keys


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
