"""Which key a repository's nodes and rows are stored under.

The key is the repository folder's name, which is what people type (``--repo flask``). Two
different repositories can share a folder name on one shared store, so a name already taken
by a repository with no commit in common gets the path's hash beside it (``app-1f2e3d4c``):
the second repository never overwrites the first. A repository indexed before keeps its key
wherever it is now (a new clone in CI shares commits with the indexed one).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from dulwich.repo import Repo

from branchgraph.core import git
from branchgraph.graph.protocols import BranchRecord


def repo_name_for(root: Path) -> str:
    """The readable name of the repository at ``root``: its folder's name without ``.git``."""
    name = root.name
    return name[:-4] if name.endswith(".git") else name


def recorded_key(root: Path, records: list[BranchRecord]) -> str | None:
    """The key a repository indexed from ``root`` before is stored under (it never changes)."""
    return next((r.repo for r in records if Path(r.repo_path) == root), None)


def repo_key(root: Path, repo: Repo, records: list[BranchRecord]) -> str:
    """The key of the repository at ``root`` among the indexed branches ``records``."""
    recorded = recorded_key(root, records)
    if recorded is not None:
        return recorded
    name = repo_name_for(root)
    taken = [r for r in records if r.repo == name]
    if not taken or any(git.commit_exists(repo, r.indexed_commit) for r in taken):
        return name
    return f"{name}-{hashlib.blake2b(str(root).encode('utf-8', 'surrogateescape'), digest_size=4).hexdigest()}"
