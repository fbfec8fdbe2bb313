"""The web routes and HTTP client calls of a commit, in two steps: what each file's own
resolution finds (``FileEndpoints``: routes before the prefixes their router is mounted under,
client calls before their client's base URL, and the mounts and bases the file declares), then
the commit's routes and calls assembled from every file's (``assemble``).

A file's part depends on what its resolution reads, as its subgraph does, so it is kept with
the file's stored resolution (``to_json``, branch-free) and an update scans again only the files
it resolves again; the prefixes and bases, which cross files, are assembled anew each time."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from branchgraph.core.model import BRANCH_PREFIX_LEN
from branchgraph.ingest.http_paths import ClientPath, join
from branchgraph.ingest.subgraphs import Target

Origin = tuple[str, str]  # (path, variable name) of a router, app or client object

# How a route's own path becomes the commit's: under every prefix its router is mounted under,
# under the prefixes of the Django ``include``s that mount its file's url table, or as it is.
MOUNTED, TABLE, FIXED = "mounted", "table", "fixed"


@dataclass(frozen=True, slots=True)
class Route:
    """A handler serving ``methods`` (None: any method) on ``path`` (normalized). As one file's
    scan finds it (``FileEndpoints``), ``path`` is the file's own and ``mount`` says how the
    commit's prefixes join it (``router``'s, for MOUNTED); ``assemble`` puts them in front."""

    methods: frozenset[str] | None
    path: str
    handler: Target
    file: str
    line: int
    # The test whose body registers the route (its own app's route, which no other test's
    # requests reach); None for a route of the code, a fixture's or a helper's.
    test: str | None = None
    mount: str = FIXED
    router: Origin | None = None


@dataclass(frozen=True, slots=True)
class ClientCall:
    """A request to ``url`` (method None: not known statically) made by ``caller``. As one
    file's scan finds it, ``url`` is as written; ``assemble`` puts the base URL of the client
    object called (``receiver``) in front."""

    method: str | None
    url: ClientPath
    raw: str
    caller: Target
    caller_is_test: bool
    file: str
    line: int
    test: str | None = None  # the test whose body makes the call
    receiver: Origin | None = None


@dataclass(slots=True)
class Endpoints:
    routes: list[Route]
    clients: list[ClientCall]


@dataclass(slots=True)
class FileEndpoints:
    """What one file's resolution finds of the commit's routes and client calls."""

    # Router variable -> the prefix it is made with (``Blueprint(url_prefix=)``).
    prefixes: dict[str, str] = field(default_factory=dict)
    # Client variable -> the base URL it is made with (``Client(base_url=)``).
    bases: dict[str, ClientPath] = field(default_factory=dict)
    # (child router, parent router, prefix, whether the prefix replaces the child's own).
    mounts: list[tuple[Origin, Origin | None, str | None, bool]] = field(default_factory=list)
    # (url table file, prefix): the Django ``include``s of this file's url table.
    includes: list[tuple[str, str]] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)
    clients: list[ClientCall] = field(default_factory=list)

    def to_json(self) -> dict[str, Any] | None:
        """Branch-free (ids without their branch prefix) and path-free (the record's file's),
        None when the file has nothing."""
        doc: dict[str, Any] = {}
        if self.prefixes:
            doc["prefixes"] = self.prefixes
        if self.bases:
            doc["bases"] = {name: _path_json(b) for name, b in self.bases.items()}
        if self.mounts:
            doc["mounts"] = [
                [*child, *(parent or (None, None)), prefix, replaces] for child, parent, prefix, replaces in self.mounts
            ]
        if self.includes:
            doc["includes"] = [list(i) for i in self.includes]
        if self.routes:
            doc["routes"] = [
                [
                    sorted(r.methods) if r.methods is not None else None,
                    r.path,
                    *_target_json(r.handler),
                    r.line,
                    r.mount,
                    *(r.router or (None, None)),
                    _id_json(r.test),
                ]
                for r in self.routes
            ]
        if self.clients:
            doc["clients"] = [
                [
                    c.method,
                    *_path_json(c.url),
                    c.raw,
                    *_target_json(c.caller),
                    c.caller_is_test,
                    c.line,
                    *(c.receiver or (None, None)),
                    _id_json(c.test),
                ]
                for c in self.clients
            ]
        return doc or None

    @classmethod
    def from_json(cls, doc: Mapping[str, Any] | None, prefix: str, file: str) -> FileEndpoints:
        """What ``to_json`` kept of ``file``'s, its ids on the branch whose ids start with ``prefix``."""
        if not doc:
            return cls()
        routes = [
            Route(
                frozenset(methods) if methods is not None else None,
                path,
                Target(prefix + handler, label),
                file,
                line,
                prefix + test if test is not None else None,
                mount,
                (router_path, router_name) if router_path is not None else None,
            )
            for methods, path, handler, label, line, mount, router_path, router_name, test in doc.get("routes", ())
        ]
        clients = [
            ClientCall(
                method,
                ClientPath(url, dynamic, host),
                raw,
                Target(prefix + caller, label),
                is_test,
                file,
                line,
                prefix + test if test is not None else None,
                (receiver_path, receiver_name) if receiver_path is not None else None,
            )
            for method, url, dynamic, host, raw, caller, label, is_test, line, receiver_path, receiver_name, test in doc.get(
                "clients", ()
            )
        ]
        return cls(
            dict(doc.get("prefixes", {})),
            {name: ClientPath(*b) for name, b in doc.get("bases", {}).items()},
            [
                ((cp, cn), (pp, pn) if pp is not None else None, mounted, replaces)
                for cp, cn, pp, pn, mounted, replaces in doc.get("mounts", ())
            ],
            [(table, mounted) for table, mounted in doc.get("includes", ())],
            routes,
            clients,
        )


