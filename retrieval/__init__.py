"""Retrieval: entry search, bounded graph expansion, ranking, span assembly and the token
budget of ``context()``.

Reads the stores through their protocols (``branchgraph.graph.protocols``) and git and the
language registry through the foundation (``branchgraph.core``); never imports
``branchgraph.ingest`` (tests/test_layers.py).
"""
