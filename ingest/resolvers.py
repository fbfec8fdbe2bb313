"""One resolver per language: it turns every parsed file of that language in one commit into
per-file subgraphs (``ingest.subgraphs``). The pipeline hands each language's files to its
resolver; a language in ``core.languages`` without one here is refused by a test."""

from __future__ import annotations

from collections.abc import Callable

from branchgraph.core.model import FileSubgraph
from branchgraph.ingest.resolve_python import resolve_python
from branchgraph.ingest.subgraphs import ParsedSource

# (repo, branch, the language's files of one commit) -> one subgraph per file
Resolver = Callable[[str, str, list[ParsedSource]], list[FileSubgraph]]

RESOLVERS: dict[str, Resolver] = {
    "python": resolve_python,
}


def resolve_commit(repo: str, branch: str, files: list[ParsedSource]) -> list[FileSubgraph]:
    """Every file's subgraph, each language resolved by its own resolver."""
    by_language: dict[str, list[ParsedSource]] = {}
    for f in files:
        by_language.setdefault(f.parsed.language, []).append(f)
    subgraphs: list[FileSubgraph] = []
    for language, group in sorted(by_language.items()):
        subgraphs.extend(RESOLVERS[language](repo, branch, group))
    return subgraphs
