"""The full-text document of a symbol: what BM25 ranks it by.

Its qualified and bare name, path, signature, docstring and source, identifier-split
(``core.lexical``), but minified lines. A class's document holds only its own lines (header, docstring, class
attributes) and the first line of each member: its methods are documents of their own, and a
400-line class that repeats every method's words would outrank the method a question is about.
"""

from __future__ import annotations

from collections.abc import Sequence

from branchgraph.core.lexical import lexical_text

# Source beyond this many characters adds nothing a search could use (the longest functions
# of django are about 15,000).
MAX_SOURCE_CHARS = 20_000
# Nobody writes a line this long; a minifier does (``dist/axios.min.js``, a vendored
# ``jquery.min.js``: the whole file on a few lines). Each of the hundreds of functions on such a
# line would otherwise take the whole line as its text, match every question, and fill the
# search lists.
LONG_LINE_CHARS = 1_000
# Bumped whenever documents change: a branch indexed with older ones gets every row rewritten.
DOCUMENT_VERSION = 3


def written_lines(lines: Sequence[str]) -> list[str]:
    """``lines`` without those a minifier wrote (longer than ``LONG_LINE_CHARS``)."""
    return [line for line in lines if len(line) <= LONG_LINE_CHARS]


def symbol_document(
    qualname: str,
    path: str,
    signature: str,
    docstring: str,
    lines: Sequence[str],
    span: tuple[int, int],
    members: Sequence[tuple[int, int]] = (),
) -> str:
    """The identifier-split document of the symbol at ``span`` (1-based, inclusive) of a file
    whose ``lines`` are given; ``members`` are spans of a class's members, left out but for
    their first line."""
    start, end = span
    hidden: set[int] = set()
    for member_start, member_end in members:
        hidden.update(range(member_start + 1, member_end + 1))
    own = written_lines([lines[i - 1] for i in range(start, min(end, len(lines)) + 1) if i not in hidden])
    source = "\n".join(own)[:MAX_SOURCE_CHARS]
    return lexical_text(qualname, qualname.rsplit(".", 1)[-1], path, signature, docstring, source)
