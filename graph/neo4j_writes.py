"""Graph writes on Neo4j: schema, per-file subgraph replacement, bulk writes of a new
branch, branch copies and deletions.

Writes are batched ``UNWIND`` statements grouped by label (and by edge type and endpoint
labels), so every ``MATCH``/``MERGE`` goes through a label's unique-id constraint index.
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any

import neo4j

from branchgraph.core.model import BRANCH_PREFIX_LEN, NODE_LABELS, FileSubgraph, Node, branch_prefix
from branchgraph.graph.neo4j_connection import Neo4jConnection
from branchgraph.graph.protocols import GraphWriter, RowProgress

# Files are grouped into one transaction until this many rows; a file is never split.
_ROWS_PER_TRANSACTION = 8_000
# Bulk writes of a new branch: rows per statement, and concurrent writers. Two writers keep
# both cores of a small server busy (measured: 18.5 s -> 12.2 s for django's graph).
_BULK_ROWS = 5_000
_WRITERS = 2
# A branch's ids after its prefix are hex digests: their next digits split a copy in parts.
_ID_DIGITS = "0123456789abcdef"
# Row writes keep their cached plan when the graph's counts move: every lookup in them is a
# unique-id seek, planned so on an empty graph too (tests/test_write_plans.py), while a replan
# after a large branch was written or dropped costs ~30 ms a statement shape — half of a
# 100-file repository's graph write (echo: 1.24 s -> 0.67 s after django came and went).
KEEP_PLAN = "CYPHER replan=skip "


def rows_parameter(rows: list[Any]) -> dict[str, Any]:
    """The rows a write statement unwinds (``$batch.rows``), inside a map: a list parameter's
    length is part of the plan cache's key (1, 2-10, 11-100, ... rows, measured on 5.26), so
    each statement was planned once for every size a write gave it — a bulk write's 5,000 rows,
    an update's 3 or 40 — where a map's contents are not."""
    return {"batch": {"rows": rows}}


def _schema_statements() -> list[tuple[str, str]]:
    """(name, statement) for each ``CREATE CONSTRAINT|INDEX name ...`` in schema/neo4j.cypher."""
    text = resources.files("branchgraph.schema").joinpath("neo4j.cypher").read_text("utf-8")
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
    statements = [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
    return [(s.split()[2], s) for s in statements]


class Neo4jGraphWrites(Neo4jConnection):
    """The ``GraphWriter`` capability on Neo4j."""

    # ----- schema ---------------------------------------------------------------------

    def ensure_schema(self) -> None:
        with self._session() as session:
            existing = {
                r["name"]
                for show in ("SHOW CONSTRAINTS YIELD name", "SHOW INDEXES YIELD name")
                for r in self._autocommit(session, show)
            }
            for name, statement in _schema_statements():
                # Schema statements are slow even when they change nothing: run only new ones.
                if name not in existing:
                    self._autocommit(session, statement)

    # ----- writes ---------------------------------------------------------------------

    def replace_files(
        self, repo: str, branch: str, subgraphs: Sequence[FileSubgraph], progress: RowProgress | None = None
    ) -> dict[str, int]:
        deleted = {"nodes_deleted": 0, "edges_deleted": 0}
        batches: list[list[FileSubgraph]] = []
        rows = _ROWS_PER_TRANSACTION
        for subgraph in subgraphs:
            if rows >= _ROWS_PER_TRANSACTION:
                batches.append([])
                rows = 0
            batches[-1].append(subgraph)
            rows += len(subgraph.nodes) + len(subgraph.edges) + len(subgraph.unresolved)
        # A transaction's edges may reach nodes that a later one of this update writes.
        written_in = {n.id: k for k, batch in enumerate(batches) for s in batch for n in s.nodes}
        done = 0
        for k, batch in enumerate(batches):
            _add(deleted, self._write_batch(repo, branch, batch, functools.partial(_written_after, written_in, k)))
            done += len(batch)
            if progress is not None:
                progress(done, len(subgraphs))
        return deleted

    def _write_batch(
        self, repo: str, branch: str, batch: list[FileSubgraph], written_later: Callable[[str], bool]
    ) -> dict[str, int]:
        def work(tx: neo4j.ManagedTransaction) -> dict[str, int]:
            return _replace_in_tx(tx, repo, branch, batch, written_later)

        with self._session() as session:
            return self._run_translated(lambda: session.execute_write(work))

    def has_branch(self, repo: str, branch: str) -> bool:
        rows = self.read_query(
            "MATCH (f:File {repo: $repo, branch: $branch}) WHERE f.path IS NOT NULL RETURN f.id LIMIT 1",
            {"repo": repo, "branch": branch},
        )
        return bool(rows)

    def write_new_branch(
        self, repo: str, branch: str, subgraphs: Sequence[FileSubgraph], progress: RowProgress | None = None
    ) -> None:
        """Bulk-write a branch that has nothing in the store yet: every node, then every edge,
        in parallel chunks. The branch is not indexed until its metadata is recorded, so
        nothing reads it half-written; what a crash leaves, the next ingest drops before it
        writes the branch again.
        ``progress`` hears (rows written, rows in all) after each chunk."""
        node_jobs = [
            (_create_nodes_query(label), rows[i : i + _BULK_ROWS])
            for label, rows in _node_rows(subgraphs).items()
            for i in range(0, len(rows), _BULK_ROWS)
        ]
        edge_jobs = [
            (_create_edges_query(*shape, "MATCH"), rows[i : i + _BULK_ROWS])
            for shape, rows in _edge_rows(subgraphs).items()
            for i in range(0, len(rows), _BULK_ROWS)
        ]
        wrote = _tally(sum(len(rows) for _, rows in node_jobs + edge_jobs), progress)
        params = {"repo": repo, "branch": branch}
        # Every node is written before the first edge is.
        self._run_parallel([(q, {**params, **rows_parameter(rows)}) for q, rows in node_jobs], wrote)
        self._run_parallel([(q, {**params, **rows_parameter(rows)}) for q, rows in edge_jobs], wrote)

    def _run_parallel(
        self, jobs: list[tuple[str, dict[str, Any]]], done: Callable[[int], None] = lambda rows: None
    ) -> None:
        """Run each (query, parameters) in a write transaction of its own, ``_WRITERS`` at a
        time; ``done`` hears the number of rows a job's ``batch`` held (0 without)."""

        def run(job: tuple[str, dict[str, Any]]) -> None:
            query, params = job
            with self._session() as session:
                # Concurrent edge writes can deadlock on shared targets; the driver retries
                # DeadlockDetected (a transient error) with the whole job.
                self._run_translated(lambda: session.execute_write(lambda tx: tx.run(query, params).consume()))
            done(len(params.get("batch", {}).get("rows", ())))

        with ThreadPoolExecutor(max_workers=_WRITERS) as pool:
            list(pool.map(run, jobs))

    def clone_branch(self, repo: str, source: str, target: str) -> None:
        """Copy every node and edge of ``source`` to ``target`` inside Neo4j, rebranching ids
        (a prefix swap, see ``core.model.node_id``). ``target`` must hold nothing yet.

        Nodes first, by label, then edges by type and end labels, so every lookup of a copied
        end is a unique-index seek. A large group is split by the first hex digit after the
        branch prefix (an index range seek); each part is a write transaction of its own, run
        ``_WRITERS`` at a time (django: 26-54 s -> 15-18 s against one statement per group, batched
        inside by ``CALL ... IN TRANSACTIONS``)."""
        source_prefix = branch_prefix(repo, source)
        params = {"target": target, "prefix": branch_prefix(repo, target), "cut": BRANCH_PREFIX_LEN}
        with self._session() as session:
            labels = self._autocommit(
                session,
                " UNION ALL ".join(
                    f"MATCH (n:{label}) WHERE n.id STARTS WITH $source RETURN '{label}' AS label, count(n) AS rows"
                    for label in NODE_LABELS
                ),
                {"source": source_prefix},
            )
            shapes = self._autocommit(
                session,
                "MATCH (f:File {repo: $repo, branch: $source}) WHERE f.path IS NOT NULL "
                "MATCH (f)-[:DEFINES*0..]->(n)-[r]->(b) "
                "RETURN type(r) AS t, labels(n)[0] AS a, labels(b)[0] AS b, count(*) AS rows",
                {"repo": repo, "source": source},
            )
        self._run_parallel(
            [
                (
                    f"MATCH (n:{group['label']}) WHERE n.id STARTS WITH $part "
                    # One map, so the copy never holds the source's id (the constraint is eager).
                    f"CREATE (m:{group['label']}) SET m = n {{.*, branch: $target, id: $prefix + substring(n.id, $cut)}}",
                    {**params, "part": part},
                )
                for group in labels
                for part in _id_parts(source_prefix, group["rows"])
            ]
        )
        self._run_parallel(
            [
                (
                    f"MATCH (a:{shape['a']}) WHERE a.id STARTS WITH $part "
                    f"MATCH (a)-[r:{shape['t']}]->(b:{shape['b']}) "
                    f"MATCH (a2:{shape['a']} {{id: $prefix + substring(a.id, $cut)}}) "
                    f"MATCH (b2:{shape['b']} {{id: $prefix + substring(b.id, $cut)}}) "
                    f"CREATE (a2)-[r2:{shape['t']}]->(b2) SET r2 = properties(r), r2.branch = $target",
                    {**params, "part": part},
                )
                for shape in shapes
                for part in _id_parts(source_prefix, shape["rows"])
            ]
        )

    def replace_coverage(
        self,
        repo: str,
        branch: str,
        rows: dict[tuple[str, str], list[dict[str, Any]]],
        run: str,
        progress: RowProgress | None = None,
    ) -> int:
        """Make the branch's coverage evidence exactly ``rows`` ((symbol label, test label) ->
        rows of ``s``, ``d`` and ``lines``): the new edges are written first, under the import's
        ``run`` id, then every coverage edge of another run goes — so a crash between the two
        leaves the earlier evidence beside part of the new (more tests, never fewer), and the next
        import removes both. ``progress`` hears (edges written, edges in all). Returns the edges
        removed."""
        params = {"branch": branch, "run": run}
        self._run_parallel(
            [
                (_coverage_edges_query(source, test), {**params, **rows_parameter(part[i : i + _BULK_ROWS])})
                for (source, test), part in rows.items()
                for i in range(0, len(part), _BULK_ROWS)
            ],
            _tally(sum(len(part) for part in rows.values()), progress),
        )
        removed = 0
        with self._session() as session:
            for label in ("Function", "Method"):
                (record,) = self._autocommit(
                    session,
                    f"MATCH (:{label} {{repo: $repo, branch: $branch}})-[r:TESTED_BY]->() "
                    "WHERE r.evidence = 'coverage' AND r.run <> $run "
                    f"CALL (r) {{ DELETE r }} IN TRANSACTIONS OF {_BULK_ROWS} ROWS RETURN count(*) AS n",
                    {"repo": repo, **params},
                )
                removed += int(record["n"])
        return removed

    def delete_branch(self, repo: str, branch: str) -> int:
        """Delete every node and edge of the branch in batches; return the nodes deleted."""
        deleted = 0
        with self._session() as session:
            for label in NODE_LABELS:
                (record,) = self._autocommit(
                    session,
                    f"MATCH (n:{label} {{repo: $repo, branch: $branch}}) "
                    f"CALL (n) {{ DETACH DELETE n }} IN TRANSACTIONS OF {_BULK_ROWS} ROWS RETURN count(*) AS n",
                    {"repo": repo, "branch": branch},
                )
                deleted += int(record["n"])
        return deleted

    def files_except(self, repo: str, branch: str, keep_paths: Iterable[str]) -> list[str]:
        keep = sorted(set(keep_paths))
        # One row holding the list: the driver's per-record work made 2,899 rows of django's
        # paths cost 56-70 ms, the list 3-6 ms (every update reads it).
        rows = self.read_query(
            "MATCH (f:File {repo: $repo, branch: $branch}) WHERE f.path IS NOT NULL AND NOT f.path IN $keep "
            "RETURN collect(f.path) AS paths",
            {"repo": repo, "branch": branch, "keep": keep},
        )
        return list(rows[0]["paths"]) if rows else []

    def delete_files(self, repo: str, branch: str, paths: Sequence[str]) -> dict[str, int]:
        if not paths:
            return {"nodes_deleted": 0, "edges_deleted": 0}
        with self._session() as session:
            record = self._run_translated(
                lambda: session.execute_write(
                    lambda tx: tx.run(
                        _DELETE_FILES_QUERY, rows_parameter(list(paths)), repo=repo, branch=branch
                    ).single(strict=True)
                )
            )
        # An edge between two deleted nodes is counted from both ends: an upper bound.
        return {"nodes_deleted": record["n"], "edges_deleted": record["edges"] or 0}

    def prune_unresolved(self, repo: str, branch: str) -> int:
        query = (
            "MATCH (u:Unresolved {repo: $repo, branch: $branch}) WHERE NOT (u)<--() DELETE u RETURN count(u) AS deleted"
        )
        with self._session() as session:
            record = self._run_translated(
                lambda: session.execute_write(lambda tx: tx.run(query, repo=repo, branch=branch).single(strict=True))
            )
        return int(record["deleted"])


