"""``litellm:<model>``: hosted rerank APIs through ``litellm.rerank`` (Cohere, Jina, Voyage, Infinity...).

Spec examples: ``litellm:cohere/rerank-v3.5``, ``litellm:jina_ai/jina-reranker-v2-base-multilingual``,
``litellm:voyage/rerank-2``. ``UNITRAG_RERANKER_API_BASE`` and ``UNITRAG_RERANKER_API_KEY``
override the endpoint and key; unset, litellm reads the provider's own variables
(``COHERE_API_KEY``, ``JINA_AI_API_KEY``, ``VOYAGE_API_KEY``...). A self-hosted server
that speaks Cohere's ``/v1/rerank`` works as ``litellm:cohere/<model>`` plus the base URL.

These APIs return relevance scores in [0, 1]; a document the API leaves out of its
answer scores 0. Every failure (no key, no network, a refusal) is a ``UserError``
saying what to set.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

from ...errors import UserError
from ..endpoint import configured_endpoint, plain_model_name
from ..litellm_support import error_reason, import_litellm
from .base import Reranker, passage

API_BASE_ENV = "UNITRAG_RERANKER_API_BASE"
API_KEY_ENV = "UNITRAG_RERANKER_API_KEY"




def _field(item: Any, name: str) -> Any:
    return item[name] if isinstance(item, dict) else getattr(item, name)


class LiteLLMReranker(Reranker):
    provider = "litellm"
    calibrated = True

    def __init__(
        self, model: str = "cohere/rerank-v3.5", *, api_base: str | None = None, api_key: str | None = None,
        timeout: float = 30.0, max_retries: int = 1,
    ) -> None:
        if not model:
            raise UserError("reranker litellm: needs a model, e.g. litellm:cohere/rerank-v3.5")
        super().__init__(plain_model_name(model, "reranker litellm"))
        self.api_base = configured_endpoint(api_base, API_BASE_ENV)
        self.api_key = api_key or os.environ.get(API_KEY_ENV) or None
        self.timeout = timeout
        self.max_retries = max_retries

    def score(self, question: str, sources: Sequence[Any]) -> list[float]:
        if not sources:
            return []
        litellm = import_litellm("reranker litellm:<model>")
        documents = [passage(s) for s in sources]
        try:
            response = litellm.rerank(
                model=self.model, query=question, documents=documents, top_n=len(documents), return_documents=False,
                api_base=self.api_base, api_key=self.api_key, timeout=self.timeout, max_retries=self.max_retries,
            )
        except Exception as exc:  # litellm wraps every failure; make it one line the user can act on
            raise self._user_error(exc) from None
        scores = [0.0] * len(documents)
        for item in _field(response, "results") or []:
            index = int(_field(item, "index"))
            if 0 <= index < len(scores):
                scores[index] = float(_field(item, "relevance_score"))
        return scores

    def _user_error(self, exc: Exception) -> UserError:
        reason = error_reason(exc)
        lowered = reason.lower()
        where = self.api_base or "the provider's default endpoint"
        if "llm provider not provided" in lowered or "unsupported provider" in lowered:
            return UserError(f"reranker litellm:{self.model}: litellm has no rerank API for this provider; write provider/model, e.g. litellm:cohere/rerank-v3.5")
        status = getattr(exc, "status_code", None)
        if status in (401, 403) or isinstance(exc, getattr(import_litellm("reranker litellm:<model>"), "AuthenticationError", ())) or re.search(
            r"api[_ ]?(key|token)|credentials|unauthori[sz]ed|\b401\b", lowered
        ):
            return UserError(f"reranker litellm:{self.model}: no valid API key ({reason}); set {API_KEY_ENV} or the provider's key variable")
        if re.search(r"connection|connect|timed? ?out|name or service not known|refused|unreachable", lowered):
            return UserError(f"reranker litellm:{self.model}: cannot reach {where} ({reason}); check {API_BASE_ENV} and the network")
        return UserError(f"reranker litellm:{self.model}: the rerank request to {where} failed ({reason}); check `reranker`, {API_BASE_ENV} and {API_KEY_ENV}")
