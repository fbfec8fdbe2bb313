"""Git access through dulwich: resolve a branch or revision and read the tracked files of a
commit straight from the object store (a bare clone works; the working tree never matters).
"""

from __future__ import annotations

import hashlib
import json
import re
import stat
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from dulwich.diff_tree import (
    CHANGE_ADD,
    CHANGE_COPY,
    CHANGE_DELETE,
    CHANGE_MODIFY,
    CHANGE_RENAME,
    RenameDetector,
    tree_changes,
)
from dulwich.errors import NotGitRepository, NotTreeError
from dulwich.object_store import iter_tree_contents, tree_lookup_path
from dulwich.objects import Blob, Commit, ObjectID
from dulwich.objectspec import parse_commit
from dulwich.refs import Ref
from dulwich.repo import Repo

from branchgraph.core.errors import GitError
from branchgraph.core.files import is_utf8


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


def _oid(hex_sha: str) -> ObjectID:
    return ObjectID(hex_sha.encode("ascii"))


def _branch_ref(branch: str) -> Ref:
    return Ref(b"refs/heads/" + branch.encode("utf-8"))


def _commit(repo: Repo, hex_sha: str | bytes) -> Commit:
    """The commit object with this id (KeyError when absent, GitError when no commit)."""
    obj = repo.object_store[ObjectID(hex_sha if isinstance(hex_sha, bytes) else hex_sha.encode("ascii"))]
    if not isinstance(obj, Commit):
        raise GitError(f"{hex_sha!r} is a {obj.type_name.decode()}, not a commit")
    return obj


def repo_root(repo: Repo) -> Path:
    """The working-tree root, or the git directory of a bare repository."""
    return Path(repo.path).resolve()


def current_branch(repo: Repo) -> str:
    """Name of the checked-out branch; fails on a detached HEAD."""
    try:
        target = repo.refs.get_symrefs().get(Ref(b"HEAD"))
    except KeyError:
        target = None
    if target is None or not target.startswith(b"refs/heads/"):
        raise GitError("HEAD is detached; name the branch with --branch")
    return bytes(target[len(b"refs/heads/") :]).decode("utf-8")


def resolve_commit(repo: Repo, branch: str, rev: str | None = None) -> Commit:
    """The commit to index: ``rev`` when given, else the tip of ``branch``."""
    if rev is None:
        ref = _branch_ref(branch)
        if ref not in repo.refs:
            if not any(name.startswith(b"refs/heads/") for name in repo.refs.allkeys()):
                raise GitError(f"the repository at {repo_root(repo)} has no commits yet; commit something first")
            raise GitError(f"no branch named {branch!r}; pass --rev to index a commit under this name")
        return _commit(repo, repo.refs[ref])
    return commit_object(repo, rev)


def commit_object(repo: Repo, rev: str) -> Commit:
    """The commit a git revision names: a branch, tag or SHA, with ``~N`` and ``^N`` suffixes
    (``HEAD~2``, ``main^2``) applied as git does."""
    found = re.fullmatch(r"(.+?)((?:[~^]\d*)*)", rev)
    name, suffixes = (found.group(1), found.group(2)) if found else (rev, "")
    try:
        commit = parse_commit(repo, name.encode("utf-8"))
    except (KeyError, ValueError) as exc:
        raise GitError(f"unknown revision {rev!r}") from exc
    for op, count in re.findall(r"([~^])(\d*)", suffixes):
        steps = [1] * int(count or 1) if op == "~" else [int(count or 1)]
        for nth in steps:
            if nth == 0:
                continue  # ^0 is the commit itself
            if len(commit.parents) < nth:
                raise GitError(f"{rev!r}: {commit.id.decode()[:12]} has no parent number {nth}")
            commit = _commit(repo, commit.parents[nth - 1])
    return commit


