"""The OpenAI-compatible embedder against a local server started by the test."""

from __future__ import annotations

import time

import numpy as np
import pytest
from fake_openai import FakeOpenAI, vector_for

from branchgraph.core.embed.openai_provider import CHARS_PER_TOKEN, OpenAIEmbedder, batches
from branchgraph.core.errors import EmbeddingError


def normalised(v):
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v)


@pytest.fixture
def server():
    with FakeOpenAI(dims=8) as fake:
        yield fake


def embedder(server, **kw) -> OpenAIEmbedder:
    return OpenAIEmbedder(model="fake-embed", api_key="sk-test", base_url=server.url, **kw)


def test_vectors_come_back_in_input_order_and_normalised(server):
    texts = ["alpha", "beta", "gamma"]
    out = embedder(server).embed(texts)
    assert out.shape == (3, 8)
    for row, text in zip(out, texts, strict=True):
        assert np.allclose(row, normalised(vector_for(text, 8)), atol=1e-6)


def test_unknown_model_size_is_probed_once(server):
    e = embedder(server)
    assert e.dims == 8 and e.dims == 8
    assert sum(1 for r in server.requests if r["body"]["input"] == ["dimension probe"]) == 1
    assert e.model_id == "openai:fake-embed"


def test_requested_dimensions_are_sent(server):
    e = embedder(server, dims=4)
    assert e.embed(["x"]).shape == (1, 4)
    assert server.requests[-1]["body"]["dimensions"] == 4


def test_batches_follow_the_token_estimate():
    texts = ["a" * (CHARS_PER_TOKEN * 10 - 1)] * 5
    assert batches(texts, max_tokens=25, max_inputs=100) == [[0, 1], [2, 3], [4]]
    assert batches(["x"] * 5, max_tokens=10_000, max_inputs=2) == [[0, 1], [2, 3], [4]]


def test_large_inputs_are_split_into_requests(server):
    texts = [f"text {i} " + "y" * 4000 for i in range(30)]
    out = OpenAIEmbedder(model="fake-embed", dims=8, api_key="sk-test", base_url=server.url, concurrency=2).embed(texts)
    assert out.shape == (30, 8)
    sizes = [len(r["body"]["input"]) for r in server.requests]
    assert sum(sizes) == 30 and len(sizes) == len(batches([t for t in texts]))


def test_retries_429_and_500_honouring_retry_after(server):
    server.script = [(429, {"Retry-After": "1"}), (500, {}), None]
    start = time.monotonic()
    out = embedder(server, dims=8).embed(["hello"])
    assert out.shape == (1, 8)
    assert len(server.requests) == 3
    assert time.monotonic() - start >= 1.0  # waited as Retry-After said


def test_gives_up_on_a_bad_key_without_retrying(server):
    e = OpenAIEmbedder(model="fake-embed", dims=8, api_key="sk-wrong", base_url=server.url)
    with pytest.raises(EmbeddingError, match="API key"):
        e.embed(["hello"])
    assert len(server.requests) == 1


def test_persistent_server_errors_end_in_a_clear_error(server, monkeypatch):
    import branchgraph.core.embed.openai_provider as provider

    monkeypatch.setattr(provider, "_MAX_RETRY_AFTER_S", 0.0)
    server.script = [(503, {"Retry-After": "0"})] * provider.MAX_ATTEMPTS
    with pytest.raises(EmbeddingError, match="kept failing"):
        embedder(server, dims=8).embed(["hello"])
    assert len(server.requests) == provider.MAX_ATTEMPTS
