"""LLMs by name: ``provider:model`` strings select and configure them, ``none`` selects none.

Providers are imported lazily, so opening a knowledge base without an LLM (or
before the first question) never imports litellm, which takes seconds.
"""

from __future__ import annotations

from typing import Any

from ..registry import ProviderRegistry
from .base import LLM, FailureKind, LLMErrorCategory, LLMUnavailable

#: The spec for "no LLM": answers are extractive, built from the sources alone.
NO_LLM = "none"

LLMS: ProviderRegistry[LLM] = ProviderRegistry(
    "llm", {"litellm": "unitrag.providers.llm.litellm:LiteLLMChat"}, example="none, litellm:deepseek/deepseek-chat"
)
register_llm = LLMS.register
available_providers = LLMS.available
parse_spec = LLMS.parse
llm_class = LLMS.resolve


def is_none(spec: str | None) -> bool:
    """True for the specs that mean "no LLM configured": ``none``, empty, or missing."""
    return spec is None or spec.strip().lower() in ("", NO_LLM)


def load_llm(spec: str | None, **options: Any) -> LLM | None:
    """An LLM for a config string such as ``litellm:openai/gpt-4o-mini``; ``None`` for ``none``.

    ``options`` go to the provider's constructor (``timeout``, ``num_retries``, ``mock_response`` ...).
    """
    if is_none(spec):
        return None
    assert spec is not None
    _, model = parse_spec(spec)
    return llm_class(spec)(model, **options)  # type: ignore[call-arg]  # an empty model is the provider's error to explain


__all__ = ["LLM", "LLMS", "NO_LLM", "FailureKind", "LLMErrorCategory", "LLMUnavailable", "available_providers", "is_none", "llm_class", "load_llm", "parse_spec", "register_llm"]
