"""Git hooks that keep the index of the checked-out branch current.

Each hook gets a marked block (other content of the hook file is kept) that starts an
incremental ingest in the background and returns at once: git never waits for branchgraph
and never fails because of it. Output goes to ``.branchgraph/hook.log``.
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
from pathlib import Path

from branchgraph import api

HOOKS = ("post-commit", "post-checkout", "post-merge")
BEGIN = "# >>> branchgraph >>>"
END = "# <<< branchgraph <<<"


def _block(python: str) -> str:
    command = f"{shlex.quote(python)} -m branchgraph ingest --quiet --no-wait ."
    return (
        f"{BEGIN}\n"
        "# Update the branchgraph index of this branch in the background; never block or fail git.\n"
        '(top="$(git rev-parse --show-toplevel 2>/dev/null)" && cd "$top" && mkdir -p .branchgraph && '
        f"nohup {command} >> .branchgraph/hook.log 2>&1 < /dev/null &) > /dev/null 2>&1 || true\n"
        f"{END}\n"
    )


def _without_block(text: str) -> str:
    if BEGIN not in text:
        return text
    before, rest = text.split(BEGIN, 1)
    after = rest.split(END, 1)[1] if END in rest else ""
    return before + after.lstrip("\n")


def install_hooks(path: str | Path = ".", python: str | None = None) -> list[Path]:
    """Add (or refresh) the branchgraph block in each hook; return the files written."""
    hooks = api.git_hooks_dir(path)
    hooks.mkdir(parents=True, exist_ok=True)
    written = []
    for name in HOOKS:
        hook = hooks / name
        text = _without_block(hook.read_text()) if hook.exists() else "#!/bin/sh\n"
        if not text.endswith("\n"):
            text += "\n"
        hook.write_text(text + _block(python or sys.executable))
        hook.chmod(hook.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        written.append(hook)
    return written


def uninstall_hooks(path: str | Path = ".") -> list[Path]:
    """Remove the branchgraph block; a hook left with nothing but its shebang is deleted."""
    hooks = api.git_hooks_dir(path)
    changed = []
    for name in HOOKS:
        hook = hooks / name
        if not hook.exists() or BEGIN not in hook.read_text():
            continue
        text = _without_block(hook.read_text())
        if text.strip() in ("", "#!/bin/sh", "#!/bin/bash", "#!/usr/bin/env bash", "#!/usr/bin/env sh"):
            os.remove(hook)
        else:
            hook.write_text(text)
        changed.append(hook)
    return changed
