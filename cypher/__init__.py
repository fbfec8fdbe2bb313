"""Named Cypher queries, one ``*.cypher`` file per query (package data)."""
