"""The graph store capability every backend implements."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from branchgraph.graph.model import FileSubgraph

DEFAULT_QUERY_TIMEOUT_S = 30.0
DEFAULT_ROW_LIMIT = 10_000


class GraphStore(Protocol):
    """Persistence of per-branch code graphs."""

    def ensure_schema(self) -> None:
        """Create constraints and indexes (idempotent)."""

    def replace_files(self, repo: str, branch: str, subgraphs: Sequence[FileSubgraph]) -> dict[str, int]:
        """Replace each file's subgraph; every file is written whole in one transaction.
        Returns ``nodes_deleted`` and ``edges_deleted``."""

    def has_branch(self, repo: str, branch: str) -> bool:
        """Whether any file of the branch is stored."""

    def write_new_branch(self, repo: str, branch: str, subgraphs: Sequence[FileSubgraph]) -> None:
        """Bulk-write a branch the store holds nothing of (faster than replacing files)."""

    def clone_branch(self, repo: str, source: str, target: str) -> None:
        """Copy a branch to a new, empty one inside the store (ids rebranched)."""

    def delete_branch(self, repo: str, branch: str) -> int:
        """Delete every node and edge of a branch; return how many nodes went."""

    def files_except(self, repo: str, branch: str, keep_paths: Iterable[str]) -> list[str]:
        """Paths of the branch's stored files that are not in ``keep_paths``."""

    def delete_files(self, repo: str, branch: str, paths: Sequence[str]) -> dict[str, int]:
        """Delete the subgraphs of these files, with every edge into them; return counts."""

    def prune_unresolved(self, repo: str, branch: str) -> int:
        """Delete ``Unresolved`` nodes of the branch that no edge points at any more."""

    def read_query(
        self,
        query: str,
        params: dict[str, Any] | None = None,
        *,
        timeout_s: float = DEFAULT_QUERY_TIMEOUT_S,
        limit: int = DEFAULT_ROW_LIMIT,
    ) -> list[dict[str, Any]]:
        """Run a read-only query; writes are refused with ``ReadOnlyViolation``."""

    def close(self) -> None:
        """Release connections."""
