"""One resolver per language family: it turns every parsed file of that family in one commit
into per-file subgraphs (``ingest.subgraphs``). Languages that import each other (TypeScript,
TSX, JavaScript) are one family and resolved together. A resolver also receives the
project files its languages declare (``package.json``, ``tsconfig.json``, ...), by path. A
language in ``core.languages`` whose family has no resolver here is refused by a test."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from branchgraph.core.languages import language_named
from branchgraph.core.model import FileSubgraph
from branchgraph.ingest.resolve_ecmascript import resolve_ecmascript
from branchgraph.ingest.resolve_python import resolve_python
from branchgraph.ingest.subgraphs import ParsedSource

# (repo, branch, the family's files of one commit, project files by path) -> one subgraph per file
Resolver = Callable[[str, str, list[ParsedSource], Mapping[str, bytes]], list[FileSubgraph]]

RESOLVERS: dict[str, Resolver] = {
    "python": resolve_python,
    "ecmascript": resolve_ecmascript,
}


def resolve_commit(
    repo: str, branch: str, files: list[ParsedSource], project_files: Mapping[str, bytes] | None = None
) -> list[FileSubgraph]:
    """Every file's subgraph, each language family resolved by its own resolver."""
    by_family: dict[str, list[ParsedSource]] = {}
    for f in files:
        by_family.setdefault(language_named(f.parsed.language).resolver, []).append(f)
    subgraphs: list[FileSubgraph] = []
    for family, group in sorted(by_family.items()):
        subgraphs.extend(RESOLVERS[family](repo, branch, group, project_files or {}))
    return subgraphs