def _tally(total: int, progress: RowProgress | None) -> Callable[[int], None]:
    """What ``_run_parallel``'s writers call with each job's rows: ``progress`` hears (rows
    written so far, ``total``), counted under a lock (the writers are threads)."""
    done = 0
    lock = threading.Lock()

    def wrote(rows: int) -> None:
        nonlocal done
        with lock:
            done += rows
            if progress is not None:
                progress(done, total)

    return wrote


def _id_parts(prefix: str, rows: int) -> list[str]:
    """Id prefixes that split ``rows`` rows of one branch into parts of a transaction's size
    (about ``4 * _BULK_ROWS`` at most): the branch prefix alone, or with every combination
    of the next one, two or three hex digits."""
    digits = 0
    while rows > 4 * _BULK_ROWS * len(_ID_DIGITS) ** digits and digits < 3:
        digits += 1
    return [prefix + "".join(tail) for tail in itertools.product(_ID_DIGITS, repeat=digits)]


def _node_rows(subgraphs: Sequence[FileSubgraph]) -> dict[str, list[dict[str, Any]]]:
    """Node rows grouped by label; shared ``Unresolved`` targets appear once."""
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    unresolved: dict[str, Node] = {}
    for s in subgraphs:
        for n in s.nodes:
            rows[n.label].append({"id": n.id, "props": {**n.props, "path": n.path}})
        unresolved.update((n.id, n) for n in s.unresolved)
    if unresolved:
        rows["Unresolved"] = [{"id": n.id, "props": {**n.props, "path": n.path}} for n in unresolved.values()]
    return rows


