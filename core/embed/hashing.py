"""A deterministic feature-hashing embedder.

It is no language model: identifier parts and their neighbouring pairs are hashed into a
fixed number of signed buckets. It needs nothing installed or downloaded, and gives tests
real, reproducible vectors; semantic search wants the local or OpenAI embedder.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence

import numpy as np

from branchgraph.core.lexical import lexical_text


class HashingEmbedder:
    """Feature hashing of identifier-split tokens and token bigrams (log-scaled counts)."""

    def __init__(self, dims: int = 256):
        if dims < 8:
            raise ValueError("dims must be at least 8")
        self._dims = dims

    @property
    def model_id(self) -> str:
        return "feature-hashing-v1"

    @property
    def dims(self) -> int:
        return self._dims

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._dims), dtype=np.float32)
        for row, text in enumerate(texts):
            tokens = lexical_text(text).split()
            features = tokens + [f"{a} {b}" for a, b in itertools.pairwise(tokens)]
            for feature in features:
                h = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
                out[row, h % self._dims] += 1.0 if (h >> 63) & 1 else -1.0
            np.copysign(np.log1p(np.abs(out[row])), out[row], out=out[row])
            norm = float(np.linalg.norm(out[row]))
            if norm > 0:
                out[row] /= norm
        return out
