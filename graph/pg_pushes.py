"""The push log in PostgreSQL: the pushes a git server reported by webhook, which of them an
ingest has covered (push-to-indexed lag), and the delivery ids that make a replayed webhook
recognisable. Every `serve` and `worker` of a team shares it, so any of them can report lag."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from branchgraph.graph.pg_connection import PgConnection
from branchgraph.graph.protocols import PushLog, PushState


class PgPushes(PgConnection):
    """The ``PushLog`` capability on PostgreSQL."""

    def claim_delivery(self, delivery: str) -> bool:
        """Record a webhook delivery id; False when it was seen before (a replay)."""
        with self._transaction() as cur:
            cur.execute(
                "INSERT INTO webhook_deliveries (delivery) VALUES (%s) ON CONFLICT DO NOTHING RETURNING 1", (delivery,)
            )
            return cur.fetchone() is not None

    def record_push(self, repo: str, branch: str, after_commit: str, commits: int, pushed_at: datetime) -> None:
        with self._transaction() as cur:
            cur.execute(
                "INSERT INTO pushes (repo, branch, after_commit, commits, pushed_at) VALUES (%s, %s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                (repo, branch, after_commit, commits, pushed_at),
            )

    def mark_pushes_indexed(
        self, repo: str, branch: str, indexed_commit: str, fetched_at: datetime, indexed_at: datetime
    ) -> list[float]:
        """Close the pushes an ingest covered: those reported before its fetch began (the
        fetched head includes them). Returns their push-to-indexed lags in seconds."""
        with self._transaction() as cur:
            cur.execute(
                "UPDATE pushes SET indexed_at = %s, indexed_commit = %s "
                "WHERE repo = %s AND branch = %s AND indexed_at IS NULL AND pushed_at <= %s "
                "RETURNING extract(epoch FROM %s - pushed_at)",
                (indexed_at, indexed_commit, repo, branch, fetched_at, indexed_at),
            )
            return [float(lag) for (lag,) in cur.fetchall()]

    def push_lags(self, since: datetime) -> list[float]:
        """Push-to-indexed lags in seconds of the pushes indexed since ``since``."""
        with self._transaction() as cur:
            cur.execute(
                "SELECT extract(epoch FROM indexed_at - pushed_at) FROM pushes WHERE indexed_at >= %s", (since,)
            )
            return [float(lag) for (lag,) in cur.fetchall()]

    def push_states(self, repo: str) -> dict[str, PushState]:
        """Per branch of ``repo`` that was ever pushed: the last push, the lag of the last
        indexed one, and what waits (pushes, commits)."""
        with self._transaction() as cur:
            cur.execute(
                "SELECT branch, max(pushed_at), "
                "(array_agg(extract(epoch FROM indexed_at - pushed_at) ORDER BY indexed_at DESC, pushed_at DESC) "
                "  FILTER (WHERE indexed_at IS NOT NULL))[1], "
                "count(*) FILTER (WHERE indexed_at IS NULL), "
                "coalesce(sum(commits) FILTER (WHERE indexed_at IS NULL), 0), "
                "min(pushed_at) FILTER (WHERE indexed_at IS NULL) "
                "FROM pushes WHERE repo = %s GROUP BY branch",
                (repo,),
            )
            return {
                branch: PushState(last, None if lag is None else float(lag), int(pending), int(commits), oldest)
                for branch, last, lag, pending, commits, oldest in cur.fetchall()
            }

    def pushed_repos(self) -> list[str]:
        with self._transaction() as cur:
            cur.execute("SELECT DISTINCT repo FROM pushes ORDER BY repo")
            return [repo for (repo,) in cur.fetchall()]

    def forget_pushes(self, repo: str, branches: Sequence[str] | None = None) -> None:
        """Drop the push log of some branches (all of ``repo`` with None)."""
        with self._transaction() as cur:
            if branches is None:
                cur.execute("DELETE FROM pushes WHERE repo = %s", (repo,))
            else:
                cur.execute("DELETE FROM pushes WHERE repo = %s AND branch = ANY(%s)", (repo, list(branches)))

    def expire_service_log(self, before: datetime) -> None:
        """Forget indexed pushes and delivery ids older than ``before``, so the log stays small.
        A delivery replayed after its id was forgotten is accepted again; what it can do is
        harmless by design: a job indexes the branch head the worker fetches, never a commit a
        payload names."""
        with self._transaction() as cur:
            cur.execute("DELETE FROM pushes WHERE indexed_at < %s", (before,))
            cur.execute("DELETE FROM webhook_deliveries WHERE received_at < %s", (before,))


_implements: type[PushLog] = PgPushes