def _edge_rows(subgraphs: Sequence[FileSubgraph]) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    """Edge rows grouped by (type, source label, target label), so lookups use label indexes."""
    rows: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for s in subgraphs:
        for e in s.edges:
            assert e.src_label in NODE_LABELS and e.dst_label in NODE_LABELS
            rows[(e.type, e.src_label, e.dst_label)].append(
                {
                    "s": e.src,
                    "d": e.dst,
                    "raw": e.raw,
                    "line": e.line,
                    "lines": list(e.lines or ((e.line,) if e.line is not None else ())) or None,
                    "count": e.count if e.line is not None else None,
                    "resolved": e.resolved,
                    "inferred": e.inferred,
                    "via": e.via,
                    "confidence": e.confidence,
                }
            )
    return rows


# Edge properties as a literal map: null values (no line, no via) leave the property unset.
_EDGE_PROPS = (
    "{branch: $branch, raw: r.raw, line: r.line, lines: r.lines, count: r.count, resolved: r.resolved, "
    "inferred: r.inferred, via: r.via, confidence: r.confidence}"
)


# An update's statements by file path. Their File lookup is a seek of the (repo, branch, path)
# index, which an empty graph plans too (tests/test_write_plans.py), so they keep their plans
# like the row writes: replanned after django's branch was written, they had cost 40-300 ms
# each (60-120 ms of flask's next one-file commit).
_FILES = f"{KEEP_PLAN}UNWIND $batch.rows AS p MATCH (f:File {{repo: $repo, branch: $branch, path: p}}) "
_OWNED_NODES_QUERY = _FILES + "MATCH (f)-[:DEFINES*0..]->(n) RETURN n.id AS id, labels(n)[0] AS label"
_DELETE_OWNED_EDGES_QUERY = (
    _FILES + "MATCH (f)-[:DEFINES*0..]->(n) "
    "OPTIONAL MATCH (n)-[out]->() WHERE type(out) <> 'TESTED_BY' "
    "OPTIONAL MATCH (n)<-[tb:TESTED_BY]-() "
    "WITH collect(DISTINCT out) + collect(DISTINCT tb) AS owned UNWIND owned AS r DELETE r "
    "RETURN count(r) AS n"
)
_DELETE_FILES_QUERY = (
    _FILES + "MATCH (f)-[:DEFINES*0..]->(n) WITH DISTINCT n "
    "WITH n, COUNT { (n)--() } AS degree DETACH DELETE n RETURN count(n) AS n, sum(degree) AS edges"
)


