"""Retrieval: entry search, bounded graph expansion, ranking and span assembly.

Not built yet (see the retrieval issue). May use git blob access and language extractors from
``branchgraph.ingest`` but never the ingest pipeline.
"""
