"""DDL for the stores: Neo4j constraints and indexes, PostgreSQL tables (package data)."""
