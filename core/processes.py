"""Facts about processes on this machine that the private servers' bookkeeping needs."""

from __future__ import annotations

import os
from pathlib import Path


def process_running(pid: int) -> bool:
    """Whether a process with this id runs (owned by anyone). A child of this process that
    exited is reaped here: a zombie would otherwise look alive until this process ends."""
    try:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    except ChildProcessError:
        pass  # not our child: ask the kernel below
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, owned by another user
    return True


def process_rss_mb(pid: int) -> int | None:
    """Resident memory of a process in MiB (Linux; None elsewhere or when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return None
