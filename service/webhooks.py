"""Git-server webhooks: is a delivery authentic, and what does it ask for.

GitHub signs the raw body with HMAC-SHA256 (``X-Hub-Signature-256``); GitLab sends a shared
token (``X-Gitlab-Token``). Both are compared in constant time. A delivery becomes at most one
``WebhookEvent``: index a branch (a push, an opened or updated pull/merge request), drop a
branch (a branch deleted), or nothing (tags, forks, other events), always with the reason.
No URL or commit from a payload is ever fetched: the payload only names a configured
remote and a branch, and the worker indexes whatever that remote's branch holds when it runs.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit

from branchgraph.core.errors import WebhookRefused

INDEX = "index"
DROP = "drop"
IGNORE = "ignore"
NULL_COMMIT = "0" * 40


@dataclass(frozen=True, slots=True)
class WebhookEvent:
    action: str  # INDEX, DROP or IGNORE
    project: str  # the git server's name of the repository, e.g. "acme/shop"
    branch: str | None = None
    after_commit: str | None = None
    commits: int = 0
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def verify_github(body: bytes, signature: str | None, secret: str | None) -> None:
    if not secret:
        raise WebhookRefused("GitHub webhooks are off: set BRANCHGRAPH_WEBHOOK_SECRET", 503)
    if not signature or not signature.startswith("sha256="):
        raise WebhookRefused("unsigned delivery: X-Hub-Signature-256 is missing", 401)
    expected = "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected.encode("ascii"), signature.encode("ascii", "replace")):
        raise WebhookRefused("bad signature: X-Hub-Signature-256 does not match the body", 401)


def verify_gitlab(token: str | None, configured: str | None) -> None:
    if not configured:
        raise WebhookRefused("GitLab webhooks are off: set BRANCHGRAPH_GITLAB_TOKEN", 503)
    if not token:
        raise WebhookRefused("unsigned delivery: X-Gitlab-Token is missing", 401)
    if not hmac.compare_digest(configured.encode("utf-8"), token.encode("utf-8", "replace")):
        raise WebhookRefused("bad token: X-Gitlab-Token does not match", 401)


def delivery_id(source: str, header: str | None) -> str:
    """The key a delivery is remembered by; a delivery without one cannot be told from a
    replay, so it is refused."""
    if not header or len(header) > 200:
        raise WebhookRefused(f"the {source} delivery carries no delivery id, so a replay could not be told apart", 400)
    return f"{source}:{header}"


def _payload(body: bytes) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, ValueError) as exc:
        raise WebhookRefused(f"the payload is not JSON: {exc}", 400) from exc
    if not isinstance(data, dict):
        raise WebhookRefused("the payload is not a JSON object", 400)
    return data


def _branch_of(ref: Any) -> str | None:
    return ref[len("refs/heads/") :] if isinstance(ref, str) and ref.startswith("refs/heads/") else None


def _field(data: dict[str, Any], *path: str) -> Any:
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None  # type: ignore[assignment]
    return data


def github_event(event: str | None, body: bytes) -> WebhookEvent:
    data = _payload(body)
    project = str(_field(data, "repository", "full_name") or "")
    if event == "ping":
        return WebhookEvent(IGNORE, project, reason="ping")
    if event == "push":
        branch = _branch_of(data.get("ref"))
        if branch is None:
            return WebhookEvent(IGNORE, project, reason=f"not a branch: {data.get('ref')!r}")
        after = str(data.get("after") or "")
        if data.get("deleted") or after == NULL_COMMIT:
            return WebhookEvent(DROP, project, branch, reason="branch deleted")
        commits = data.get("commits")
        return WebhookEvent(INDEX, project, branch, after, len(commits) if isinstance(commits, list) else 1, "push")
    if event == "delete":
        if data.get("ref_type") != "branch":
            return WebhookEvent(IGNORE, project, reason=f"deleted a {data.get('ref_type')}, not a branch")
        return WebhookEvent(DROP, project, str(data.get("ref")), reason="branch deleted")
    if event == "pull_request":
        action = data.get("action")
        if action not in ("opened", "reopened", "synchronize", "ready_for_review"):
            return WebhookEvent(IGNORE, project, reason=f"pull request {action}")
        head_repo = _field(data, "pull_request", "head", "repo", "full_name")
        if head_repo != project:
            return WebhookEvent(IGNORE, project, reason=f"pull request from the fork {head_repo}")
        branch = _field(data, "pull_request", "head", "ref")
        after = _field(data, "pull_request", "head", "sha")
        return WebhookEvent(INDEX, project, str(branch), str(after or ""), 0, f"pull request {action}")
    return WebhookEvent(IGNORE, project, reason=f"event {event!r} is not handled")


def gitlab_event(event: str | None, body: bytes) -> WebhookEvent:
    data = _payload(body)
    project = str(_field(data, "project", "path_with_namespace") or "")
    if event == "Push Hook":
        branch = _branch_of(data.get("ref"))
        if branch is None:
            return WebhookEvent(IGNORE, project, reason=f"not a branch: {data.get('ref')!r}")
        after = str(data.get("after") or "")
        if after == NULL_COMMIT:
            return WebhookEvent(DROP, project, branch, reason="branch deleted")
        commits = data.get("total_commits_count")
        return WebhookEvent(INDEX, project, branch, after, commits if isinstance(commits, int) else 1, "push")
    if event == "Merge Request Hook":
        attrs = data.get("object_attributes") or {}
        action = attrs.get("action")
        if action not in ("open", "reopen", "update"):
            return WebhookEvent(IGNORE, project, reason=f"merge request {action}")
        if attrs.get("source_project_id") != attrs.get("target_project_id"):
            return WebhookEvent(IGNORE, project, reason="merge request from a fork")
        after = _field(attrs, "last_commit", "id")
        return WebhookEvent(
            INDEX, project, str(attrs.get("source_branch")), str(after or ""), 0, f"merge request {action}"
        )
    return WebhookEvent(IGNORE, project, reason=f"event {event!r} is not handled")


def remote_for(project: str, remotes: dict[str, str]) -> str | None:
    """The configured remote (its store key) whose URL names ``project`` ("acme/shop" matches
    https://github.com/acme/shop.git, git@github.com:acme/shop.git and /srv/git/acme/shop)."""
    if not project:
        return None
    wanted = project.strip("/").lower()
    for name, url in sorted(remotes.items()):
        if _url_path(url) == wanted or _url_path(url).endswith("/" + wanted):
            return name
    return None


def _url_path(url: str) -> str:
    if "://" in url:
        path = urlsplit(url).path
    elif ":" in url.split("/", 1)[0]:  # scp-like: git@host:owner/name.git
        path = url.split(":", 1)[1]
    else:
        path = url
    path = path.strip("/").lower()
    return path[:-4] if path.endswith(".git") else path
