"""Embedders: the provider interface, the providers, and the enriched text they embed."""

from branchgraph.core.embed.base import Embedder, content_key, make_embedder

__all__ = ["Embedder", "content_key", "make_embedder"]
