"""One resolver per language family: it turns every parsed file of that family in one commit
into per-file subgraphs (``ingest.subgraphs``). Languages that import each other (TypeScript,
TSX, JavaScript) are one family and resolved together. A resolver also receives the
project files its languages declare (``package.json``, ``tsconfig.json``, ...), by path. A
language in ``core.languages`` whose family has no resolver here is refused by a test.

After every family is resolved, the web routes and HTTP client calls each family finds
(``ingest.http_endpoints``) are matched across all of them (``ingest.http_links``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from branchgraph.core.languages import language_for_path
from branchgraph.core.model import BRANCH_PREFIX_LEN, FileSubgraph, branch_prefix, subgraph_fingerprint
from branchgraph.ingest.http_endpoints import ecmascript_endpoints, go_endpoints, java_endpoints, python_endpoints
from branchgraph.ingest.http_facts import ClientCall, Endpoints, FileEndpoints, Route, assemble
from branchgraph.ingest.http_links import add_links, http_links
from branchgraph.ingest.incremental import (
    BranchCounts,
    FileRecord,
    PreviousResolution,
    branch_counts,
    changed_fact_keys,
    changed_paths,
    file_counts,
    fingerprint,
)
from branchgraph.ingest.read_log import stored_key
from branchgraph.ingest.resolution import Resolver
from branchgraph.ingest.resolve_ecmascript import EcmaScriptResolver
from branchgraph.ingest.resolve_go import GoResolver
from branchgraph.ingest.resolve_java import JavaResolver
from branchgraph.ingest.resolve_python import PythonResolver
from branchgraph.ingest.subgraphs import ParsedSource


@dataclass(frozen=True, slots=True)
class Family:
    """How a language family is resolved, and where its routes and client calls are read."""

    # (repo, branch, the family's files of one commit, project files by path, the stored
    # resolution an update starts from) -> its resolver
    resolver: Callable[[str, str, list[ParsedSource], Mapping[str, bytes], PreviousResolution | None], Resolver]
    # What one file's resolution finds of the commit's routes and client calls.
    endpoints: Callable[[Resolver, ParsedSource], FileEndpoints]


RESOLVERS: dict[str, Family] = {
    "python": Family(
        lambda repo, branch, files, _project, previous: PythonResolver(repo, branch, files, previous), python_endpoints
    ),
    "ecmascript": Family(lambda *args: EcmaScriptResolver(*args[:4]), ecmascript_endpoints),
    "go": Family(lambda *args: GoResolver(*args[:4]), go_endpoints),
    "java": Family(lambda *args: JavaResolver(*args[:4]), java_endpoints),
}


def resolve_commit(
    repo: str, branch: str, files: list[ParsedSource], project_files: Mapping[str, bytes] | None = None
) -> list[FileSubgraph]:
    """Every file's subgraph, each language family resolved by its own resolver, then the
    inferred HTTP edges between them."""
    return resolve_update(repo, branch, files, project_files).subgraphs


@dataclass(slots=True)
class ResolvedUpdate:
    """An update's resolution: the files resolved again, with their new records, the files
    whose record alone changed, and the counts over every file of the commit."""

    subgraphs: list[FileSubgraph]
    records: dict[str, FileRecord]
    restamped: dict[str, FileRecord]
    counts: BranchCounts


def resolve_update(
    repo: str,
    branch: str,
    files: list[ParsedSource],
    project_files: Mapping[str, bytes] | None = None,
    previous: PreviousResolution | None = None,
) -> ResolvedUpdate:
    """``resolve_commit`` that, given the branch's stored resolution, resolves again only the
    files a change can reach (``ingest.incremental``); the others keep what is stored."""
    by_family: dict[str, list[ParsedSource]] = {}
    for f in files:
        family = _family_of_path(f.path)
        assert family is not None  # only files of a language are parsed
        by_family.setdefault(family, []).append(f)
    resolvers: dict[str, Resolver] = {}
    family_of: dict[str, str] = {}
    emitted: dict[str, FileSubgraph] = {}
    facts: dict[str, list[str]] = {}
    endpoints = Endpoints([], [])
    file_endpoints: dict[str, FileEndpoints] = {}
    prefix = branch_prefix(repo, branch)
    for family, group in sorted(by_family.items()):
        spec = RESOLVERS[family]
        resolver = resolvers[family] = spec.resolver(repo, branch, group, project_files or {}, previous)
        family_of.update((f.path, family) for f in group)
        only: set[str] | None
        if previous is not None and isinstance(resolver, PythonResolver):
            only, family_facts = _to_resolve_lazily(resolver, group, previous)
        else:
            family_facts = resolver.facts()
            only = None if previous is None else _to_resolve(resolver, group, family_facts, previous)
        facts.update(family_facts)
        emitted.update((s.path, s) for s in resolver.build(only))
        # The files resolved again are scanned again; the others' parts are their records'.
        scanned = resolver.scan(spec.endpoints, only)
        file_endpoints.update(scanned)
        found = assemble(
            (f.path, scanned[f.path] if f.path in scanned else _stored_endpoints(previous, f.path, prefix))
            for f in group
        )
        endpoints.routes.extend(found.routes)
        endpoints.clients.extend(found.clients)
    # A file's links are matched again only when its client calls or the commit's routes
    # differ from what its stored links were matched from (or it was resolved again).
    routes_print = fingerprint(_route_row(r) for r in endpoints.routes)
    clients_of: dict[str, list[ClientCall]] = {}
    for call in endpoints.clients:
        clients_of.setdefault(call.file, []).append(call)
    client_prints = {path: fingerprint(_client_row(c) for c in calls) for path, calls in clients_of.items()}
    stored = previous.records if previous is not None else {}
    linked = set(clients_of) | {p for p, r in stored.items() if r.links and p in family_of}
    to_link = {
        p
        for p in linked
        if p in emitted
        or p not in stored
        or stored[p].routes != routes_print
        or stored[p].clients != client_prints.get(p, "")
    }
    calls = [c for c in endpoints.clients if c.file in to_link]
    links = http_links(repo, branch, endpoints.routes, calls)
    link_prints = {path: subgraph_fingerprint(added) for path, added in links.items()}
    # A file whose inferred HTTP edges changed (a route appeared elsewhere) is resolved again.
    relink = {p for p in to_link if p not in emitted and link_prints.get(p, "") != stored[p].links}
    for family in sorted({family_of[p] for p in relink}):
        paths = {p for p in relink if family_of[p] == family}
        emitted.update((s.path, s) for s in resolvers[family].build(paths))
        # Their parts are their records' still; scanned again for what they read.
        file_endpoints.update(resolvers[family].scan(RESOLVERS[family].endpoints, paths))
    for path, added in links.items():
        if path in emitted:
            add_links(emitted[path], added)
    records = {}
    sources = {f.path: f for f in files}
    for path, subgraph in emitted.items():
        resolver = resolvers[family_of[path]]
        reads = sorted(stored_key(k) for k in resolver.file_reads[path]) if resolver.reads is not None else None
        parsed = sources[path].parsed
        records[path] = FileRecord(
            reads,
            facts.get(path, []),
            file_counts(subgraph, parsed.parse_errors, parsed.size, len(parsed.calls)),
            link_prints.get(path, ""),
            client_prints.get(path, ""),
            routes_print,
            file_endpoints[path].to_json(),
        )
    # Files matched again to the same links keep their record, now saying what it was matched from.
    restamped = {
        p: dataclasses.replace(stored[p], clients=client_prints.get(p, ""), routes=routes_print)
        for p in to_link
        if p not in emitted
    }
    assert previous is not None or len(records) == len(files)
    counts = branch_counts(records[f.path].counts if f.path in records else stored[f.path].counts for f in files)
    return ResolvedUpdate(list(emitted.values()), records, restamped, counts)


def _stored_endpoints(previous: PreviousResolution | None, path: str, prefix: str) -> FileEndpoints:
    """A file's routes and client calls as its stored record keeps them, on this branch."""
    assert previous is not None  # every file is scanned without one
    return FileEndpoints.from_json(previous.records[path].endpoints, prefix, path)


