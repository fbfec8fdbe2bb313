"""The knowledge graph's persistence: node/edge model, graph store, vector and metadata store.

This package imports neither ``branchgraph.ingest`` nor ``branchgraph.retrieval``.
"""

from branchgraph.core.model import EDGE_TYPES, NODE_LABELS, Edge, FileSubgraph, Node, node_id

__all__ = ["EDGE_TYPES", "NODE_LABELS", "Edge", "FileSubgraph", "Node", "node_id"]
