"""Git access through dulwich: resolve a branch or revision and read the tracked files of a
commit straight from the object store (a bare clone works; the working tree never matters).
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from dulwich.errors import NotGitRepository
from dulwich.object_store import iter_tree_contents
from dulwich.objects import Commit
from dulwich.objectspec import parse_commit
from dulwich.repo import Repo

from branchgraph.errors import GitError


@dataclass(frozen=True, slots=True)
class TreeFile:
    """One tracked entry of a commit's tree."""

    path: str
    mode: int
    blob_sha: str

    @property
    def is_symlink(self) -> bool:
        return stat.S_ISLNK(self.mode)

    @property
    def is_submodule(self) -> bool:
        # Gitlinks (submodules) have mode 160000 and point at a commit in another repository.
        return self.mode == 0o160000


def open_repo(path: str | Path) -> Repo:
    """Open the git repository at or above ``path``."""
    try:
        return Repo.discover(str(path))
    except NotGitRepository as exc:
        raise GitError(f"not a git repository: {path}") from exc


def repo_root(repo: Repo) -> Path:
    """The working-tree root, or the git directory of a bare repository."""
    return Path(repo.path).resolve()


def current_branch(repo: Repo) -> str:
    """Name of the checked-out branch; fails on a detached HEAD."""
    try:
        target = repo.refs.get_symrefs().get(b"HEAD")
    except KeyError:
        target = None
    if target is None or not target.startswith(b"refs/heads/"):
        raise GitError("HEAD is detached; name the branch with --branch")
    return target[len(b"refs/heads/") :].decode("utf-8")


def resolve_commit(repo: Repo, branch: str, rev: str | None = None) -> Commit:
    """The commit to index: ``rev`` when given, else the tip of ``branch``."""
    if rev is None:
        ref = b"refs/heads/" + branch.encode("utf-8")
        if ref not in repo.refs:
            raise GitError(f"no branch named {branch!r}; pass --rev to index a commit under this name")
        return repo[repo.refs[ref]]
    try:
        return parse_commit(repo, rev.encode("utf-8"))
    except (KeyError, ValueError) as exc:
        raise GitError(f"unknown revision {rev!r}") from exc


def tree_files(repo: Repo, commit: Commit) -> Iterator[TreeFile]:
    """Every tracked file of the commit (blobs, symlinks and gitlinks), in path order."""
    for entry in iter_tree_contents(repo.object_store, commit.tree):
        yield TreeFile(entry.path.decode("utf-8", "surrogateescape"), entry.mode, entry.sha.decode("ascii"))


def read_blob(repo: Repo, blob_sha: str) -> bytes:
    """The raw bytes of a blob."""
    return repo.object_store[blob_sha.encode("ascii")].data


def branch_head(repo: Repo, branch: str) -> str | None:
    """The commit id a local branch points at, or None when the branch does not exist."""
    ref = b"refs/heads/" + branch.encode("utf-8")
    return repo.refs[ref].decode("ascii") if ref in repo.refs else None


def commits_between(repo: Repo, old: str, new: str) -> int | None:
    """How many commits ``new`` has that ``old`` lacks; None when ``old`` is not in the repo."""
    if old == new:
        return 0
    try:
        walker = repo.get_walker(include=[new.encode("ascii")], exclude=[old.encode("ascii")])
        return sum(1 for _ in walker)
    except KeyError:
        return None