def _family_of_path(path: str) -> str | None:
    spec = language_for_path(path)
    return spec.resolver if spec is not None else None


def _route_row(route: Route) -> tuple:
    methods = sorted(route.methods) if route.methods is not None else None
    test = route.test[BRANCH_PREFIX_LEN:] if route.test else None
    return (
        route.path,
        str(methods),
        route.handler.id[BRANCH_PREFIX_LEN:],
        route.handler.label,
        route.file,
        route.line,
        test,
    )


def _client_row(call: ClientCall) -> tuple:
    caller = call.caller.id[BRANCH_PREFIX_LEN:]
    test = call.test[BRANCH_PREFIX_LEN:] if call.test else None
    return (call.line, str(call.method), repr(call.url), call.raw, caller, call.caller.label, call.caller_is_test, test)


@dataclass(slots=True)
class _FamilyChange:
    """What changed in one family's files since the stored resolution: other families' files
    are no part of it (no lookup of one family reads another's files; HTTP links are matched
    apart), so a Python change never counts as a JavaScript file gone, nor the reverse."""

    current: dict[str, str]  # path -> blob of the family's files now
    changed: set[str]
    keys: set[str]  # the read keys the change touches, facts aside
    old_facts: dict[str, list[str]]
    unrecorded: set[str]

    @classmethod
    def of(cls, resolver: Resolver, group: list[ParsedSource], previous: PreviousResolution) -> _FamilyChange:
        family = _family_of_path(group[0].path)
        current = {f.path: f.blob_sha for f in group}
        mine = dataclasses.replace(
            previous, blobs={p: b for p, b in previous.blobs.items() if _family_of_path(p) == family}
        )
        changed, added_or_deleted = changed_paths(mine, current)
        keys = changed | {stored_key(k) for k in resolver.changed_keys(changed, added_or_deleted)}
        old_facts = {path: r.facts for path, r in previous.records.items() if _family_of_path(path) == family}
        unrecorded = {p for p in current if p not in previous.records or previous.records[p].reads is None}
        return cls(current, changed, keys, old_facts, unrecorded)


