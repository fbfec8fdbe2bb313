"""Branches on demand for a served workspace: a question about a branch its mirror has not
fetched yet fetches it, and one about a branch not indexed yet (answered from the nearest
indexed base, overlaid with the branch's changed files) enqueues its ingest."""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path

from branchgraph.api import Workspace
from branchgraph.core.config import Config
from branchgraph.core.errors import GitError
from branchgraph.service.jobs import Queue
from branchgraph.service.mirrors import fetch_mirror, mirror_path

# A client naming branches that do not exist must not make the server fetch on every request.
MIN_FETCH_INTERVAL_S = 10.0


def attach(workspace: Workspace, config: Config, queue: Queue) -> None:
    root = Path(config.workspace_dir or ".")
    last_fetch: dict[str, float] = {}
    lock = threading.Lock()

    def fetch(name: str) -> None:
        url = config.remotes.get(name)
        now = time.monotonic()
        with lock:
            if url is None or now - last_fetch.get(name, -MIN_FETCH_INTERVAL_S) < MIN_FETCH_INTERVAL_S:
                return
            last_fetch[name] = now
        # Unreachable: answered from what the mirror has; the ingest job reports the failure.
        with contextlib.suppress(GitError):
            fetch_mirror(url, mirror_path(root, name))

    def enqueue(name: str, branch: str) -> str | None:
        if name not in config.remotes:
            return None
        job = queue.enqueue_index(name, branch)
        state = "a job for it was already waiting" if job.job_id is None else f"job {job.job_id}"
        return f"its ingest is queued ({state}); ask again once `/v1/status` shows it indexed"

    workspace.on_unknown_branch = fetch
    workspace.on_unindexed = enqueue
