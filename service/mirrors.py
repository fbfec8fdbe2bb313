"""Worker mirrors: a bare copy of each configured remote in the worker's workspace, fetched
with dulwich before every job, so a job indexes exactly what the remote's branch holds.

Credentials come from the environment (``BRANCHGRAPH_GIT_USERNAME`` and
``BRANCHGRAPH_GIT_PASSWORD``, e.g. a token) and are never logged: errors name the remote by
its URL with any user and password taken out."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import fasteners
from dulwich.client import HTTPProxyUnauthorized, HTTPUnauthorized, get_transport_and_path
from dulwich.errors import GitProtocolError, HangupException, NotGitRepository
from dulwich.objects import ObjectID
from dulwich.refs import Ref
from dulwich.repo import Repo

from branchgraph.core.errors import GitError

USERNAME_ENV = "BRANCHGRAPH_GIT_USERNAME"
PASSWORD_ENV = "BRANCHGRAPH_GIT_PASSWORD"
_HEADS = b"refs/heads/"


@dataclass(frozen=True, slots=True)
class Fetched:
    path: Path  # the mirror
    heads: dict[str, str]  # branch -> commit, as the remote has them
    default_branch: str | None  # the remote's HEAD


def mirror_path(workspace: Path, name: str) -> Path:
    return workspace / "mirrors" / f"{name}.git"


def fetch_mirror(url: str, path: Path) -> Fetched:
    """Bring the mirror at ``path`` up to the remote: its branches set to the remote's, the
    ones the remote no longer has removed. One fetch per mirror at a time (a file lock), so
    a slower fetch never sets a branch back."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with fasteners.InterProcessLock(str(path) + ".lock"):
        repo = Repo(str(path)) if path.exists() else Repo.init_bare(str(path), mkdir=True)
        try:
            client, remote_path = get_transport_and_path(
                url, username=os.environ.get(USERNAME_ENV) or None, password=os.environ.get(PASSWORD_ENV) or None
            )
            result = client.fetch(remote_path, repo, determine_wants=_heads_missing(repo))
        except (HTTPUnauthorized, HTTPProxyUnauthorized) as exc:
            raise GitError(
                f"cannot fetch {redact_url(url)}: the server refused the credentials "
                f"(set {USERNAME_ENV} and {PASSWORD_ENV})"
            ) from exc
        except (GitProtocolError, HangupException, NotGitRepository, OSError) as exc:
            raise GitError(f"cannot fetch {redact_url(url)}: {_redact_text(str(exc), url)}") from exc
        finally:
            repo.close()
        repo = Repo(str(path))
        try:
            heads = {
                bytes(ref[len(_HEADS) :]).decode("utf-8"): sha.decode("ascii")
                for ref, sha in result.refs.items()
                if ref.startswith(_HEADS) and sha is not None
            }
            for ref in list(repo.refs.allkeys()):
                if ref.startswith(_HEADS) and bytes(ref[len(_HEADS) :]).decode("utf-8") not in heads:
                    del repo.refs[ref]
            for branch, sha in heads.items():
                repo.refs[Ref(_HEADS + branch.encode("utf-8"))] = ObjectID(sha.encode("ascii"))
            target = result.symrefs.get(Ref(b"HEAD"))
            default = None
            if target is not None and target.startswith(_HEADS):
                default = bytes(target[len(_HEADS) :]).decode("utf-8")
                repo.refs.set_symbolic_ref(Ref(b"HEAD"), target)
        finally:
            repo.close()
    return Fetched(path, heads, default)


def _heads_missing(repo: Repo):
    def determine_wants(refs, depth=None):
        return [
            sha
            for ref, sha in refs.items()
            if ref.startswith(_HEADS) and sha is not None and sha not in repo.object_store
        ]

    return determine_wants


def redact_url(url: str) -> str:
    """The URL without a user or password in it."""
    return re.sub(r"://[^/@]*@", "://", url)


def _redact_text(text: str, url: str) -> str:
    password = os.environ.get(PASSWORD_ENV)
    text = text.replace(url, redact_url(url))
    return text.replace(password, "***") if password else text