def _to_resolve(
    resolver: Resolver, group: list[ParsedSource], facts: Mapping[str, list[str]], previous: PreviousResolution
) -> set[str] | None:
    """The files of a family an update must resolve again (None: all of them, when its
    resolver does not log what it reads)."""
    if resolver.reads is None:
        return None
    change = _FamilyChange.of(resolver, group, previous)
    keys = change.keys | changed_fact_keys(change.old_facts, facts)
    return (change.changed | previous.dependents(keys) | change.unrecorded) & set(change.current)


def _to_resolve_lazily(
    resolver: PythonResolver, group: list[ParsedSource], previous: PreviousResolution
) -> tuple[set[str], dict[str, list[str]]]:
    """``_to_resolve`` without the facts of every file: a file's facts depend on its own rows
    and on what its record's reads hold, so only the files a change reaches state them anew
    (the rest are their records'); the facts that changed reach more files, until none is
    new. The same files as ``_to_resolve``, and the facts of every file of the family."""
    change = _FamilyChange.of(resolver, group, previous)
    current, old_facts = set(change.current), change.old_facts
    fresh = (change.changed | previous.dependents(change.keys) | change.unrecorded) & current
    facts = {path: stated for path, stated in old_facts.items() if path in current}
    facts.update(resolver.facts_of(fresh))
    while more := (previous.dependents(changed_fact_keys(old_facts, facts)) & current) - fresh:
        fresh |= more
        facts.update(resolver.facts_of(more))
    resolver.use_facts(facts)
    return fresh, {path: stated for path, stated in facts.items() if stated}
