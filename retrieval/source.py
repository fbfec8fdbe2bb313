"""The text of a branch's files as the index knows them.

A file is read from the working tree when the branch is checked out there and the file is
the blob the graph was built from; from that blob in the git object store otherwise (a
branch that is not checked out, a bare clone). A checked-out file that changed since
indexing has *drifted*: its symbols are relocated by re-parsing it, and flagged stale.

Paths come from the index and are resolved inside the repository root; a path that leaves
it (``..``, an absolute path, a symlink pointing out) is never read.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from dulwich.repo import Repo

from branchgraph.core import git
from branchgraph.core.errors import BranchgraphError, OutsideRepository
from branchgraph.core.extract import EXTRACTOR_VERSION, Definition, decode_parsed, extract, local_names
from branchgraph.core.files import source_lines
from branchgraph.core.languages import language_for_path
from branchgraph.graph.protocols import ParseCache, RetrievalSource


@dataclass(frozen=True, slots=True)
class Span:
    start_line: int  # 1-based, inclusive
    end_line: int


@dataclass
class FileText:
    """One file of a branch as retrieval reads it: its bytes, and whether they drifted from the indexed blob."""

    path: str
    data: bytes
    blob_sha: str | None  # the indexed blob; None when the index has no record of the file
    drifted: bool  # the working-tree copy differs from the indexed blob
    parses: ParseCache

    @cached_property
    def lines(self) -> list[str]:
        return source_lines(self.data.decode("utf-8", "replace"))

    def text(self, span: Span) -> str:
        return "\n".join(self.lines[span.start_line - 1 : span.end_line])

    @cached_property
    def definitions(self) -> list[Definition]:
        """The file's definitions: from the parse cache for the indexed blob, else parsed now."""
        language = language_for_path(self.path)
        if language is None:
            return []
        if not self.drifted and self.blob_sha:
            cached = self.parses.cached_parses([self.blob_sha], language.name, EXTRACTOR_VERSION)
            if self.blob_sha in cached:
                return decode_parsed(cached[self.blob_sha]).definitions
        return extract(language.name, self.data).definitions

    def relocate(self, qualname: str, old: Span) -> Span | None:
        """Where the symbol ``qualname`` is in this (drifted) copy: the definition with the same
        dotted name nearest its old place; None when it is gone."""
        candidates = [
            d
            for d, local in zip(self.definitions, local_names(self.definitions), strict=True)
            if qualname == local or qualname.endswith("." + local)
        ]
        if not candidates:
            return None
        best = min(candidates, key=lambda d: abs(d.start_line - old.start_line))
        return Span(best.start_line, best.end_line)


# A file whose modification time is this recent when it is read is not kept: another write
# within the file system's timestamp granularity could leave size and times as they were (git
# calls such entries "racily clean").
_RACY_SECONDS = 2.0

_StatKey = tuple[int, int, int, int]  # (inode, size, mtime ns, ctime ns) of a working-tree file


class FileTextCache:
    """The files recent questions read, with their split lines and parsed definitions, kept
    across the questions a workspace answers: a context reads some 27 files of django, and a
    second question about the same code reads most of them again. A working-tree copy is
    reused while its inode, size and times are unchanged and the index still names the same
    blob; a blob's copy is immutable. Least recently used files go first past ``max_bytes``."""

    def __init__(self, max_bytes: int = 64 * 1024 * 1024):
        self.max_bytes = max_bytes
        self._files: OrderedDict[tuple[object, ...], FileText] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[object, ...]) -> FileText | None:
        with self._lock:
            found = self._files.get(key)
            if found is not None:
                self._files.move_to_end(key)
            return found

    def put(self, key: tuple[object, ...], text: FileText) -> None:
        if len(text.data) > self.max_bytes:
            return
        with self._lock:
            old = self._files.pop(key, None)
            if old is not None:
                self._bytes -= len(old.data)
            self._files[key] = text
            self._bytes += len(text.data)
            while self._bytes > self.max_bytes:
                _, dropped = self._files.popitem(last=False)
                self._bytes -= len(dropped.data)


class BranchSources:
    """Reads files of one indexed branch for context assembly."""

    def __init__(
        self,
        repo: Repo,
        root: Path,
        repo_name: str,
        branch: str,
        pg: RetrievalSource,
        cache: FileTextCache | None = None,
    ):
        # Without a workspace's cache (one question alone), a cache of this reader's own.
        self.repo = repo
        self.root = root.resolve()
        self.repo_name = repo_name
        self.branch = branch
        self.pg = pg
        self.cache = cache if cache is not None else FileTextCache()
        self.checked_out = _checked_out(repo, branch)
        self._files: dict[str, FileText | None] = {}
        self._blobs: dict[str, str] = {}
        self.warnings: list[str] = []  # files whose working-tree copy was refused

    def prefetch(self, paths: list[str]) -> None:
        """Look up the indexed blobs of many paths in one round trip."""
        missing = [p for p in set(paths) if p not in self._blobs]
        if missing:
            self._blobs.update(self.pg.file_blobs(self.repo_name, self.branch, missing))

    def file(self, path: str) -> FileText | None:
        """The file as indexed (or its drifted working-tree copy); None when unreadable."""
        if path not in self._files:
            self._files[path] = self._read(path)
        return self._files[path]

    def indexed_copy(self, path: str) -> FileText | None:
        """The file exactly as indexed, from its git blob."""
        blob = self._blobs.get(path)
        if not blob:
            return None
        key = ("blob", self.root, path, blob)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        try:
            text = FileText(path, git.read_blob(self.repo, blob), blob, False, self.pg)
        except KeyError:
            return None
        self.cache.put(key, text)
        return text

    def _read(self, path: str) -> FileText | None:
        self.prefetch([path])
        blob = self._blobs.get(path)
        if self.checked_out:
            # One bad path (outside the root, a link out, too long to open) costs its own
            # item's working-tree copy, never the whole answer: the indexed blob is read instead.
            try:
                on_disk = self.working_tree_path(path)
                found = self._working_tree_copy(path, on_disk, blob) if on_disk.is_file() else None
            except (OutsideRepository, OSError) as error:
                self.warnings.append(f"{path}: working-tree copy not read ({error}); showing the indexed version")
                found = None
            if found is not None:
                return found
        return self.indexed_copy(path)

    def _working_tree_copy(self, path: str, on_disk: Path, blob: str | None) -> FileText:
        before = os.stat(on_disk)
        key = ("tree", self.root, path, blob, _stat_key(before))
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        data = on_disk.read_bytes()
        text = FileText(path, data, blob, git.git_blob_sha(data) != blob, self.pg)
        settled = time.time() - before.st_mtime > _RACY_SECONDS
        if settled and _stat_key(os.stat(on_disk)) == key[-1]:
            self.cache.put(key, text)
        return text

    def working_tree_path(self, path: str) -> Path:
        """``path`` under the repository root; refuses any path that resolves outside it."""
        candidate = Path(path)
        if candidate.is_absolute() or ".." in candidate.parts or "\x00" in path:
            raise OutsideRepository(f"refusing to read {path!r}: not a path inside the repository")
        resolved = (self.root / candidate).resolve()
        if not resolved.is_relative_to(self.root):
            raise OutsideRepository(f"refusing to read {path!r}: it resolves outside the repository")
        return resolved


def _stat_key(stat: os.stat_result) -> _StatKey:
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def _checked_out(repo: Repo, branch: str) -> bool:
    """Whether the working tree holds ``branch`` (never for a bare repository)."""
    if repo.bare:
        return False
    try:
        return git.current_branch(repo) == branch
    except BranchgraphError:
        return False
