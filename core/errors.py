"""branchgraph's exception hierarchy. Store and driver errors are translated into these at
the store boundary (``raise ... from exc``) so callers never see a driver's own types."""


class BranchgraphError(Exception):
    """Base class of every error branchgraph raises on purpose."""


class ConfigError(BranchgraphError):
    """The configuration is invalid or incomplete."""


class GitError(BranchgraphError):
    """The repository, branch or revision cannot be read."""


class StoreUnavailable(BranchgraphError):
    """A database cannot be reached (after retries)."""


class StoreError(BranchgraphError):
    """A database rejected an operation."""


class ReadOnlyViolation(StoreError):
    """A read-only query tried to write."""


class EmbeddingError(BranchgraphError):
    """The embedding provider failed permanently."""


class NotIndexed(BranchgraphError):
    """The repository or branch has not been ingested."""


class BranchNotIndexed(NotIndexed):
    """A branch git has and the index does not (yet): ``context`` answers it from an indexed base."""

    def __init__(self, message: str, root: object, name: str, branch: str):
        super().__init__(message)
        self.root, self.name, self.branch = root, name, branch


class IngestLocked(StoreError):
    """Another ingest of the same repository and branch holds the lock."""


class UnknownQuery(BranchgraphError):
    """No named query has that name, or its parameters are incomplete."""


class EmbedderMismatch(BranchgraphError):
    """The query would be embedded by another model than the branch's vectors."""


class OutsideRepository(BranchgraphError):
    """A path would resolve outside the repository."""


class AmbiguousRepository(BranchgraphError):
    """A repository name that several indexed repositories share."""


class WebhookRefused(BranchgraphError):
    """A webhook delivery that is not authentic, is a replay, or cannot be read; ``status``
    is the HTTP status to answer with."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


class CoverageReportError(BranchgraphError):
    """A file given as a coverage report is not a coverage.py JSON report with contexts."""
