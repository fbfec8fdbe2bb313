"""branchgraph: a branch-aware code knowledge graph.

The package root exports the exception hierarchy only; the Python API is ``branchgraph.api``.
"""

from branchgraph.core.errors import (
    AmbiguousRepository,
    BranchgraphError,
    BranchNotIndexed,
    ConfigError,
    CoverageReportError,
    EmbedderMismatch,
    EmbeddingError,
    GitError,
    IngestLocked,
    NotIndexed,
    OutsideRepository,
    ReadOnlyViolation,
    StoreError,
    StoreUnavailable,
    UnknownQuery,
    WebhookRefused,
)

__all__ = [
    "AmbiguousRepository",
    "BranchNotIndexed",
    "BranchgraphError",
    "ConfigError",
    "CoverageReportError",
    "EmbedderMismatch",
    "EmbeddingError",
    "GitError",
    "IngestLocked",
    "NotIndexed",
    "OutsideRepository",
    "ReadOnlyViolation",
    "StoreError",
    "StoreUnavailable",
    "UnknownQuery",
    "WebhookRefused",
]
