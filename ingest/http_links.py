"""Inferred ``CALLS`` edges across the HTTP boundary: every client call is matched against
every route of the commit, whatever language either is written in, so ``callers``, ``impact``
and ``context`` cross from a TypeScript ``fetch`` to the Python handler it reaches without
special cases.

A match needs a compatible method and a path that fits segment by segment (a route parameter
takes any value; a value the client computes may stand for a route's literal segment, which
scores lower). A route registered in a test's body is that test's own app's: only the test's
requests reach it, before any route of the code. The best-fitting routes win; when several
handlers fit equally, each gets an edge and the confidence is shared. The edge:
``(client)-[:CALLS {inferred: true, via: 'GET /api/orders/{param}', confidence, raw: <the URL
as written>}]->(handler)``; a test making the call also gets a ``TESTED_BY`` edge from the
handler, likewise inferred. A call that fits no route dangles with its URL as written:
``unresolved`` when the repository serves routes (the call names one that does not exist),
``external`` when it serves none or the URL names another host (the API lives elsewhere).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from branchgraph.core.model import Edge, FileSubgraph, Node, node_id
from branchgraph.ingest.http_facts import ClientCall, Route
from branchgraph.ingest.http_paths import PARAM, REST, ClientPath, fit
from branchgraph.ingest.subgraphs import REASON_DYNAMIC, REASON_EXTERNAL, REASON_UNRESOLVED, Target, dedupe_edges

_LOCAL_HOSTS = ("localhost", "127.0.0.1", "0.0.0.0", "[::1]")

# How much each kind of uncertainty costs a match's confidence.
_PARAMETER_BOUND = 0.9  # a route parameter (or a computed value) stood for a segment
_BASE_SKIPPED = 0.8  # the client's URL starts with a base not known statically
_ANY_METHOD = 0.9  # the route serves every method (Django views, Express all)
_UNKNOWN_METHOD = 0.8  # the client's method is not known statically
_OTHER_HOST = 0.8  # an absolute URL names a host: it may be this service, or not
# More handlers than this fitting a call equally well: which one serves it is decided at run
# time (which url table or app is mounted), so the call dangles as ``dynamic``, never a guess.
_MAX_TIED = 3


def http_links(
    repo: str, branch: str, routes: Sequence[Route], clients: Sequence[ClientCall]
) -> dict[str, FileSubgraph]:
    """Per file making client calls, the inferred edges (and the ``Unresolved`` targets of
    the calls that fit no route) it gains, as a subgraph of its own."""
    index = _RouteIndex(routes)
    added: dict[str, FileSubgraph] = {}
    for call in clients:
        links = added.get(call.file)
        if links is None:
            links = added[call.file] = FileSubgraph(call.file, [], [])
        # A route a test registers is its own app's: only that test's requests reach it, and
        # they reach it before any route of the code.
        candidates = index.candidates(call.url)
        own = [r for r in candidates if r.test is not None and r.test == call.test]
        matches = _best_routes(call, own) or _best_routes(call, [r for r in candidates if r.test is None])
        if not matches or len(matches) > _MAX_TIED:
            # Too many fit, or only routes other tests' apps serve: decided at run time.
            dynamic = bool(matches) or bool(_best_routes(call, candidates))
            reason = REASON_DYNAMIC if dynamic else _missing_reason(call, bool(routes))
            _dangle(repo, branch, call, reason, links)
            continue
        for route, confidence in matches:
            if route.handler.id == call.caller.id:
                continue  # served by code of the calling function itself: no edge crosses
            method = call.method or (next(iter(route.methods)) if route.methods and len(route.methods) == 1 else "ANY")
            via = f"{method} {route.path}"
            links.edges.append(_inferred(call.caller, "CALLS", route.handler, call, via, confidence))
            if call.caller_is_test and route.handler.label != "File":
                links.edges.append(_inferred(route.handler, "TESTED_BY", call.caller, call, via, confidence))
    for links in added.values():
        links.edges = dedupe_edges(links.edges)
    return added


def add_links(graph: FileSubgraph, links: FileSubgraph) -> None:
    """A file's inferred HTTP edges added to its subgraph (their targets once)."""
    known = {n.id for n in graph.unresolved}
    graph.unresolved.extend(n for n in links.unresolved if n.id not in known)
    graph.edges.extend(links.edges)


