"""Embedding APIs through litellm: OpenAI, Cohere, Voyage, or any OpenAI-compatible server.

Spec: ``litellm:<model>`` with litellm's own model names, e.g.
``litellm:openai/text-embedding-3-small`` or, for a self-hosted OpenAI-compatible
server, ``litellm:openai/<served model name>`` plus ``UNITRAG_EMBEDDER_API_BASE``.

``UNITRAG_EMBEDDER_API_BASE`` and ``UNITRAG_EMBEDDER_API_KEY`` override the endpoint
and key; unset, litellm reads the provider's own variables (``OPENAI_API_KEY`` ...).
A server that checks no key still needs some value, because the OpenAI client
refuses to send a request without one.

The query/passage distinction reaches the API only where the provider defines it
(Cohere, Voyage, NVIDIA NIM); OpenAI rejects unknown fields, so OpenAI-style
endpoints embed queries and passages alike.
"""

from __future__ import annotations

import os
import re
from typing import Any

import numpy as np

from ...errors import UserError
from ..endpoint import configured_endpoint, plain_model_name
from ..litellm_support import error_reason, import_litellm
from .base import Embedder, normalise

API_BASE_ENV = "UNITRAG_EMBEDDER_API_BASE"
API_KEY_ENV = "UNITRAG_EMBEDDER_API_KEY"

#: litellm provider → the ``input_type`` values its API takes for (query, passage).
INPUT_TYPES: dict[str, tuple[str, str]] = {
    "cohere": ("search_query", "search_document"),
    "voyage": ("query", "document"),
    "nvidia_nim": ("query", "passage"),
}




class LiteLLMEmbedder(Embedder):
    provider = "litellm"
    max_tokens = 512

    def __init__(
        self,
        model: str = "openai/text-embedding-3-small",
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        batch_size: int = 64,
        timeout: float = 60.0,
        max_retries: int = 2,
    ) -> None:
        if not model:
            raise UserError("embedder litellm: needs a model, e.g. litellm:openai/text-embedding-3-small")
        super().__init__(plain_model_name(model, "embedder litellm"))
        self.api_base = configured_endpoint(api_base, API_BASE_ENV)
        self.api_key = api_key or os.environ.get(API_KEY_ENV) or None
        self.batch_size = max(1, batch_size)
        self.timeout = timeout
        self.max_retries = max_retries
        self._dim: int | None = None
        self._llm_provider: str | None = None

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def _provider_of(self, litellm: Any) -> str | None:
        if self._llm_provider is None:
            try:
                self._llm_provider = str(litellm.get_llm_provider(self.model, api_base=self.api_base)[1])
            except Exception:  # an unknown provider is reported by the request itself
                return None
        return self._llm_provider

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        litellm = import_litellm("embedder litellm:<model>")
        extra: dict[str, Any] = {}
        input_types = INPUT_TYPES.get(self._provider_of(litellm) or "")
        if input_types:
            extra["input_type"] = input_types[0] if query else input_types[1]
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            try:
                response = litellm.embedding(
                    model=self.model,
                    input=batch,
                    api_base=self.api_base,
                    api_key=self.api_key,
                    timeout=self.timeout,
                    max_retries=self.max_retries,
                    **extra,
                )
            except Exception as exc:  # litellm wraps every failure; turn it into one line the user can act on
                raise self._user_error(litellm, exc) from None
            items = sorted(response.data, key=lambda item: _field(item, "index"))
            if len(items) != len(batch):
                raise UserError(f"embedder litellm:{self.model}: the API returned {len(items)} vectors for {len(batch)} texts; check that {API_BASE_ENV} points at an embeddings endpoint")
            rows.extend(_field(item, "embedding") for item in items)
        vectors = normalise(np.asarray(rows, dtype=np.float32))
        self._dim = int(vectors.shape[1])
        return vectors

    def _user_error(self, litellm: Any, exc: Exception) -> UserError:
        reason = error_reason(exc)
        lowered = reason.lower()
        where = self.api_base or "the provider's default endpoint"
        provider = self._provider_of(litellm)
        key_var = f"{provider.upper()}_API_KEY" if provider else "the provider's API key variable"
        if "llm provider not provided" in lowered:
            return UserError(f"embedder litellm:{self.model}: litellm does not know this provider; write provider/model, e.g. litellm:openai/text-embedding-3-small")
        if isinstance(exc, getattr(litellm, "AuthenticationError", ())) or re.search(r"api[_ ]?key|credentials|unauthori[sz]ed|\b401\b", lowered):
            return UserError(f"embedder litellm:{self.model}: no valid API key ({reason}); set {API_KEY_ENV} or {key_var}")
        if isinstance(exc, (getattr(litellm, "APIConnectionError", ()), getattr(litellm, "Timeout", ()))) or re.search(
            r"connection|connect|timed? ?out|name or service not known|refused|unreachable", lowered
        ):
            return UserError(f"embedder litellm:{self.model}: cannot reach {where} ({reason}); check {API_BASE_ENV} and the network")
        if isinstance(exc, (getattr(litellm, "NotFoundError", ()), getattr(litellm, "BadRequestError", ()))):
            return UserError(f"embedder litellm:{self.model}: the API refused the request ({reason}); check the model name in `embedder`")
        return UserError(f"embedder litellm:{self.model}: the embeddings request to {where} failed ({reason}); check `embedder`, {API_BASE_ENV} and {API_KEY_ENV}")


def _field(item: Any, name: str) -> Any:
    """litellm returns plain dicts for some providers and objects for others."""
    return item[name] if isinstance(item, dict) else getattr(item, name)
