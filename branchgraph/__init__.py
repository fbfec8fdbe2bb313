"""branchgraph: a branch-aware code knowledge graph."""
