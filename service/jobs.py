"""The job queue: procrastinate's tables in the PostgreSQL branchgraph already uses.

Jobs are few and named: ``index_branch(repo, branch)`` fetches the remote into the worker's
mirror and indexes the tip of the branch; ``drop_branch(repo, branch)`` removes a branch the
git server deleted; ``apply_retention`` runs every few minutes and drops branches untouched
for the configured ``retention``. For one (repository, branch):

- a newer push supersedes a queued job: at most one index job waits (procrastinate's queueing
  lock), and it indexes whatever the branch holds when it runs, so it covers every push that
  came before it started;
- two jobs never run at once (procrastinate's lock; the ingest's advisory lock stays the last
  line, also against a CI job or a hook indexing the same branch);
- a failed job is retried with exponential backoff; a job of a killed worker is found by the
  worker's stale heartbeat and handed to another worker, and the ingest converges (a crash
  never leaves the graph half-written).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import procrastinate
import psycopg
from procrastinate.exceptions import AlreadyEnqueued
from procrastinate.retry import BaseRetryStrategy, RetryDecision

from branchgraph.api import Indexer
from branchgraph.core import git
from branchgraph.core.config import Config, parse_age
from branchgraph.core.errors import ConfigError, GitError, NotIndexed
from branchgraph.service.mirrors import fetch_mirror, mirror_path, redact_url

QUEUE = "branchgraph"
INDEX_TASK = "branchgraph.index_branch"
DROP_TASK = "branchgraph.drop_branch"
RETENTION_TASK = "branchgraph.apply_retention"
RETENTION_CRON = "*/5 * * * *"
# Pushes and delivery ids are kept this long, jobs (their states feed /metrics) too.
SERVICE_LOG_DAYS = 14
MAX_ATTEMPTS = 6  # the first run and five retries, 2 s to 32 s apart

log = logging.getLogger("branchgraph.worker")


def ensure_queue_schema(url: str) -> None:
    """Create procrastinate's tables once (its schema has no IF NOT EXISTS; an advisory lock
    keeps a worker and a server starting together from both creating it)."""
    from procrastinate.schema import SchemaManager

    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(4243)")
        row = conn.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL").fetchone()
        if not (row and row[0]):
            conn.execute(SchemaManager.get_schema())


def _lock(repo: str, branch: str) -> str:
    return f"branchgraph\x1f{repo}\x1f{branch}"


@dataclass(frozen=True, slots=True)
class Enqueued:
    job_id: int | None  # None: merged into the job already waiting for this branch
    task: str
    repo: str
    branch: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "job_id": self.job_id,
            "task": self.task,
            "repo": self.repo,
            "branch": self.branch,
            "queued": "merged into the waiting job" if self.job_id is None else "new job",
        }


@dataclass(slots=True)
class QueueStats:
    """What the queue holds now and did lately (``window``), for /metrics."""

    jobs: dict[tuple[str, str], int] = field(default_factory=dict)  # (task, status) -> jobs
    oldest_waiting_s: float = 0.0
    durations: dict[str, list[float]] = field(default_factory=dict)  # task -> seconds of finished runs
    failures: dict[str, int] = field(default_factory=dict)  # task -> failed attempts

    @property
    def depth(self) -> int:
        return sum(n for (_, status), n in self.jobs.items() if status == "todo")


class Queue:
    """The enqueueing side (the webhook handlers of ``serve``): defers jobs, reads queue
    state. Thread-safe: FastAPI runs the handlers on a thread pool."""

    def __init__(self, url: str):
        ensure_queue_schema(url)
        self.url = url
        self.app = procrastinate.App(connector=procrastinate.SyncPsycopgConnector(conninfo=url))
        self.app.open()

    def close(self) -> None:
        self.app.close()

    def enqueue_index(self, repo: str, branch: str) -> Enqueued:
        return self._enqueue(INDEX_TASK, repo, branch)

    def enqueue_drop(self, repo: str, branch: str) -> Enqueued:
        return self._enqueue(DROP_TASK, repo, branch)

    def _enqueue(self, task: str, repo: str, branch: str) -> Enqueued:
        # One lock per branch for every task; one waiting job per task and branch.
        deferrer = self.app.configure_task(
            task, queue=QUEUE, lock=_lock(repo, branch), queueing_lock=task + _lock(repo, branch)
        )
        try:
            return Enqueued(deferrer.defer(repo=repo, branch=branch), task, repo, branch)
        except AlreadyEnqueued:
            return Enqueued(None, task, repo, branch)

    def stats(self, window: timedelta = timedelta(hours=24)) -> QueueStats:
        since = datetime.now(UTC) - window
        out = QueueStats()
        with psycopg.connect(self.url, autocommit=True) as conn:
            for task, status, n in conn.execute(
                "SELECT task_name, status::text, count(*) FROM procrastinate_jobs WHERE queue_name = %s "
                "GROUP BY task_name, status",
                (QUEUE,),
            ):
                out.jobs[(task, status)] = n
            row = conn.execute(
                "SELECT extract(epoch FROM now() - min(coalesce(j.scheduled_at, e.at))) FROM procrastinate_jobs j "
                "JOIN procrastinate_events e ON e.job_id = j.id AND e.type = 'deferred' "
                "WHERE j.queue_name = %s AND j.status = 'todo' AND coalesce(j.scheduled_at, e.at) <= now()",
                (QUEUE,),
            ).fetchone()
            out.oldest_waiting_s = float(row[0]) if row and row[0] is not None else 0.0
            # A run: from a 'started' event to the next event of that job that ends it.
            for task, seconds in conn.execute(
                "SELECT j.task_name, extract(epoch FROM ended.at - started.at) FROM procrastinate_events started "
                "JOIN procrastinate_jobs j ON j.id = started.job_id "
                "JOIN LATERAL (SELECT at FROM procrastinate_events e WHERE e.job_id = started.job_id "
                "  AND e.at >= started.at AND e.id > started.id "
                "  AND e.type IN ('succeeded', 'failed', 'deferred_for_retry', 'aborted') ORDER BY e.id LIMIT 1) ended "
                "ON true WHERE started.type = 'started' AND j.queue_name = %s AND started.at >= %s",
                (QUEUE, since),
            ):
                out.durations.setdefault(task, []).append(float(seconds))
            for task, n in conn.execute(
                "SELECT j.task_name, count(*) FROM procrastinate_events e JOIN procrastinate_jobs j ON j.id = e.job_id "
                "WHERE e.type IN ('failed', 'deferred_for_retry') AND j.queue_name = %s AND e.at >= %s "
                "GROUP BY j.task_name",
                (QUEUE, since),
            ):
                out.failures[task] = n
        return out


class _Backoff(BaseRetryStrategy):
    """Retry what may pass (a network or store outage, another ingest holding the branch);
    a configuration error fails at once."""

    def get_retry_decision(self, *, exception: BaseException, job: Any) -> RetryDecision | None:
        if isinstance(exception, ConfigError) or job.attempts + 1 >= MAX_ATTEMPTS:
            return None
        return RetryDecision(retry_in={"seconds": 2 ** (job.attempts + 1)})


class Worker:
    """What a worker's jobs do, on the stores and embedder it keeps open."""

    def __init__(self, config: Config, indexer: Indexer):
        if not config.remotes:
            raise ConfigError("no remotes configured: a worker fetches from `remotes` (BRANCHGRAPH_REMOTES)")
        self.config = config
        self.indexer = indexer
        self.workspace = Path(config.workspace_dir or ".")

    def _url(self, repo: str) -> str:
        url = self.config.remotes.get(repo)
        if url is None:
            raise ConfigError(f"no remote named {repo!r} is configured")
        return url

    def index(self, repo: str, branch: str) -> dict[str, Any]:
        started = time.monotonic()
        fetched_at = datetime.now(UTC)
        url = self._url(repo)
        fetched = fetch_mirror(url, mirror_path(self.workspace, repo))
        if branch not in fetched.heads:
            nodes = self.drop(repo, branch)
            return {"dropped": branch, "nodes": nodes}
        summary = self.indexer.ingest(fetched.path, branch=branch, name=repo)
        lags = self.indexer.pg.mark_pushes_indexed(repo, branch, summary.commit, fetched_at, datetime.now(UTC))
        log.info(
            "indexed %s@%s at %s from %s in %.1f s%s",
            repo,
            branch,
            summary.commit[:12],
            redact_url(url),
            time.monotonic() - started,
            f" ({len(lags)} pushes, push-to-indexed up to {max(lags):.1f} s)" if lags else "",
        )
        return {"commit": summary.commit, "strategy": summary.strategy, "lags": lags}

    def drop(self, repo: str, branch: str) -> int:
        nodes = self.indexer.drop(repo, branch)
        log.info("dropped %s@%s: %d nodes", repo, branch, nodes)
        return nodes

    def retention(self) -> None:
        """Drop branches the remote no longer has and, with ``retention`` set, branches not
        indexed for that long (never the remote's default branch); expire the push log."""
        older_than = parse_age(self.config.retention) if self.config.retention else None
        for repo in sorted(self.config.remotes):
            path = mirror_path(self.workspace, repo)
            if not path.exists():
                continue  # never fetched: nothing indexed from it
            try:  # a branch deleted while a webhook was lost is seen here
                fetch_mirror(self.config.remotes[repo], path)
            except GitError as exc:
                log.warning("retention: %s; branches of %s are kept until a fetch succeeds", exc, repo)
                continue
            with contextlib.suppress(NotIndexed):
                default = _default_branch(path)
                pruned = self.indexer.prune(
                    path, repo, older_than=older_than or timedelta(days=36500), keep={default} if default else set()
                )
                for p in pruned:
                    log.info("retention dropped %s@%s (%s)", repo, p.branch, p.reason)
        self.indexer.pg.expire_service_log(datetime.now(UTC) - timedelta(days=SERVICE_LOG_DAYS))


