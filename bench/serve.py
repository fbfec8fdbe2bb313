"""The HTTP API under concurrent load: `POST /v1/context` latency with one client, then with
20 concurrent clients, on a real corpus (a PyPI sdist indexed into a throwaway repository).

The bound, measured in the same run: a server that answers one request at a time keeps each
of 20 closed-loop clients waiting for the other 19, so their mean latency is 20 times the
single client's. The ratio of the concurrent p50 to that bound shows what concurrency buys
(below 1: requests overlap; the machine's cores cap how far).

    BRANCHGRAPH_NEO4J_URI=bolt://127.0.0.1:7687 python bench/serve.py [--corpus Django==5.1.4] [--clients 20]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import tempfile
import threading
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import uvicorn
from corpus import commit_sdist, drop_repo, fetch_sdist

from branchgraph import api
from branchgraph.core.config import Config
from branchgraph.http_api import create_app
from retrieval import docstring_queries, percentile


def start_server(workspace: api.Workspace) -> tuple[uvicorn.Server, str]:
    server = uvicorn.Server(uvicorn.Config(create_app(workspace), host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}"


def ask(base: str, query: str) -> float:
    """One context request; its latency in ms (an error status raises)."""
    request = urllib.request.Request(
        f"{base}/v1/context",
        data=json.dumps({"query": query}).encode(),
        headers={"Content-Type": "application/json"},
    )
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=120) as response:
        response.read()
    return (time.perf_counter() - start) * 1000


def load(base: str, queries: list[str], clients: int, per_client: int) -> tuple[list[float], float]:
    """``clients`` threads each sending ``per_client`` requests back to back; (latencies, seconds)."""

    def client(index: int) -> list[float]:
        return [ask(base, queries[(index * per_client + i) % len(queries)]) for i in range(per_client)]

    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        latencies = [ms for part in pool.map(client, range(clients)) for ms in part]
    return latencies, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default="Django==5.1.4", help="PACKAGE==VERSION from PyPI")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--per-client", type=int, default=10)
    parser.add_argument("--embedder", default="local")
    args = parser.parse_args()
    package, version = args.corpus.split("==")
    with tempfile.TemporaryDirectory(prefix="branchgraph-bench-") as tmp:
        root = Path(tmp) / f"{package}-{uuid.uuid4().hex[:8]}"
        commit_sdist(fetch_sdist(package, version), root)
        config = dataclasses.replace(Config.load(), index_dir=Path(tmp) / "index", embedder=args.embedder)
        try:
            summary = api.ingest(root, config=config)
            print(f"{package} {version}: {summary.files} files, {sum(summary.nodes.values())} nodes")
            with api.Workspace(root, config=config) as ws:
                queries = docstring_queries(ws, 100)
                server, base = start_server(ws)
                try:
                    ask(base, queries[0])  # warm: model load, caches, connections
                    single, single_s = load(base, queries, 1, args.clients * 3)
                    many, many_s = load(base, queries, args.clients, args.per_client)
                finally:
                    server.should_exit = True
        finally:
            drop_repo(root, config)
    s50, s95, mean = percentile(single, 50), percentile(single, 95), statistics.fmean(single)
    c50, c95 = percentile(many, 50), percentile(many, 95)
    bound = mean * args.clients
    print(f"1 client, {len(single)} requests:   p50 {s50:.0f} ms, p95 {s95:.0f} ms, {len(single) / single_s:.1f} req/s")
    print(
        f"{args.clients} clients, {len(many)} requests: p50 {c50:.0f} ms, p95 {c95:.0f} ms, "
        f"{len(many) / many_s:.1f} req/s"
    )
    print(
        f"bound (one request at a time: {args.clients} x the single client's mean {mean:.0f} ms): {bound:.0f} ms; "
        f"ratio p50/bound {c50 / bound:.2f}, throughput {len(many) / many_s / (len(single) / single_s):.2f}x one client"
    )


if __name__ == "__main__":
    main()
