"""The stores: one protocol per capability (``protocols.py``) and one module per capability
and backend — Neo4j (``neo4j_*.py``, named queries from ``cypher/``, schema from ``schema/``)
and PostgreSQL with pgvector (``pg_*.py``) — plus the embedded PostgreSQL.

Imports only the foundation (``branchgraph.core``); never ingest, retrieval or the API.
"""