def tree_files(repo: Repo, commit: Commit) -> Iterator[TreeFile]:
    """Every tracked file of the commit (blobs, symlinks and gitlinks), in path order."""
    for entry in iter_tree_contents(repo.object_store, commit.tree):
        yield TreeFile(_path(entry.path), entry.mode, entry.sha.decode("ascii"))


def tree_files_since(
    repo: Repo, commit: Commit, old_commit: str, old_files: Iterable[TreeFile]
) -> list[TreeFile] | None:
    """``tree_files`` of ``commit`` from those of another commit and the trees that differ
    between the two (unchanged subtrees are never read); None when ``old_commit`` is not in
    the repository (history rewritten, a shallow clone)."""
    if not commit_exists(repo, old_commit):
        return None
    files = {f.path: f for f in old_files}
    for change in tree_changes(repo.object_store, _commit(repo, old_commit).tree, commit.tree):
        if change.old is not None and change.old.path is not None:
            files.pop(_path(change.old.path), None)
        if change.new is not None and change.new.path is not None and change.new.sha is not None:
            path = _path(change.new.path)
            files[path] = TreeFile(path, change.new.mode or 0, change.new.sha.decode("ascii"))
    return sorted(files.values(), key=_tree_order)


def _tree_order(f: TreeFile) -> tuple[bytes, ...]:
    """``tree_files``' order: each folder's entries by name, a folder's contents in its place."""
    return tuple(part.encode("utf-8", "surrogateescape") for part in f.path.split("/"))


def encode_listing(files: Iterable[TreeFile]) -> bytes:
    """A commit's tracked files as compact bytes, to be stored (``decode_listing``)."""
    # JSON escapes a path's undecodable bytes (lone surrogates) and gives them back as they were.
    rows = [[f.path, f.mode, f.blob_sha] for f in files]
    return zlib.compress(json.dumps(rows, separators=(",", ":")).encode("ascii"), 1)


def decode_listing(data: bytes) -> list[TreeFile]:
    return [TreeFile(path, mode, sha) for path, mode, sha in json.loads(zlib.decompress(data))]


