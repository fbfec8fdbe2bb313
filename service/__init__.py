"""Indexing as a service: git-server webhooks, the PostgreSQL job queue its workers share,
worker mirrors of the configured remotes, and the metrics a team watches."""