def _id_json(node_id: str | None) -> str | None:
    return node_id[BRANCH_PREFIX_LEN:] if node_id is not None else None


def _target_json(target: Target) -> tuple[str, str]:
    return target.id[BRANCH_PREFIX_LEN:], target.label


def _path_json(path: ClientPath) -> list[Any]:
    return [path.path, path.dynamic_base, path.host]


class _Mounts:
    """Prefixes routers are mounted under: their own (``Blueprint(url_prefix=)``) and each
    registration on a parent (``register_blueprint``, ``include_router``, ``app.use``,
    Django ``include``), parents followed upward."""

    def __init__(self) -> None:
        self.own: dict[Origin, str] = {}
        self.registrations: dict[Origin, list[tuple[Origin | None, str | None, bool]]] = {}

    def register(self, child: Origin, parent: Origin | None, prefix: str | None, replaces_own: bool) -> None:
        self.registrations.setdefault(child, []).append((parent, prefix, replaces_own))

    def prefixes(self, router: Origin | None, seen: frozenset[Origin] = frozenset()) -> list[str]:
        if router is None:
            return [""]
        own = self.own.get(router, "")
        registered = self.registrations.get(router)
        if not registered or router in seen:
            return [own]
        out: list[str] = []
        for parent, prefix, replaces_own in registered:
            # Flask: a url_prefix given at registration replaces the blueprint's own;
            # FastAPI, Express and Django put it in front.
            mounted = prefix if replaces_own and prefix is not None else join(prefix or "", own)
            out.extend(join(above, mounted) for above in self.prefixes(parent, seen | {router}))
        return sorted(set(out))


def assemble(files: Iterable[tuple[str, FileEndpoints]]) -> Endpoints:
    """The commit's routes (prefixes applied) and client calls (bases applied), from every
    file's part, in the files' order: a Django url table's routes after all others."""
    files = list(files)
    mounts, tables = _Mounts(), _Mounts()
    bases: dict[Origin, ClientPath] = {}
    for path, found in files:
        mounts.own.update(((path, name), prefix) for name, prefix in found.prefixes.items())
        bases.update(((path, name), base) for name, base in found.bases.items())
        for child, parent, prefix, replaces_own in found.mounts:
            mounts.register(child, parent, prefix, replaces_own)
        for table, prefix in found.includes:
            tables.register((table, ""), (path, ""), prefix, False)
    routes: list[Route] = []
    table_routes: list[Route] = []
    clients: list[ClientCall] = []
    for path, found in files:
        for r in found.routes:
            if r.mount == FIXED:
                routes.append(r)
                continue
            under = tables.prefixes((path, "")) if r.mount == TABLE else mounts.prefixes(r.router)
            kept = table_routes if r.mount == TABLE else routes
            kept.extend(dataclasses.replace(r, path=join(prefix, r.path)) for prefix in under)
        for c in found.clients:
            base = bases.get(c.receiver) if c.receiver is not None else None
            if base is not None and c.url.host is None:
                c = dataclasses.replace(c, url=ClientPath(join(base.path, c.url.path), base.dynamic_base, base.host))
            clients.append(c)
    return Endpoints(routes + table_routes, clients)