def _path(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def blob_at(repo: Repo, commit: Commit, path: str) -> bytes | None:
    """The bytes of the file at ``path`` in the commit (None: no such file), looked up through
    the trees on its path only, not the whole tree."""
    try:
        _, sha = tree_lookup_path(repo.object_store.__getitem__, commit.tree, path.encode("utf-8", "surrogateescape"))
        blob = repo.object_store[sha]
    except (KeyError, NotTreeError):  # no such path (or a submodule's commit, not in this store)
        return None
    return blob.data if isinstance(blob, Blob) else None


def read_blob(repo: Repo, blob_sha: str) -> bytes:
    """The raw bytes of a blob."""
    blob = repo.object_store[_oid(blob_sha)]
    if not isinstance(blob, Blob):
        raise GitError(f"{blob_sha} is no blob")
    return blob.data


def branch_head(repo: Repo, branch: str) -> str | None:
    """The commit id a local branch points at, or None when the branch does not exist."""
    ref = _branch_ref(branch)
    return repo.refs[ref].decode("ascii") if ref in repo.refs else None


def commits_between(repo: Repo, old: str, new: str) -> int | None:
    """How many commits ``new`` has that ``old`` lacks; None when ``old`` is not in the repo."""
    if old == new:
        return 0
    try:
        walker = repo.get_walker(include=[_oid(new)], exclude=[_oid(old)])
        return sum(1 for _ in walker)
    except KeyError:
        return None


@dataclass(frozen=True, slots=True)
class TreeDiff:
    """Paths that differ between two commits; renames as old path -> new path."""

    added: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    renamed: dict[str, str] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(self.added) + len(self.modified) + len(self.deleted) + len(self.renamed)

    def to_dict(self) -> dict[str, int]:
        return {
            "added": len(self.added),
            "modified": len(self.modified),
            "deleted": len(self.deleted),
            "renamed": len(self.renamed),
        }


# A file counts as renamed when at least this share of it survived the move (git's default).
RENAME_THRESHOLD = 60
# Rename detection compares every added file with every deleted one; past this many it is
# skipped (the files then show as deleted + added, which indexes the same graph).
RENAME_MAX_FILES = 400


def diff_commits(repo: Repo, old_commit: str | None, new_commit: str, detect_renames: bool = True) -> TreeDiff:
    """What changed from ``old_commit`` (None: the empty tree) to ``new_commit``.

    Works between any two commits, ancestors or not (a force-push is just another diff).
    """
    store = repo.object_store
    old_tree = _commit(repo, old_commit).tree if old_commit else None
    new_tree = _commit(repo, new_commit).tree
    detector = (
        RenameDetector(store, rename_threshold=RENAME_THRESHOLD, max_files=RENAME_MAX_FILES) if detect_renames else None
    )
    added: list[str] = []
    modified: list[str] = []
    deleted: list[str] = []
    renamed: dict[str, str] = {}
    for change in tree_changes(store, old_tree, new_tree, rename_detector=detector):
        old_path = change.old.path.decode("utf-8", "surrogateescape") if change.old and change.old.path else ""
        new_path = change.new.path.decode("utf-8", "surrogateescape") if change.new and change.new.path else ""
        if change.type == CHANGE_ADD or change.type == CHANGE_COPY:
            added.append(new_path)
        elif change.type == CHANGE_DELETE:
            deleted.append(old_path)
        elif change.type == CHANGE_MODIFY:
            modified.append(new_path)
        elif change.type == CHANGE_RENAME and is_utf8(old_path) and is_utf8(new_path):
            renamed[old_path] = new_path
        elif change.type == CHANGE_RENAME:  # a path that is not UTF-8 is never indexed: no rename to record
            deleted.append(old_path)
            added.append(new_path)
    return TreeDiff(tuple(added), tuple(modified), tuple(deleted), renamed)


def commit_exists(repo: Repo, commit: str) -> bool:
    try:
        _commit(repo, commit)
    except (KeyError, GitError):
        return False
    return True


def branch_refs(repo: Repo, remotes: bool = False) -> dict[str, str]:
    """Branch name -> commit id: local branches, plus ``origin/name`` remote-tracking ones."""
    out: dict[str, str] = {}
    for ref, sha in repo.get_refs().items():
        name = ref.decode("utf-8", "surrogateescape")
        if name.startswith("refs/heads/"):
            out[name[len("refs/heads/") :]] = sha.decode("ascii")
        elif remotes and name.startswith("refs/remotes/") and not name.endswith("/HEAD"):
            out[name[len("refs/remotes/") :]] = sha.decode("ascii")
    return dict(sorted(out.items()))


def recent_changes(repo: Repo, commit: str, commits: int) -> list[list[str]]:
    """The paths each of the ``commits`` newest commits of ``commit``'s history changed,
    newest first (each against its first parent, a root commit against nothing)."""
    tip = _commit(repo, commit)
    out: list[list[str]] = []
    for entry in repo.get_walker(include=[tip.id], max_entries=commits):
        c = entry.commit
        parent_tree = _commit(repo, c.parents[0]).tree if c.parents else None
        paths: set[str] = set()
        for change in tree_changes(repo.object_store, parent_tree, c.tree):
            for side in (change.old, change.new):
                # Paths that are not UTF-8 are never indexed, so they carry no recency.
                if side is not None and side.path and is_utf8(path := side.path.decode("utf-8", "surrogateescape")):
                    paths.add(path)
        out.append(sorted(paths))
    return out


def recency_of(changes: list[list[str]]) -> dict[str, int]:
    """Path -> how many commits ago it last changed (0: in the newest), given what each commit
    changed, newest first (``recent_changes``). Paths not changed then are absent."""
    ago: dict[str, int] = {}
    for index, paths in enumerate(changes):
        for path in paths:
            ago.setdefault(path, index)
    return ago


def git_blob_sha(data: bytes) -> str:
    """The SHA git gives a blob with these bytes (what `git hash-object` prints)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
