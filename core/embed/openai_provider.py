"""Embeddings from OpenAI or any OpenAI-compatible server (``OPENAI_BASE_URL``).

Inputs are batched by a token estimate, requests run with bounded concurrency, and
transient failures (429, 5xx, timeouts, dropped connections) are retried with exponential
backoff and jitter, honouring ``Retry-After``. Permanent failures (bad key, unknown model,
bad request) raise ``EmbeddingError`` at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import openai
from tenacity import RetryCallState, retry, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from branchgraph.core.errors import EmbeddingError

# Known output sizes, so the cache key is known before the first request.
_KNOWN_DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}
# A token is about four characters of code; inputs are cut to stay under the 8k input limit.
CHARS_PER_TOKEN = 4
MAX_INPUT_TOKENS = 8_000
MAX_BATCH_TOKENS = 100_000
MAX_BATCH_INPUTS = 512
MAX_ATTEMPTS = 6
_MAX_RETRY_AFTER_S = 60.0


def estimate_tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN + 1


def batches(
    texts: Sequence[str], max_tokens: int = MAX_BATCH_TOKENS, max_inputs: int = MAX_BATCH_INPUTS
) -> list[list[int]]:
    """Indices of ``texts`` grouped so no batch exceeds the token or input limit."""
    groups: list[list[int]] = []
    current: list[int] = []
    tokens = 0
    for i, text in enumerate(texts):
        cost = min(estimate_tokens(text), MAX_INPUT_TOKENS)
        if current and (tokens + cost > max_tokens or len(current) >= max_inputs):
            groups.append(current)
            current, tokens = [], 0
        current.append(i)
        tokens += cost
    if current:
        groups.append(current)
    return groups


_TRANSIENT = (openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError, openai.InternalServerError)


def _is_transient(exc: BaseException) -> bool:
    return isinstance(exc, _TRANSIENT)


def _retry_after(exc: BaseException | None) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return min(float(value), _MAX_RETRY_AFTER_S) if value is not None else None
    except ValueError:
        return None


_backoff = wait_exponential_jitter(multiplier=0.5, max=20)


def _wait(state: RetryCallState) -> float:
    exc = state.outcome.exception() if state.outcome else None
    after = _retry_after(exc)
    return after if after is not None else _backoff(state)


class OpenAIEmbedder:
    """The ``openai`` client's embeddings endpoint, batched and retried."""

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        dims: int | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        concurrency: int = 4,
        timeout_s: float = 60.0,
    ):
        self.model = model
        self._requested_dims = dims
        self._dims = dims or _KNOWN_DIMS.get(model)
        self.concurrency = max(1, concurrency)
        try:
            # The client's own retries are off: tenacity below owns the policy.
            self._client = openai.OpenAI(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout_s)
        except openai.OpenAIError as exc:
            raise EmbeddingError(f"cannot configure the OpenAI client: {exc} (set OPENAI_API_KEY)") from exc

    @property
    def model_id(self) -> str:
        return f"openai:{self.model}"

    @property
    def dims(self) -> int:
        if self._dims is None:
            # An unknown model on a compatible server: one probe request tells its size.
            self._dims = int(self._request(["dimension probe"]).shape[1])
        return self._dims

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        clipped = [t[: MAX_INPUT_TOKENS * CHARS_PER_TOKEN] or " " for t in texts]
        groups = batches(clipped)
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            results = list(pool.map(lambda g: self._request([clipped[i] for i in g]), groups))
        out = np.zeros((len(texts), results[0].shape[1]), dtype=np.float32)
        for group, vectors in zip(groups, results, strict=True):
            out[group] = vectors
        return out

    def _request(self, inputs: list[str]) -> np.ndarray:
        try:
            return self._request_with_retries(inputs)
        except _TRANSIENT as exc:
            raise EmbeddingError(f"embedding service kept failing after {MAX_ATTEMPTS} attempts: {exc}") from exc
        except openai.AuthenticationError as exc:
            raise EmbeddingError("the embedding service rejected the API key (OPENAI_API_KEY)") from exc
        except openai.NotFoundError as exc:
            raise EmbeddingError(f"the embedding service does not know model {self.model!r}") from exc
        except openai.APIStatusError as exc:
            raise EmbeddingError(
                f"the embedding service refused the request ({exc.status_code}): {exc.message}"
            ) from exc

    @retry(retry=retry_if_exception(_is_transient), stop=stop_after_attempt(MAX_ATTEMPTS), wait=_wait, reraise=True)
    def _request_with_retries(self, inputs: list[str]) -> np.ndarray:
        kwargs: dict[str, Any] = {"model": self.model, "input": inputs}
        if self._requested_dims:
            kwargs["dimensions"] = self._requested_dims
        response = self._client.embeddings.create(**kwargs)
        data = sorted(response.data, key=lambda d: d.index)
        vectors = np.asarray([d.embedding for d in data], dtype=np.float32)
        if vectors.shape[0] != len(inputs):
            raise EmbeddingError(f"the embedding service returned {vectors.shape[0]} vectors for {len(inputs)} inputs")
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1, norms)