def _create_nodes_query(label: str) -> str:
    return f"{KEEP_PLAN}UNWIND $batch.rows AS r CREATE (n:{label}) SET n = r.props, n.id = r.id, n.repo = $repo, n.branch = $branch"


def _merge_nodes_query(label: str) -> str:
    # Unresolved targets are shared by many files: they are created once and never rewritten.
    action = "ON CREATE SET" if label == "Unresolved" else "SET"
    return f"{KEEP_PLAN}UNWIND $batch.rows AS r MERGE (n:{label} {{id: r.id}}) {action} n += r.props, n.repo = $repo, n.branch = $branch"


def _create_edges_query(edge_type: str, src_label: str, dst_label: str, target: str) -> str:
    """``target`` is MATCH when every target exists, MERGE when it may be written later."""
    on_create = " ON CREATE SET b.repo = $repo, b.branch = $branch" if target == "MERGE" else ""
    return (
        f"{KEEP_PLAN}UNWIND $batch.rows AS r MATCH (a:{src_label} {{id: r.s}}) {target} (b:{dst_label} {{id: r.d}}){on_create} "
        f"CREATE (a)-[:{edge_type} {_EDGE_PROPS}]->(b)"
    )


def _coverage_edges_query(source_label: str, test_label: str) -> str:
    return (
        f"{KEEP_PLAN}UNWIND $batch.rows AS r MATCH (a:{source_label} {{id: r.s}}) MATCH (b:{test_label} {{id: r.d}}) "
        "CREATE (a)-[:TESTED_BY {branch: $branch, resolved: true, evidence: 'coverage', run: $run, "
        "covered_lines: r.lines}]->(b)"
    )


