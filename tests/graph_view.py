"""Turn resolver output or a stored graph into comparable sets of named nodes and edges."""

from __future__ import annotations

from branchgraph.core.extract import extract
from branchgraph.core.languages import is_project_file, language_for_path
from branchgraph.core.model import FileSubgraph
from branchgraph.ingest.resolvers import resolve_commit
from branchgraph.ingest.subgraphs import ParsedSource


def sql(pg_store, statement: str, params=None) -> list[tuple]:
    """Rows of one statement run on a connection of the store (none for a statement without)."""
    with pg_store.connection() as conn:
        cur = conn.execute(statement, params)
        return cur.fetchall() if cur.description else []


def parse_sources(sources: dict[str, bytes]) -> tuple[list[ParsedSource], dict[str, bytes]]:
    """A commit's files given by path, parsed as ingest parses them, and its project files
    (package.json, ...) that resolvers read."""
    files, project = [], {}
    for path, data in sources.items():
        if is_project_file(path):
            project[path] = data
        spec = language_for_path(path)
        if spec is not None:
            files.append(ParsedSource(path, f"blob-{path}", extract(spec.name, data)))
    return files, project


def resolve_sources(sources: dict[str, bytes], repo: str, branch: str = "main") -> list[FileSubgraph]:
    """Parse and resolve a commit's files given by path, without any store, the way ingest
    does: each language by its resolver, project files handed along."""
    return resolve_commit(repo, branch, *parse_sources(sources))


def _name(props: dict) -> str:
    return props.get("qualname") or props["raw"]


def inferred_of_subgraphs(subgraphs: list[FileSubgraph]) -> set[tuple[str, str, str, bool, str | None, float | None]]:
    """The inferred edges: (source, type, target, resolved, via, confidence)."""
    names = {n.id: _name(n.props) for s in subgraphs for n in [*s.nodes, *s.unresolved]}
    return {
        (names[e.src], e.type, names[e.dst], e.resolved, e.via, e.confidence)
        for s in subgraphs
        for e in s.edges
        if e.inferred
    }


def edges_of_subgraphs(subgraphs: list[FileSubgraph]) -> set[tuple[str, str, str, bool]]:
    names = {n.id: _name(n.props) for s in subgraphs for n in [*s.nodes, *s.unresolved]}
    return {(names[e.src], e.type, names[e.dst], e.resolved) for s in subgraphs for e in s.edges}


def references_of(edges: set[tuple[str, str, str, bool]]) -> set[tuple[str, str]]:
    """The (source, target) of every REFERENCES edge: what names what as a value."""
    return {(a, b) for a, t, b, _ in edges if t == "REFERENCES"}


def symbols_of_subgraphs(subgraphs: list[FileSubgraph]) -> dict[tuple[str, str], tuple[int, int, bool]]:
    return {
        (n.label, n.props["qualname"]): (n.props["start_line"], n.props["end_line"], n.props["is_test"])
        for s in subgraphs
        for n in s.nodes
        if n.label != "File"
    }


def unresolved_of_subgraphs(subgraphs: list[FileSubgraph]) -> dict[str, str]:
    return {n.props["raw"]: n.props["reason"] for s in subgraphs for n in s.unresolved}


def stored_edges(store, repo: str, branch: str) -> set[tuple[str, str, str, bool]]:
    rows = store.read_query(
        "MATCH (a {repo: $repo, branch: $branch})-[r]->(b) "
        "RETURN coalesce(a.qualname, a.raw) AS a, type(r) AS t, coalesce(b.qualname, b.raw) AS b, "
        "r.resolved AS resolved, r.branch AS edge_branch, b.branch AS b_branch",
        {"repo": repo, "branch": branch},
        limit=100_000,
    )
    assert all(r["edge_branch"] == branch and r["b_branch"] == branch for r in rows)
    return {(r["a"], r["t"], r["b"], r["resolved"]) for r in rows}


def stored_edge_count(store, repo: str, branch: str) -> int:
    return store.read_query(
        "MATCH ({repo: $repo, branch: $branch})-[r]->() RETURN count(r) AS n", {"repo": repo, "branch": branch}
    )[0]["n"]


def snapshot(store, pg_store, repo: str, branch: str) -> dict:
    """Everything the equivalence oracle compares, with branch-specific ids replaced by what
    the nodes are: nodes by (path, label, qualname, span, content hash), edges by endpoints,
    type, resolved and raw (as a multiset, so duplicates show), vector rows by node."""
    from collections import Counter

    nodes = store.read_query(
        "MATCH (n {repo: $repo, branch: $branch}) RETURN n.id AS id, labels(n)[0] AS label, n.path AS path, "
        "coalesce(n.qualname, n.raw) AS name, n.start_line AS s, n.end_line AS e, n.content_hash AS h, n.reason AS reason",
        {"repo": repo, "branch": branch},
        limit=1_000_000,
    )
    key = {r["id"]: (r["path"], r["label"], r["name"]) for r in nodes}
    edges = store.read_query(
        "MATCH (a {repo: $repo, branch: $branch})-[r]->(b) RETURN a.id AS a, type(r) AS t, b.id AS b, "
        "r.resolved AS resolved, r.raw AS raw, r.branch AS edge_branch, r.inferred AS inferred, r.via AS via, "
        "r.confidence AS confidence",
        {"repo": repo, "branch": branch},
        limit=1_000_000,
    )
    assert all(r["edge_branch"] == branch for r in edges)
    vectors = sql(
        pg_store,
        "SELECT node_id, content_key, start_line, end_line, has_conflict FROM node_embeddings WHERE repo = %s AND branch = %s",
        (repo, branch),
    )
    return {
        "nodes": Counter((r["path"], r["label"], r["name"], r["s"], r["e"], r["h"], r["reason"]) for r in nodes),
        "edges": Counter(
            (key[r["a"]], r["t"], key[r["b"]], r["resolved"], r["raw"], r["inferred"], r["via"], r["confidence"])
            for r in edges
        ),
        # The node rows' spans must follow the graph's through every update and branch clone.
        "vectors": Counter(
            (key.get(node_id), content, start, end, conflict) for node_id, content, start, end, conflict in vectors
        ),
    }
