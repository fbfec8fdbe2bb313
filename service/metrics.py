"""``/metrics`` in the Prometheus text format, read from the stores at each scrape.

Every figure comes from the PostgreSQL all `serve` and `worker` processes share (the push
log, procrastinate's job tables, the branch records and vector rows), so one scrape of any
server shows the whole team's indexing, however many machines run workers. Distributions over
recent activity (push-to-indexed lag, job durations) are gauge histograms of a sliding window
(``WINDOW``): they describe the last day, not a process's lifetime.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from prometheus_client.core import GaugeHistogramMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

from branchgraph.graph.pgstore import PgStore
from branchgraph.service.jobs import Queue

WINDOW = timedelta(hours=24)
LAG_BUCKETS = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0, 3600.0)
DURATION_BUCKETS = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0)


def histogram_buckets(values: Sequence[float], bounds: Sequence[float]) -> list[tuple[str, float]]:
    """Cumulative (le, count) buckets, +Inf last."""
    buckets = [(repr(float(b)), float(sum(1 for v in values if v <= b))) for b in bounds]
    return [*buckets, ("+Inf", float(len(values)))]


class StoreCollector(Collector):
    def __init__(self, pg: PgStore, queue: Queue | None, graph_dir: Path | None = None):
        self.pg = pg
        self.queue = queue
        self.graph_dir = graph_dir  # the managed Neo4j's data, when branchgraph runs it

    def collect(self) -> Iterator[Metric]:
        now = datetime.now(UTC)
        lags = self.pg.push_lags(now - WINDOW)
        lag = GaugeHistogramMetricFamily(
            "branchgraph_push_to_indexed_seconds",
            f"Time from a push webhook to an indexed commit including it, pushes indexed in the last {WINDOW}",
            buckets=histogram_buckets(lags, LAG_BUCKETS),
            gsum_value=sum(lags),
        )
        yield lag

        nodes = GaugeMetricFamily(
            "branchgraph_branch_nodes", "Graph nodes of an indexed branch", labels=["repo", "branch"]
        )
        edges = GaugeMetricFamily(
            "branchgraph_branch_edges", "Graph edges of an indexed branch", labels=["repo", "branch"]
        )
        files = GaugeMetricFamily("branchgraph_branch_files", "Files of an indexed branch", labels=["repo", "branch"])
        age = GaugeMetricFamily(
            "branchgraph_branch_index_age_seconds",
            "Seconds since the branch was last indexed",
            labels=["repo", "branch"],
        )
        waiting = GaugeMetricFamily(
            "branchgraph_branch_push_waiting_seconds",
            "How long the oldest push no ingest has covered yet has waited (0: none waits); alert on this",
            labels=["repo", "branch"],
        )
        pending = GaugeMetricFamily(
            "branchgraph_branch_pending_commits", "Commits pushed and not indexed yet", labels=["repo", "branch"]
        )
        records = self.pg.branches()
        sizes = {(r.repo, r.branch): _graph_rows(r.counts) for r in records}
        for r in records:
            key = [r.repo, r.branch]
            nodes.add_metric(key, float(sum(r.counts.get("nodes", {}).values())))
            edges.add_metric(key, float(sum(r.counts.get("edges", {}).values())))
            files.add_metric(key, float(r.counts.get("files", 0)))
            age.add_metric(key, (now - r.indexed_at).total_seconds())
        if self.graph_dir is not None and sizes:
            yield self._graph_bytes(sizes)
        for repo in sorted({r.repo for r in records} | set(self.pg.pushed_repos())):
            for branch, state in sorted(self.pg.push_states(repo).items()):
                waited = 0.0 if state.oldest_pending_at is None else (now - state.oldest_pending_at).total_seconds()
                waiting.add_metric([repo, branch], waited)
                pending.add_metric([repo, branch], float(state.pending_commits))
        yield from (nodes, edges, files, age, waiting, pending)

        vectors = GaugeMetricFamily(
            "branchgraph_branch_vectors", "Vector rows of an indexed branch", labels=["repo", "branch"]
        )
        size = GaugeMetricFamily(
            "branchgraph_branch_postgresql_bytes",
            "Bytes of a branch's vector and full-text rows and the vectors they use (shared vectors count in each)",
            labels=["repo", "branch"],
        )
        for (repo, branch), (rows, nbytes) in sorted(self.pg.branch_sizes().items()):
            vectors.add_metric([repo, branch], float(rows))
            size.add_metric([repo, branch], float(nbytes))
        yield from (vectors, size)

        if self.queue is not None:
            yield from self._queue_metrics()

    def _graph_bytes(self, rows: dict[tuple[str, str], int]) -> Metric:
        """The managed Neo4j's store on disk, shared out by each branch's nodes and edges (an
        estimate: Neo4j does not account storage per property value)."""
        assert self.graph_dir is not None
        total = sum(f.stat().st_size for f in (self.graph_dir / "data").rglob("*") if f.is_file())
        family = GaugeMetricFamily(
            "branchgraph_branch_graph_bytes_estimated",
            "The managed Neo4j's store size shared out by each branch's share of nodes and edges",
            labels=["repo", "branch"],
        )
        all_rows = sum(rows.values()) or 1
        for (repo, branch), n in sorted(rows.items()):
            family.add_metric([repo, branch], total * n / all_rows)
        return family

    def _queue_metrics(self) -> Iterator[Metric]:
        assert self.queue is not None
        stats = self.queue.stats(WINDOW)
        depth = GaugeMetricFamily("branchgraph_queue_depth", "Jobs waiting to run")
        depth.add_metric([], float(stats.depth))
        oldest = GaugeMetricFamily("branchgraph_queue_oldest_waiting_seconds", "Age of the oldest job waiting to run")
        oldest.add_metric([], stats.oldest_waiting_s)
        jobs = GaugeMetricFamily(
            "branchgraph_jobs", "Jobs kept in the queue, by task and state", labels=["task", "status"]
        )
        for (task, status), n in sorted(stats.jobs.items()):
            jobs.add_metric([task, status], float(n))
        failures = GaugeMetricFamily(
            "branchgraph_job_failures", f"Failed job runs (retried or final) in the last {WINDOW}", labels=["task"]
        )
        for task, n in sorted(stats.failures.items()):
            failures.add_metric([task], float(n))
        durations = GaugeHistogramMetricFamily(
            "branchgraph_job_duration_seconds", f"Durations of job runs started in the last {WINDOW}", labels=["task"]
        )
        for task, seconds in sorted(stats.durations.items()):
            durations.add_metric([task], histogram_buckets(seconds, DURATION_BUCKETS), sum(seconds))
        yield from (depth, oldest, jobs, failures, durations)


def _graph_rows(counts: dict[str, object]) -> int:
    nodes, edges = counts.get("nodes", {}), counts.get("edges", {})
    return sum(nodes.values() if isinstance(nodes, dict) else ()) + sum(
        edges.values() if isinstance(edges, dict) else ()
    )


def registry(pg: PgStore, queue: Queue | None, graph_dir: Path | None = None) -> CollectorRegistry:
    out = CollectorRegistry(auto_describe=False)
    out.register(StoreCollector(pg, queue, graph_dir))
    return out
