"""Ingest: parse a commit's files (through the foundation's extractor and language registry),
resolve their references with one resolver per language, and write subgraphs, vectors and
index state through the store protocols.

Never imports ``branchgraph.retrieval`` (tests/test_layers.py).
"""
