"""Ingest: read a branch from git, extract symbols with tree-sitter, resolve references,
embed symbols, and write everything to the stores.

Never imports ``branchgraph.retrieval``.
"""
