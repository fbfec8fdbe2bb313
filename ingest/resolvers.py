"""One resolver per language family: it turns every parsed file of that family in one commit
into per-file subgraphs (``ingest.subgraphs``). Languages that import each other (TypeScript,
TSX, JavaScript) are one family and resolved together. A resolver also receives the
project files its languages declare (``package.json``, ``tsconfig.json``, ...), by path. A
language in ``core.languages`` whose family has no resolver here is refused by a test.

After every family is resolved, the web routes and HTTP client calls each family finds
(``ingest.http_endpoints``) are matched across all of them (``ingest.http_links``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from branchgraph.core.languages import language_named
from branchgraph.core.model import FileSubgraph
from branchgraph.ingest.http_endpoints import (
    Endpoints,
    ecmascript_endpoints,
    go_endpoints,
    java_endpoints,
    python_endpoints,
)
from branchgraph.ingest.http_links import link_http
from branchgraph.ingest.resolution import Resolver
from branchgraph.ingest.resolve_ecmascript import EcmaScriptResolver
from branchgraph.ingest.resolve_go import GoResolver
from branchgraph.ingest.resolve_java import JavaResolver
from branchgraph.ingest.resolve_python import PythonResolver
from branchgraph.ingest.subgraphs import ParsedSource


@dataclass(frozen=True, slots=True)
class Family:
    """How a language family is resolved, and where its routes and client calls are read."""

    # (repo, branch, the family's files of one commit, project files by path) -> its resolver
    resolver: Callable[[str, str, list[ParsedSource], Mapping[str, bytes]], Resolver]
    endpoints: Callable[[Resolver], Endpoints]


RESOLVERS: dict[str, Family] = {
    "python": Family(lambda repo, branch, files, _project: PythonResolver(repo, branch, files), python_endpoints),
    "ecmascript": Family(EcmaScriptResolver, ecmascript_endpoints),
    "go": Family(GoResolver, go_endpoints),
    "java": Family(JavaResolver, java_endpoints),
}


def resolve_commit(
    repo: str, branch: str, files: list[ParsedSource], project_files: Mapping[str, bytes] | None = None
) -> list[FileSubgraph]:
    """Every file's subgraph, each language family resolved by its own resolver, then the
    inferred HTTP edges between them."""
    by_family: dict[str, list[ParsedSource]] = {}
    for f in files:
        by_family.setdefault(language_named(f.parsed.language).resolver, []).append(f)
    subgraphs: list[FileSubgraph] = []
    endpoints = Endpoints([], [])
    for family, group in sorted(by_family.items()):
        spec = RESOLVERS[family]
        resolver = spec.resolver(repo, branch, group, project_files or {})
        subgraphs.extend(resolver.build())
        found = spec.endpoints(resolver)
        endpoints.routes.extend(found.routes)
        endpoints.clients.extend(found.clients)
    link_http(repo, branch, endpoints.routes, endpoints.clients, subgraphs)
    return subgraphs
