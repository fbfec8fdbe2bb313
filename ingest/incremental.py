"""What an update keeps of each file's resolution, and which files it must resolve again.

A file's subgraph depends on its own parse and on what resolving it read of the rest of the
commit (``ingest.read_log``). An update resolves again only the files whose content changed
and those whose reads hold a key the change touched: a changed file's path, a module or
package name that appeared or vanished, a package one of whose files changed, a folder's
fixtures, and the keys whose *facts* differ — ``<key>><value>`` strings each resolver states
(a class's subclasses, the member names and interfaces defined, the project files'
fingerprint), compared over the whole commit with the stored ones. Every other file's
subgraph, counts and links are what the stores already hold.
"""

from __future__ import annotations

import functools
import hashlib
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from branchgraph.core.model import BRANCH_PREFIX_LEN, FileSubgraph

REFERENCE_EDGE_TYPES = ("CALLS", "IMPORTS", "INHERITS_FROM", "PARAM_TYPE", "RETURNS_TYPE")
_FACT_VALUE = ">"


@dataclass(slots=True)
class FileRecord:
    """What an update needs of a file's last resolution."""

    # Stored read keys; None: its resolver logs no reads. A record read back from the stores
    # has an empty list for logged reads: they stay there, ``dependents`` queries them.
    reads: list[str] | None
    facts: list[str] = field(default_factory=list)
    counts: dict[str, Any] = field(default_factory=dict)  # ``file_counts``
    links: str = ""  # fingerprint of its inferred HTTP edges ("" when it makes no client call)
    # What its links were matched from: its client calls, and every route of the commit.
    clients: str = ""
    routes: str = ""
    # Its own routes and client calls (``ingest.http_facts.FileEndpoints.to_json``; None: none).
    endpoints: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "version": resolution_version(),
            "logged": self.reads is not None,
            "facts": self.facts,
            "counts": self.counts,
            "links": self.links,
            "clients": self.clients,
            "routes": self.routes,
            **({"endpoints": self.endpoints} if self.endpoints else {}),
        }

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> FileRecord:
        return cls(
            [] if document.get("logged") else None,
            list(document.get("facts", ())),
            dict(document["counts"]),
            document.get("links", ""),
            document.get("clients", ""),
            document.get("routes", ""),
            document.get("endpoints"),
        )


@dataclass(slots=True)
class PreviousResolution:
    """The stored resolution of a branch: per file the blob its record describes and the
    record, and a query for the files whose stored reads hold any of some keys."""

    blobs: dict[str, str]  # every stored file; "" for one whose rewrite may not have finished
    records: dict[str, FileRecord]
    dependents: Callable[[Collection[str]], set[str]]


@functools.cache
def resolution_version() -> str:
    """A hash of the code that turns a file into its subgraph (extraction, tag queries,
    resolvers): a record made by other code is no record, so the first update after an
    upgrade resolves every file again, as a fresh ingest would."""
    digest = hashlib.blake2b(digest_size=8)
    for package in ("branchgraph.core", "branchgraph.core.languages", "branchgraph.core.queries", "branchgraph.ingest"):
        root = resources.files(package)
        for entry in sorted(root.iterdir(), key=lambda e: e.name):
            if entry.name.endswith((".py", ".scm")):
                digest.update(entry.name.encode() + b"\0" + entry.read_bytes())
    return digest.hexdigest()


def is_current(document: Mapping[str, Any]) -> bool:
    """Whether a stored record was made by this code."""
    return document.get("version") == resolution_version()


def changed_paths(previous: PreviousResolution, current: Mapping[str, str]) -> tuple[set[str], set[str]]:
    """(paths whose content is not what the stored record describes, paths added or
    deleted since): a file without a complete record counts as changed."""
    changed = {path for path, blob in current.items() if previous.blobs.get(path) != blob}
    changed |= set(previous.blobs) - set(current)
    return changed, set(current) ^ set(previous.blobs)


def changed_fact_keys(old: Mapping[str, list[str]], new: Mapping[str, list[str]]) -> set[str]:
    """The read keys whose facts differ between two resolutions of a family's files: a fact
    counts for the commit, whichever file states it (a member name two files define is still
    defined when one of them goes)."""
    before = {f for facts in old.values() for f in facts}
    after = {f for facts in new.values() for f in facts}
    return {fact_key(f) for f in before ^ after}


def fact(key: str, value: str) -> str:
    """A fact: reads of ``key`` see ``value`` among others."""
    return f"{key}{_FACT_VALUE}{value}"


def fact_key(stated: str) -> str:
    """The read key a fact is about."""
    return stated.rsplit(_FACT_VALUE, 1)[0]


def fingerprint(rows: Iterable[tuple]) -> str:
    """A hash of rows (branch-free values), whatever their order."""
    return hashlib.blake2b(repr(sorted(rows)).encode("utf-8"), digest_size=16).hexdigest()


def file_counts(subgraph: FileSubgraph, parse_errors: int = 0, size: int = 0, sites: int = 0) -> dict[str, Any]:
    """A file's share of the branch's counts: nodes by label, edges by type, dangling edges
    by reason, resolved in-repo references, its ``Unresolved`` targets (shared between files,
    so counted once over the branch), and what its parse said (syntax errors, bytes, call sites
    whose arguments matter: an update reads the parses of those files alone for routes)."""
    reasons = {u.id: u.props["reason"] for u in subgraph.unresolved}
    return {
        "parse_errors": parse_errors,
        "bytes": size,
        "sites": sites,
        "nodes": dict(Counter(n.label for n in subgraph.nodes)),
        "edges": dict(Counter(e.type for e in subgraph.edges)),
        "dangling": dict(Counter(reasons[e.dst] for e in subgraph.edges if not e.resolved)),
        "resolved": sum(1 for e in subgraph.edges if e.resolved and e.type in REFERENCE_EDGE_TYPES),
        "unresolved": sorted(u.id[BRANCH_PREFIX_LEN:] for u in subgraph.unresolved),
    }


@dataclass(frozen=True, slots=True)
class BranchCounts:
    nodes: dict[str, int]
    edges: dict[str, int]
    dangling: dict[str, int]
    unresolved_rate: float  # dangling in-repo references / all in-repo references


def branch_counts(per_file: Iterable[Mapping[str, Any]]) -> BranchCounts:
    """The branch's counts from its files' shares."""
    nodes: Counter[str] = Counter()
    edges: Counter[str] = Counter()
    dangling: Counter[str] = Counter()
    resolved = 0
    unresolved: set[str] = set()
    for counts in per_file:
        nodes.update(counts["nodes"])
        edges.update(counts["edges"])
        dangling.update(counts["dangling"])
        resolved += counts["resolved"]
        unresolved.update(counts["unresolved"])
    nodes["Unresolved"] = len(unresolved)
    in_repo = resolved + dangling["unresolved"]
    rate = round(dangling["unresolved"] / in_repo, 4) if in_repo else 0.0
    return BranchCounts(dict(sorted(nodes.items())), dict(sorted(edges.items())), dict(sorted(dangling.items())), rate)