def _delete_nodes_query(label: str) -> str:
    return (
        f"{KEEP_PLAN}UNWIND $batch.rows AS id MATCH (n:{label} {{id: id}}) "
        "WITH n, COUNT { (n)--() } AS degree DETACH DELETE n RETURN count(n) AS n, sum(degree) AS edges"
    )


def _written_after(written_in: dict[str, int], batch: int, node_id: str) -> bool:
    """Whether a transaction after ``batch`` writes the node (``written_in``: node id -> its batch)."""
    return written_in.get(node_id, -1) > batch


def _add(total: dict[str, int], part: dict[str, int]) -> None:
    for key, value in part.items():
        total[key] = total.get(key, 0) + value


def _replace_in_tx(
    tx: neo4j.ManagedTransaction,
    repo: str,
    branch: str,
    batch: list[FileSubgraph],
    written_later: Callable[[str], bool],
) -> dict[str, int]:
    """Replace the subgraphs of a batch of files: drop what they owned, write what they own
    (``written_later``: whether a later transaction writes a node). Returns how many nodes and
    edges went (nodes with every edge into them)."""
    deleted = {"nodes_deleted": 0, "edges_deleted": 0}
    paths = [s.path for s in batch]
    new_ids = {n.id for s in batch for n in s.nodes}
    old = [
        (r["id"], r["label"])
        for r in tx.run(
            _OWNED_NODES_QUERY,
            rows_parameter(paths),
            repo=repo,
            branch=branch,
        )
    ]
    if old:
        # Owned edges go first (they are rewritten below); vanished nodes go with their edges.
        owned = tx.run(
            _DELETE_OWNED_EDGES_QUERY,
            rows_parameter(paths),
            repo=repo,
            branch=branch,
        ).single(strict=True)["n"]
        deleted["edges_deleted"] += owned
        vanished: dict[str, list[str]] = defaultdict(list)
        for node_id, label in old:
            if node_id not in new_ids:
                vanished[label].append(node_id)
        for label, ids in vanished.items():
            record = tx.run(_delete_nodes_query(label), rows_parameter(ids)).single(strict=True)
            deleted["nodes_deleted"] += record["n"]
            deleted["edges_deleted"] += record["edges"] or 0
    for label, rows in _node_rows(batch).items():
        tx.run(_merge_nodes_query(label), rows_parameter(rows), repo=repo, branch=branch).consume()
    for (edge_type, src_label, dst_label), rows in _edge_rows(batch).items():
        # A target a later transaction writes is MERGEd as a keyed node that one completes, so
        # no edge waits for write order. Every other target is there, and its statement is the
        # bulk write's: planned already when this server wrote a branch (~30 ms a new shape,
        # ~75 shapes in django).
        pending = [r for r in rows if written_later(r["d"])]
        present = [r for r in rows if not written_later(r["d"])] if pending else rows
        for lookup, part in (("MERGE", pending), ("MATCH", present)):
            if part:
                query = _create_edges_query(edge_type, src_label, dst_label, lookup)
                tx.run(query, rows_parameter(part), repo=repo, branch=branch).consume()
    return deleted


# mypy proves the backend implements its capability's protocol, signatures included.
_implements: type[GraphWriter] = Neo4jGraphWrites