def _default_branch(mirror: Path) -> str | None:
    try:
        return git.current_branch(git.open_repo(mirror))
    except GitError:
        return None


def worker_app(worker: Worker, url: str) -> procrastinate.App:
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=url))

    @app.task(name=INDEX_TASK, queue=QUEUE, retry=_Backoff())
    def index_branch(repo: str, branch: str) -> dict[str, Any]:
        return worker.index(repo, branch)

    @app.task(name=DROP_TASK, queue=QUEUE, retry=_Backoff())
    def drop_branch(repo: str, branch: str) -> int:
        return worker.drop(repo, branch)

    @app.periodic(cron=RETENTION_CRON, periodic_id="retention")
    @app.task(name=RETENTION_TASK, queue=QUEUE, retry=_Backoff(), queueing_lock="branchgraph-retention")
    async def apply_retention(timestamp: int) -> None:
        await asyncio.to_thread(worker.retention)
        # Finished jobs go after as long as the push log (their states and times feed /metrics).
        await app.job_manager.delete_old_jobs(
            nb_hours=SERVICE_LOG_DAYS * 24,
            queue=QUEUE,
            include_failed=True,
            include_cancelled=True,
            include_aborted=True,
        )

    return app


@dataclass(frozen=True, slots=True)
class WorkerOptions:
    concurrency: int = 1
    until_idle: bool = False  # exit when the queue is empty (benchmarks, one-shot runs)
    heartbeat_s: float = 10.0
    stalled_after_s: float = 30.0  # a worker silent this long is dead: its jobs go to others
    name: str | None = None


