"""Index state in PostgreSQL: per file the blob and subgraph fingerprint the graph holds,
per branch its record (indexed commit, counts, renames, conflicts) and open run, the
per-commit cache of what its recent commits changed, and the advisory lock that keeps two ingests of one branch
apart."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any

from branchgraph.core.errors import IngestLocked
from branchgraph.graph.pg_connection import PgConnection, connect, scalar
from branchgraph.graph.protocols import READ_WAIT_S, BranchRecord, FileState, IndexState


class PgIndexState(PgConnection):
    """The ``IndexState`` capability on PostgreSQL."""

    def file_states(self, repo: str, branch: str) -> dict[str, tuple[str, str | None]]:
        """path -> (blob_sha, fingerprint) of what the graph holds; a None fingerprint means a
        rewrite may not have finished."""
        with self._transaction() as cur:
            cur.execute(
                "SELECT path, blob_sha, fingerprint FROM file_states WHERE repo = %s AND branch = %s", (repo, branch)
            )
            return {path: (blob, fp) for path, blob, fp in cur.fetchall()}

    def file_blobs(self, repo: str, branch: str, paths: Sequence[str]) -> dict[str, str]:
        """path -> blob SHA the branch's graph was built from, for the given paths."""
        with self._transaction() as cur:
            cur.execute(
                "SELECT path, blob_sha FROM file_states WHERE repo = %s AND branch = %s AND path = ANY(%s)",
                (repo, branch, list(paths)),
            )
            return dict(cur.fetchall())

    def mark_files_dirty(self, repo: str, branch: str, paths: Sequence[str]) -> None:
        """Before rewriting files: forget their fingerprints, so a crash forces a rewrite."""
        if not paths:
            return
        with self._transaction() as cur:
            cur.executemany(
                "INSERT INTO file_states (repo, branch, path, blob_sha, fingerprint) VALUES (%s, %s, %s, '', NULL) "
                "ON CONFLICT (repo, branch, path) DO UPDATE SET fingerprint = NULL",
                [(repo, branch, p) for p in paths],
            )

    def set_file_states(self, repo: str, branch: str, states: Sequence[FileState], removed: Sequence[str] = ()) -> None:
        """Record files' states after their subgraphs (and vector rows) were written."""
        with self._transaction() as cur:
            if removed:
                cur.execute(
                    "DELETE FROM file_states WHERE repo = %s AND branch = %s AND path = ANY(%s)",
                    (repo, branch, list(removed)),
                )
            cur.executemany(
                "INSERT INTO file_states (repo, branch, path, blob_sha, fingerprint, reads, resolution) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (repo, branch, path) DO UPDATE SET blob_sha = EXCLUDED.blob_sha, "
                "fingerprint = EXCLUDED.fingerprint, reads = EXCLUDED.reads, resolution = EXCLUDED.resolution",
                [
                    (
                        repo,
                        branch,
                        s.path,
                        s.blob_sha,
                        s.fingerprint,
                        s.reads,
                        json.dumps(s.resolution) if s.resolution is not None else None,
                    )
                    for s in states
                ],
            )

    def update_resolutions(self, repo: str, branch: str, resolutions: Mapping[str, dict[str, Any]]) -> None:
        """Replace files' resolution records, their states and reads unchanged."""
        if not resolutions:
            return
        with self._transaction() as cur:
            cur.executemany(
                "UPDATE file_states SET resolution = %s WHERE repo = %s AND branch = %s AND path = %s",
                [(json.dumps(r), repo, branch, path) for path, r in resolutions.items()],
            )

    def file_resolutions(self, repo: str, branch: str) -> list[FileState]:
        """Every file's state with its resolution record (the read lists stay in the store:
        ``dependents`` queries them)."""
        with self._transaction() as cur:
            cur.execute(
                "SELECT path, blob_sha, fingerprint, resolution FROM file_states WHERE repo = %s AND branch = %s",
                (repo, branch),
            )
            return [FileState(path, blob, fp, None, resolution) for path, blob, fp, resolution in cur.fetchall()]

    def dependents(self, repo: str, branch: str, keys: Collection[str]) -> set[str]:
        """The files whose resolution read any of ``keys``."""
        if not keys:
            return set()
        with self._transaction() as cur:
            cur.execute(
                "SELECT path FROM file_states WHERE repo = %s AND branch = %s AND reads && %s::text[]",
                (repo, branch, sorted(keys)),
            )
            return {path for (path,) in cur.fetchall()}

    def clone_branch(self, repo: str, source: str, target: str, target_prefix: str, prefix_len: int) -> None:
        """Copy the source branch's node rows and file states to a new branch, rebranching ids."""
        with self._transaction() as cur:
            cur.execute(
                "INSERT INTO node_embeddings (repo, branch, node_id, label, path, qualname, content_key, lexical, "
                "lexical_tsv, symbol_hash, start_line, end_line, has_conflict, lexical_len) "
                "SELECT repo, %s, %s || substr(node_id, %s), label, path, qualname, content_key, lexical, "
                "lexical_tsv, symbol_hash, start_line, end_line, has_conflict, lexical_len "
                "FROM node_embeddings WHERE repo = %s AND branch = %s ON CONFLICT DO NOTHING",
                (target, target_prefix, prefix_len + 1, repo, source),
            )
            cur.execute(
                "INSERT INTO file_states (repo, branch, path, blob_sha, fingerprint, reads, resolution) "
                "SELECT repo, %s, path, blob_sha, fingerprint, reads, resolution FROM file_states "
                "WHERE repo = %s AND branch = %s "
                "ON CONFLICT DO NOTHING",
                (target, repo, source),
            )

    def delete_branch(self, repo: str, branch: str) -> None:
        """Drop a branch's rows; the shared caches (embeddings, parses) stay."""
        with self._transaction() as cur:
            for table in ("node_embeddings", "file_states", "ingest_runs", "branches"):
                cur.execute(f"DELETE FROM {table} WHERE repo = %s AND branch = %s", (repo, branch))

    def branch_is_new(self, repo: str, branch: str) -> bool:
        """True when the branch was never indexed and no ingest of it ever started."""
        with self._transaction() as cur:
            cur.execute(
                "SELECT EXISTS (SELECT 1 FROM branches WHERE repo = %s AND branch = %s) "
                "OR EXISTS (SELECT 1 FROM ingest_runs WHERE repo = %s AND branch = %s)",
                (repo, branch, repo, branch),
            )
            return not scalar(cur)

    def start_run(self, repo: str, branch: str, commit: str) -> None:
        with self._transaction() as cur:
            cur.execute(
                "INSERT INTO ingest_runs (repo, branch, target) VALUES (%s, %s, %s) "
                "ON CONFLICT (repo, branch) DO UPDATE SET target = EXCLUDED.target, started_at = now()",
                (repo, branch, commit),
            )

    def record_branch(self, record: BranchRecord) -> None:
        """Advance the branch to its new indexed commit and close the run, atomically."""
        with self._transaction() as cur:
            cur.execute("DELETE FROM ingest_runs WHERE repo = %s AND branch = %s", (record.repo, record.branch))
            cur.execute(
                "INSERT INTO branches (repo, branch, repo_path, indexed_commit, indexed_at, embedder, counts, "
                "unresolved_rate, base_branch, rename_map, conflict_files) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (repo, branch) DO UPDATE SET "
                "repo_path = EXCLUDED.repo_path, indexed_commit = EXCLUDED.indexed_commit, "
                "indexed_at = EXCLUDED.indexed_at, embedder = EXCLUDED.embedder, counts = EXCLUDED.counts, "
                "unresolved_rate = EXCLUDED.unresolved_rate, base_branch = EXCLUDED.base_branch, "
                "rename_map = EXCLUDED.rename_map, conflict_files = EXCLUDED.conflict_files",
                (
                    record.repo,
                    record.branch,
                    record.repo_path,
                    record.indexed_commit,
                    record.indexed_at,
                    record.embedder,
                    json.dumps(record.counts),
                    record.unresolved_rate,
                    record.base_branch,
                    json.dumps(record.rename_map),
                    json.dumps(record.conflict_files),
                ),
            )
            cur.execute(
                "DELETE FROM tree_listings t WHERE repo = %s AND NOT EXISTS "
                "(SELECT 1 FROM branches b WHERE b.repo = t.repo AND b.indexed_commit = t.commit)",
                (record.repo,),
            )

    def branch_record(self, repo: str, branch: str) -> BranchRecord | None:
        return next((r for r in self.branches(repo) if r.branch == branch), None)

    def branches(self, repo: str | None = None) -> list[BranchRecord]:
        with self._transaction() as cur:
            cur.execute(
                "SELECT repo, branch, repo_path, indexed_commit, indexed_at, embedder, counts, unresolved_rate, "
                "base_branch, rename_map, conflict_files "
                "FROM branches WHERE %s::text IS NULL OR repo = %s ORDER BY repo, branch",
                (repo, repo),
            )
            return [BranchRecord(*row) for row in cur.fetchall()]

    def path_changes(self, repo: str, commit: str, depth: int) -> list[list[str]] | None:
        with self._transaction() as cur:
            cur.execute(
                "SELECT changes FROM path_changes WHERE repo = %s AND commit = %s AND depth = %s", (repo, commit, depth)
            )
            row = cur.fetchone()
            return None if row is None else [[str(p) for p in paths] for paths in row[0]]

    def put_path_changes(self, repo: str, commit: str, depth: int, changes: Sequence[Sequence[str]]) -> None:
        with self._transaction() as cur:
            cur.execute(
                "INSERT INTO path_changes (repo, commit, depth, changes) VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (repo, commit, depth, json.dumps([list(paths) for paths in changes])),
            )

    def tree_listing(self, repo: str, commit: str) -> bytes | None:
        with self._transaction() as cur:
            cur.execute("SELECT listing FROM tree_listings WHERE repo = %s AND commit = %s", (repo, commit))
            row = cur.fetchone()
            return None if row is None else bytes(row[0])

    def put_tree_listing(self, repo: str, commit: str, listing: bytes) -> None:
        with self._transaction() as cur:
            cur.execute(
                "INSERT INTO tree_listings (repo, commit, listing) VALUES (%s, %s, %s) "
                "ON CONFLICT (repo, commit) DO UPDATE SET listing = EXCLUDED.listing",
                (repo, commit, listing),
            )

    @contextlib.contextmanager
    def writing(self, repo: str, branch: str) -> Iterator[None]:
        """Hold the branch's write lock while an ingest changes what readers see (its graph,
        vector rows and record); readers (``reading``) wait for it or get told they did not."""
        lock_conn = connect(self.url)  # its own session: a crash releases the lock with it
        try:
            lock_conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (_write_key(repo, branch),))
            yield
        finally:
            lock_conn.close()

    @contextlib.contextmanager
    def reading(self, repo: str, branch: str, wait_s: float = READ_WAIT_S) -> Iterator[bool]:
        """Share the branch's read lock for one answer, so it sees one indexed commit: waits up
        to ``wait_s`` for an ingest's writes to finish; yields whether the lock was had."""
        key = _write_key(repo, branch)
        deadline = time.monotonic() + wait_s
        with self.connection() as conn:
            while True:
                held = scalar(conn.execute("SELECT pg_try_advisory_lock_shared(hashtextextended(%s, 0))", (key,)))
                if held or time.monotonic() >= deadline:
                    break
                time.sleep(0.02)
            try:
                yield bool(held)
            finally:
                if held:
                    conn.execute("SELECT pg_advisory_unlock_shared(hashtextextended(%s, 0))", (key,))

    @contextlib.contextmanager
    def ingest_lock(self, repo: str, branch: str, wait: bool = True, poll_s: float = 0.5) -> Iterator[None]:
        """Hold the advisory lock that keeps two ingests of one branch from interleaving."""
        key = f"branchgraph-ingest\x1f{repo}\x1f{branch}"
        lock_conn = connect(self.url)
        try:
            while True:
                acquired = scalar(lock_conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", (key,)))
                if acquired:
                    break
                if not wait:
                    raise IngestLocked(f"another ingest of {repo}@{branch} is running")
                time.sleep(poll_s)
            yield
        finally:
            # Closing the session releases the lock even if the unlock below never runs.
            lock_conn.close()


def _write_key(repo: str, branch: str) -> str:
    return f"branchgraph-write\x1f{repo}\x1f{branch}"


# mypy proves the backend implements its capability's protocol, signatures included.
_implements: type[IndexState] = PgIndexState
