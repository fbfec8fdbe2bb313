"""The full-text document of a symbol: what BM25 ranks it by.

Its qualified and bare name, path, signature, docstring and source, identifier-split
(``core.lexical``). A class's document holds only its own lines (header, docstring, class
attributes) and the first line of each member: its methods are documents of their own, and a
400-line class that repeats every method's words would outrank the method a question is about.
"""

from __future__ import annotations

from collections.abc import Sequence

from branchgraph.core.lexical import lexical_text

# Source beyond this many characters adds nothing a search could use (the longest functions
# of django are about 15,000).
MAX_SOURCE_CHARS = 20_000
# Bumped whenever documents change: a branch indexed with older ones gets every row rewritten.
DOCUMENT_VERSION = 2


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
    own = [lines[i - 1] for i in range(start, min(end, len(lines)) + 1) if i not in hidden]
    source = "\n".join(own)[:MAX_SOURCE_CHARS]
    return lexical_text(qualname, qualname.rsplit(".", 1)[-1], path, signature, docstring, source)
