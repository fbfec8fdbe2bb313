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


def conflict_marker_lines(data: bytes) -> list[int]:
    """1-based lines that hold git conflict markers, when the file has a full set of them."""
    lines: list[int] = []
    kinds: set[bytes] = set()
    for match in _CONFLICT_MARKER.finditer(data):
        kinds.add(match.group(1)[:1])
        lines.append(data.count(b"\n", 0, match.start()) + 1)
    # A lone "=======" is an rst underline, not a conflict: demand the opening and closing marker.
    return lines if {b"<", b">"} <= kinds else []
