"""Turn resolver output or a stored graph into comparable sets of named nodes and edges."""

from __future__ import annotations

from branchgraph.graph.model import FileSubgraph


def _name(props: dict) -> str:
    return props.get("qualname") or props["raw"]


def edges_of_subgraphs(subgraphs: list[FileSubgraph]) -> set[tuple[str, str, str, bool]]:
    names = {n.id: _name(n.props) for s in subgraphs for n in [*s.nodes, *s.unresolved]}
    return {(names[e.src], e.type, names[e.dst], e.resolved) for s in subgraphs for e in s.edges}


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
