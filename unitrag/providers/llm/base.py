"""The LLM interface: one abstract method, and one exception for every way a call can fail.

Callers never need to know litellm's (or any provider's) exception zoo: a provider
turns every failure into :class:`LLMUnavailable`, and the RAG pipeline answers it
with an extractive answer instead of an error.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Any, ClassVar, Literal

#: Why a call failed, coarse enough to count in metrics and to test against.
FailureKind = Literal["no_key", "timeout", "rate_limit", "server", "connection", "refused", "empty", "error"]
#: What a caller outside the server may learn of a failure: one fixed word, never the provider's text
#: (which can echo the endpoint's password or the key it rejected).
LLMErrorCategory = Literal["llm_auth", "llm_timeout", "llm_rate_limited", "llm_unavailable", "llm_error"]
CATEGORIES: dict[FailureKind, LLMErrorCategory] = {
    "no_key": "llm_auth", "timeout": "llm_timeout", "rate_limit": "llm_rate_limited", "server": "llm_unavailable",
    "connection": "llm_unavailable", "refused": "llm_error", "empty": "llm_error", "error": "llm_error",
}


def is_usable(text: Any) -> bool:
    """Text with at least one letter, digit or CJK character (not empty, not just punctuation): what an answer must
    have, whether it came in one piece or streamed."""
    return isinstance(text, str) and any(ch.isalnum() for ch in text)


class LLMUnavailable(Exception):
    """The LLM gave no usable answer (no key, timeout, 429 after retries, 5xx, unreachable, empty output).

    ``reason`` is one line an operator can act on, with secrets masked (``redact.redact_secrets``);
    ``kind`` classifies it, and ``category`` is all of it a caller outside the server is told.
    """

    def __init__(self, reason: str, *, kind: FailureKind = "error") -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind: FailureKind = kind

    @property
    def category(self) -> LLMErrorCategory:
        return CATEGORIES[self.kind]


class LLM(ABC):
    """A chat model: OpenAI-style messages in, text (or text pieces) out.

    ``id`` (``provider:model``) is what answers and logs record, so a result can
    be traced to the model that wrote it.
    """

    provider: ClassVar[str]

    def __init__(self, model: str) -> None:
        self.model = model

    @property
    def id(self) -> str:
        return f"{self.provider}:{self.model}"

    @abstractmethod
    def complete(self, messages: list[dict[str, str]], *, stream: bool = False) -> str | Iterator[str]:
        """The answer to ``messages``; with ``stream``, an iterator of its pieces.

        Raises :class:`LLMUnavailable` on any failure, also from inside the iterator.
        """

    def prepare(self) -> None:
        """Load what the first call needs (a library import) now, so a caller's deadline times the request alone.

        The guard's second opinion and the translation probe give the LLM a few seconds; importing
        litellm alone takes that long on a small machine.
        """

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id}>"
