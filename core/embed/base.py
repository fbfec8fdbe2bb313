"""The embedder interface, the content key of an embedding, and the provider factory."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from branchgraph.core.errors import ConfigError


class Embedder(Protocol):
    """Turns texts into unit vectors. ``model_id`` names model and settings exactly."""

    @property
    def model_id(self) -> str: ...

    @property
    def dims(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """A float32 array of shape (len(texts), dims), rows L2-normalised."""
        ...


def content_key(embedder: Embedder, text: str) -> str:
    """Cache key of an embedding: the text, the model and its dimension."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(f"{embedder.model_id}\x1f{embedder.dims}\x1f".encode())
    digest.update(text.encode("utf-8"))
    return digest.hexdigest()


EMBEDDER_NAMES = ("hashing", "local", "local-transformer", "openai", "none")


def make_embedder(
    name: str,
    *,
    openai_model: str | None = None,
    dims: int | None = None,
    api_key: str | None = None,
    base_url: str | None = None,
) -> Embedder | None:
    """Build the configured embedder; ``none`` means graph only (no vectors)."""
    if name == "none":
        return None
    if name == "hashing":
        from branchgraph.core.embed.hashing import HashingEmbedder

        return HashingEmbedder(dims or 256)
    if name == "local":
        from branchgraph.core.embed.minilm import StaticMiniLM

        return StaticMiniLM(dims or 256)
    if name == "local-transformer":
        from branchgraph.core.embed.minilm import MiniLMTransformer

        return MiniLMTransformer()
    if name == "openai":
        from branchgraph.core.embed.openai_provider import OpenAIEmbedder

        return OpenAIEmbedder(
            model=openai_model or "text-embedding-3-small", dims=dims, api_key=api_key, base_url=base_url
        )
    raise ConfigError(f"unknown embedder {name!r}; choose one of {', '.join(EMBEDDER_NAMES)}")
