"""branchgraph: a branch-aware code knowledge graph.

The package root exports the exception hierarchy only; the Python API is ``branchgraph.api``.
"""

from branchgraph.core.errors import (
    AmbiguousRepository,
    BranchgraphError,
    ConfigError,
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
)

__all__ = [
    "AmbiguousRepository",
    "BranchgraphError",
    "ConfigError",
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
]
