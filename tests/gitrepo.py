"""Build real git repositories for tests with dulwich, without a working tree.

Files are written straight into the object store, so a test can commit what a working
tree cannot easily hold (symlinks out of the repository, binary blobs, conflict markers).
"""

from __future__ import annotations

import stat
import time
from dataclasses import dataclass
from pathlib import Path

from dulwich.index import commit_tree
from dulwich.objects import Blob, Commit
from dulwich.repo import Repo

AUTHOR = b"branchgraph tests <tests@branchgraph.invalid>"


@dataclass(frozen=True)
class Symlink:
    target: str


@dataclass(frozen=True)
class Gitlink:
    commit: bytes  # a submodule's commit, in another repository


def init_repo(path: Path, branch: str = "main") -> Repo:
    path.mkdir(parents=True, exist_ok=True)
    repo = Repo.init(str(path))
    repo.refs.set_symbolic_ref(b"HEAD", b"refs/heads/" + branch.encode())
    return repo


def commit_files(
    repo: Repo,
    files: dict[str, bytes | str | Symlink | Gitlink] | dict[str | bytes, bytes | str | Symlink | Gitlink],
    branch: str = "main",
    message: str = "commit",
    parents: list[bytes] | None = None,
) -> str:
    """Commit exactly ``files`` as the tree of a new commit on ``branch``; return its id."""
    entries = []
    for path, content in files.items():
        if isinstance(content, Gitlink):
            entries.append((path if isinstance(path, bytes) else path.encode(), content.commit, 0o160000))
            continue
        if isinstance(content, Symlink):
            blob, mode = Blob.from_string(content.target.encode()), stat.S_IFLNK | 0o777
        else:
            data = content.encode() if isinstance(content, str) else content
            blob, mode = Blob.from_string(data), stat.S_IFREG | 0o644
        repo.object_store.add_object(blob)
        # A bytes path is committed as is (a file name that is not UTF-8).
        entries.append((path if isinstance(path, bytes) else path.encode(), blob.id, mode))
    ref = b"refs/heads/" + branch.encode()
    if parents is None:
        parents = [repo.refs[ref]] if ref in repo.refs else []
    commit = Commit()
    commit.tree = commit_tree(repo.object_store, entries)
    commit.parents = parents
    commit.author = commit.committer = AUTHOR
    commit.author_time = commit.commit_time = int(time.time())
    commit.author_timezone = commit.commit_timezone = 0
    commit.encoding = b"UTF-8"
    commit.message = message.encode()
    repo.object_store.add_object(commit)
    repo.refs[ref] = commit.id
    return commit.id.decode()


def read_tree(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` keyed by its relative path."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