def run_worker(config: Config, options: WorkerOptions) -> None:
    """Run jobs until interrupted (or, ``until_idle``, until none is left). ``config`` names
    both stores (``stores.service_config``)."""
    if not config.database_url:
        raise ConfigError("the worker needs the shared PostgreSQL: set BRANCHGRAPH_DATABASE_URL")
    ensure_queue_schema(config.database_url)
    with Indexer(config, Path(config.workspace_dir or ".")) as indexer:
        app = worker_app(Worker(config, indexer), config.database_url)
        asyncio.run(_run(app, options))


async def _run(app: procrastinate.App, options: WorkerOptions) -> None:
    async with app.open_async():
        requeue = asyncio.create_task(_requeue_stalled(app, options.stalled_after_s))
        try:
            await app.run_worker_async(
                queues=[QUEUE],
                name=options.name or "branchgraph-worker",
                concurrency=options.concurrency,
                wait=not options.until_idle,
                update_heartbeat_interval=options.heartbeat_s,
                stalled_worker_timeout=options.stalled_after_s,
                listen_notify=True,
            )
        finally:
            requeue.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await requeue


async def _requeue_stalled(app: procrastinate.App, stalled_after_s: float) -> None:
    """Hand the jobs of workers that stopped beating to the queue again (every worker does
    this; a job another worker requeued first is skipped)."""
    while True:
        for job in await app.job_manager.get_stalled_jobs(queue=QUEUE, seconds_since_heartbeat=stalled_after_s):
            try:
                await app.job_manager.retry_job(job)
                log.warning("requeued job %s (%s) of a worker that stopped", job.id, job.call_string)
            except Exception as exc:  # requeued by another worker meanwhile
                log.debug("job %s was not requeued: %s", job.id, exc)
        await asyncio.sleep(max(0.5, stalled_after_s / 3))
