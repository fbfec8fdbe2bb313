"""What a webhook delivery does once it is authentic: remember its id (a replay is refused),
record the push, and enqueue a job. It never fetches or indexes anything itself, so the git
server gets its answer in milliseconds."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from branchgraph.core.config import Config
from branchgraph.graph.pgstore import PgStore
from branchgraph.service.jobs import Queue
from branchgraph.service.webhooks import (
    DROP,
    INDEX,
    WebhookEvent,
    WebhookRefused,
    delivery_id,
    github_event,
    gitlab_event,
    remote_for,
    verify_github,
    verify_gitlab,
)


class Intake:
    def __init__(self, config: Config, pg: PgStore, queue: Queue):
        self.config = config
        self.pg = pg
        self.queue = queue

    def github(self, headers: Mapping[str, str], body: bytes) -> dict[str, Any]:
        verify_github(body, headers.get("x-hub-signature-256"), self.config.webhook_secret)
        event = github_event(headers.get("x-github-event"), body)
        return self._accept(delivery_id("github", headers.get("x-github-delivery")), event)

    def gitlab(self, headers: Mapping[str, str], body: bytes) -> dict[str, Any]:
        verify_gitlab(headers.get("x-gitlab-token"), self.config.gitlab_token)
        event = gitlab_event(headers.get("x-gitlab-event"), body)
        uuid = headers.get("x-gitlab-event-uuid") or headers.get("idempotency-key")
        return self._accept(delivery_id("gitlab", uuid), event)

    def _accept(self, delivery: str, event: WebhookEvent) -> dict[str, Any]:
        if not self.pg.claim_delivery(delivery):
            raise WebhookRefused(f"delivery {delivery} was accepted before: a replay is refused", 409)
        answer: dict[str, Any] = {"delivery": delivery, **event.to_dict()}
        if event.action not in (INDEX, DROP):
            return answer
        repo = remote_for(event.project, dict(self.config.remotes))
        if repo is None:
            raise WebhookRefused(
                f"no remote is configured for {event.project!r}: add it to `remotes` (BRANCHGRAPH_REMOTES)", 404
            )
        assert event.branch is not None
        answer["repo"] = repo
        if event.action == INDEX:
            self.pg.record_push(repo, event.branch, event.after_commit or "", event.commits, datetime.now(UTC))
            answer["job"] = self.queue.enqueue_index(repo, event.branch).to_dict()
        else:
            answer["job"] = self.queue.enqueue_drop(repo, event.branch).to_dict()
        return answer
