"""Decide, per tracked file, whether it is source to parse or a file to skip, and why.

Skipping never raises: every skipped file is counted under a reason so the ingest summary
accounts for all tracked source files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_MAX_FILE_BYTES = 1_000_000

SKIP_SYMLINK = "symlink"
SKIP_SUBMODULE = "submodule"
SKIP_TOO_LARGE = "too_large"
SKIP_BINARY = "binary"
SKIP_NOT_UTF8 = "not_utf8"
SKIP_LFS_POINTER = "lfs_pointer"
SKIP_PATH_NOT_UTF8 = "path_not_utf8"
SKIP_PATH_TOO_LONG = "path_too_long"
SKIP_PATH_UNSAFE = "path_unsafe"
SKIP_IDENTIFIER_TOO_LONG = "identifier_too_long"

# Paths and names are index keys: Neo4j's range indexes take at most ~8 KB per key and a
# PostgreSQL b-tree row at most ~2.7 KB, so a longer one would fail the whole branch's write.
# Real paths and names stay far below these bounds; a file past them is skipped and counted.
MAX_PATH_BYTES = 1024
MAX_NAME_CHARS = 512

_LFS_POINTER_PREFIX = b"version https://git-lfs.github.com/spec/v1"
_CONFLICT_MARKER = re.compile(rb"^(<<<<<<< |=======$|>>>>>>> )", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class SourceText:
    """A decoded source file ready to parse."""

    text: str
    data: bytes


def classify(data: bytes, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> str | SourceText:
    """Return a skip reason, or the decoded source."""
    if len(data) > max_bytes:
        return SKIP_TOO_LARGE
    if data.startswith(_LFS_POINTER_PREFIX):
        return SKIP_LFS_POINTER
    if b"\x00" in data[:8192]:
        return SKIP_BINARY
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return SKIP_NOT_UTF8
    return SourceText(text=text, data=data)


def is_utf8(path: str) -> bool:
    """Whether a path decoded with ``surrogateescape`` was valid UTF-8 (no surrogate in it)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def path_problem(path: str) -> str | None:
    """Why a tracked path cannot be indexed (a skip reason), or None. Paths are decoded with
    ``surrogateescape``: a surrogate marks bytes that were not UTF-8."""
    if not is_utf8(path):
        return SKIP_PATH_NOT_UTF8
    # git refuses such tree entries, but a crafted tree can hold them; read from a working
    # tree they would name a file outside the repository.
    parts = path.split("/")
    if path.startswith("/") or any(p in ("", ".", "..", ".git") for p in parts):
        return SKIP_PATH_UNSAFE
    return SKIP_PATH_TOO_LONG if len(path.encode("utf-8")) > MAX_PATH_BYTES else None


def source_lines(text: str) -> list[str]:
    """The lines of a source text as tree-sitter counts rows: split at newlines only (not at
    form feeds, U+2028 and the other breaks ``str.splitlines`` honours), without the ``\\r``
    of a CRLF ending."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if "\r" not in text:  # most files: no line to strip (10 ms of a django context() otherwise)
        return lines
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def conflict_marker_lines(data: bytes) -> list[int]:
    """1-based lines that hold git conflict markers, when the file has a full set of them."""
    lines: list[int] = []
    kinds: set[bytes] = set()
    for match in _CONFLICT_MARKER.finditer(data):
        kinds.add(match.group(1)[:1])
        lines.append(data.count(b"\n", 0, match.start()) + 1)
    # A lone "=======" is an rst underline, not a conflict: demand the opening and closing marker.
    return lines if {b"<", b">"} <= kinds else []