def _inferred(source: Target, edge_type: str, target: Target, call: ClientCall, via: str, confidence: float) -> Edge:
    return Edge(
        source.id,
        source.label,
        edge_type,
        target.id,
        target.label,
        raw=call.raw,
        line=call.line,
        inferred=True,
        via=via,
        confidence=confidence,
    )


class _RouteIndex:
    """Routes by their number of segments and their last segment: a client path fits only
    routes as long as it (or longer, after an unknown base), or those ending in a rest segment;
    and, aligned at their ends either way, only those whose last segment is the client's, a
    parameter, or anything when the client computes it (django's test clients make thousands
    of calls against hundreds of routes)."""

    def __init__(self, routes: Sequence[Route]):
        self.by_length: dict[int, dict[str | None, list[tuple[int, Route]]]] = defaultdict(lambda: defaultdict(list))
        self.open_ended: list[Route] = []
        for position, route in enumerate(routes):
            if route.path.endswith(REST):
                self.open_ended.append(route)
            else:
                self.by_length[_length(route.path)][_last_segment(route.path)].append((position, route))
        self.longest = max(self.by_length, default=0)

    def candidates(self, url: ClientPath) -> list[Route]:
        length = _length(url.path)
        lengths = range(length, self.longest + 1) if url.dynamic_base else (length,)
        last = _last_segment(url.path)
        found: list[Route] = []
        for n in lengths:
            by_last = self.by_length.get(n)
            if by_last is None:
                continue
            if last is None or last == PARAM:
                fitting = [r for group in by_last.values() for r in group]
            else:
                fitting = [*by_last.get(last, ()), *by_last.get(PARAM, ())]
            fitting.sort(key=lambda pair: pair[0])  # the routes' own order, as before the index
            found.extend(route for _, route in fitting)
        return found + self.open_ended


def _last_segment(path: str) -> str | None:
    segments = [s for s in path.split("/") if s]
    return segments[-1] if segments else None


def _length(path: str) -> int:
    return path.count("/") if path != "/" else 0


def _best_routes(call: ClientCall, routes: Sequence[Route]) -> list[tuple[Route, float]]:
    """The routes that fit ``call`` best, each with its confidence."""
    scored = []
    for route in routes:
        if call.method is not None and route.methods is not None and call.method not in route.methods:
            continue
        found = fit(call.url, route.path)
        if found is not None:
            scored.append((found, route))
    if not scored:
        return []
    best = max(f.score for f, _ in scored)
    winners: dict[str, tuple[Route, float]] = {}
    for found, route in scored:
        if found.score != best or route.handler.id in winners:
            continue
        confidence = 1.0
        confidence *= _PARAMETER_BOUND if found.bound_parameter else 1.0
        confidence *= _BASE_SKIPPED if found.base_skipped or call.url.dynamic_base else 1.0
        confidence *= _ANY_METHOD if route.methods is None else 1.0
        confidence *= _UNKNOWN_METHOD if call.method is None else 1.0
        confidence *= _OTHER_HOST if call.url.host and not _is_local(call.url.host) else 1.0
        winners[route.handler.id] = (route, confidence)
    share = len(winners)
    return [(route, round(confidence / share, 3)) for route, confidence in winners.values()]


def _missing_reason(call: ClientCall, serves_routes: bool) -> str:
    elsewhere = not serves_routes or (call.url.host is not None and not _is_local(call.url.host))
    return REASON_EXTERNAL if elsewhere else REASON_UNRESOLVED


def _dangle(repo: str, branch: str, call: ClientCall, reason: str, links: FileSubgraph) -> None:
    target = Node(
        node_id(repo, branch, "", "Unresolved", f"{reason}:{call.raw}"),
        "Unresolved",
        "",
        {"raw": call.raw, "reason": reason, "name": call.url.path.rsplit("/", 1)[-1] or "/"},
    )
    if all(n.id != target.id for n in links.unresolved):
        links.unresolved.append(target)
    links.edges.append(
        Edge(
            call.caller.id,
            call.caller.label,
            "CALLS",
            target.id,
            "Unresolved",
            raw=call.raw,
            line=call.line,
            resolved=False,
            inferred=True,
            via=f"{call.method or 'ANY'} {call.url.path}",
        )
    )


def _is_local(host: str) -> bool:
    return host.split(":", 1)[0] in _LOCAL_HOSTS or host.startswith("[::1]")
