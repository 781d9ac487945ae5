"""Chat models through litellm: OpenAI, DeepSeek, Qwen, or any OpenAI-compatible server.

Spec: ``litellm:<model>`` with litellm's own model names, e.g.
``litellm:deepseek/deepseek-chat`` or ``litellm:openai/gpt-4o-mini``; for a
self-hosted OpenAI-compatible server, ``litellm:openai/<served name>`` plus
``UNITRAG_LLM_API_BASE``.

``UNITRAG_LLM_API_BASE`` and ``UNITRAG_LLM_API_KEY`` override the endpoint and key;
unset, litellm reads the provider's own variables (``DEEPSEEK_API_KEY`` ...). A
server that checks no key still needs some value: the OpenAI client refuses to
send a request without one.

Retries are ours, not litellm's (its ``num_retries`` and the OpenAI client's
``max_retries`` are set to 0): exponential backoff on 429, 5xx, timeouts and
connection errors, so the total wait is bounded and predictable. Every failure
leaves as :class:`LLMUnavailable`, its reason redacted (``redact.py``: the endpoint's
password, the key, anything key-shaped) and raised outside the handler, so not even the
exception's ``__context__`` holds the provider's raw message.

``mock_response`` is litellm's offline test feature, passed through unchanged; a
list of them is consumed one per request (the last one repeats), so tests can
script "429, then an answer" or "a bad answer, then a corrected one".
"""

from __future__ import annotations

import importlib.util
import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from ...errors import UserError
from ..endpoint import configured_endpoint, plain_model_name
from ..litellm_support import error_reason, import_litellm
from .base import LLM, FailureKind, LLMUnavailable, is_usable
from .redact import endpoint_secrets, redact_secrets

API_BASE_ENV = "UNITRAG_LLM_API_BASE"
API_KEY_ENV = "UNITRAG_LLM_API_KEY"

T = TypeVar("T")

_CONNECTION = re.compile(r"connection|connect|refused|name or service not known|nodename|unreachable|network", re.I)
_NO_KEY = re.compile(r"missing credentials|api[_ ]?key|no auth|unauthori[sz]ed|credentials", re.I)




class LiteLLMChat(LLM):
    provider = "litellm"

    def __init__(
        self,
        model: str = "openai/gpt-4o-mini",
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        num_retries: int = 2,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        temperature: float | None = None,
        max_tokens: int | None = None,
        mock_response: Any = None,
        **params: Any,
    ) -> None:
        """``timeout`` is per request; a failed request is retried ``num_retries`` times after
        ``backoff_base * 2**attempt`` seconds (at most ``backoff_max``, or the server's Retry-After).
        ``params`` go to ``litellm.completion`` unchanged."""
        if not model:
            raise UserError("llm litellm: needs a model, e.g. litellm:deepseek/deepseek-chat or litellm:openai/gpt-4o-mini")
        if importlib.util.find_spec("litellm") is None:
            raise UserError(f"llm litellm:{model} needs the litellm package; install it with `pip install unitrag[api]`")
        super().__init__(plain_model_name(model, "llm litellm"))
        self.api_base = configured_endpoint(api_base, API_BASE_ENV)
        self.api_key = api_key or os.environ.get(API_KEY_ENV) or None
        self.timeout = float(timeout)
        self.num_retries = max(0, int(num_retries))
        self.backoff_base = max(0.0, float(backoff_base))
        self.backoff_max = max(0.0, float(backoff_max))
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.params = params
        self._mocks: list[Any] | None = None
        self._mock: Any = None
        if isinstance(mock_response, Sequence) and not isinstance(mock_response, str):
            self._mocks = list(mock_response)
            if not self._mocks:
                raise ValueError("mock_response: an empty list scripts no response")
        else:
            self._mock = mock_response
        self._mock_lock = threading.Lock()

    # -- the one method -----------------------------------------------------------------

    def complete(self, messages: list[dict[str, str]], *, stream: bool = False) -> str | Iterator[str]:
        self._check_key()
        if not stream:
            return self._with_retries(lambda: self._ask(messages))
        first, rest = self._with_retries(lambda: self._open_stream(messages))
        return self._relay(first, rest)

    def prepare(self) -> None:
        import_litellm(f"llm {self.id}")

    # -- requests -----------------------------------------------------------------------

    def _request(self, messages: list[dict[str, str]], stream: bool) -> Any:
        kwargs: dict[str, Any] = dict(self.params)
        kwargs.update(model=self.model, messages=messages, stream=stream, timeout=self.timeout, num_retries=0, max_retries=0)
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self.api_key:
            kwargs["api_key"] = self.api_key
        if self.temperature is not None:
            kwargs.setdefault("drop_params", True)  # models without a temperature (o1...) drop it instead of failing
            kwargs["temperature"] = self.temperature
        if self.max_tokens is not None:
            kwargs["max_tokens"] = self.max_tokens
        mock = self._next_mock()
        if mock is not None:
            kwargs["mock_response"] = mock
        return import_litellm("llm litellm:<model>").completion(**kwargs)

    def _ask(self, messages: list[dict[str, str]]) -> str:
        response = self._request(messages, stream=False)
        try:
            text = response.choices[0].message.content
        except (AttributeError, IndexError, KeyError, TypeError):
            text = None
        if not is_usable(text):
            raise LLMUnavailable(f"{self.id}: empty or unusable output ({text!r:.60})", kind="empty")
        return str(text).strip()

    def _open_stream(self, messages: list[dict[str, str]]) -> tuple[str, Iterator[str]]:
        """Start a stream and read up to its first real piece, so a stream that dies
        before saying anything is retried like any failed request."""
        pieces = _pieces(self._request(messages, stream=True))
        for piece in pieces:
            if piece.strip():
                return piece.lstrip(), pieces
        raise LLMUnavailable(f"{self.id}: the stream ended without any text", kind="empty")

    def _relay(self, first: str, rest: Iterator[str]) -> Iterator[str]:
        failure: LLMUnavailable | None = None
        try:
            yield first
            yield from rest
        except Exception as exc:  # mid-stream: what was said is said; report why it stopped
            kind, _, reason = self._classify(exc)
            failure = LLMUnavailable(f"{self.id}: the stream broke off ({reason})", kind=kind)
        finally:  # a reader that stops early releases the connection now
            close = getattr(rest, "close", None)
            if callable(close):
                close()
        if failure is not None:  # raised here, not in the handler: the raw exception is not its context
            raise failure

    def _next_mock(self) -> Any:
        if self._mocks is None:
            return self._mock
        with self._mock_lock:
            return self._mocks.pop(0) if len(self._mocks) > 1 else self._mocks[0]

    # -- failures -----------------------------------------------------------------------

    def _check_key(self) -> None:
        """Fail at once, without a request or retries, when the provider's key is not set."""
        if self.api_key or self._mock is not None or self._mocks is not None:
            return
        try:
            missing = import_litellm("llm litellm:<model>").validate_environment(model=self.model, api_base=self.api_base).get("missing_keys") or []
        except Exception:  # an unknown provider: the request itself will say so
            return
        keys = [name for name in missing if re.search(r"KEY|TOKEN|SECRET", name)]
        if keys:
            hint = "; any value will do for a server that checks none" if self.api_base else ""
            raise LLMUnavailable(f"{self.id}: no API key; set {' or '.join(keys)} (or {API_KEY_ENV}){hint}", kind="no_key")

    def _with_retries(self, call: Callable[[], T]) -> T:
        attempt = 0
        while True:
            try:
                return call()
            except LLMUnavailable:
                raise
            except Exception as exc:
                kind, retryable, reason = self._classify(exc)
                if not retryable or attempt >= self.num_retries:
                    tries = f" after {attempt + 1} attempts" if attempt else ""
                    failure = LLMUnavailable(f"{self.id}: {reason}{tries}", kind=kind)
                else:
                    time.sleep(self._delay(attempt, exc))
                    attempt += 1
                    continue
            raise failure  # outside the handler: the provider's raw message is not its context

    def _delay(self, attempt: int, exc: BaseException) -> float:
        delay = self.backoff_base * (2**attempt) * (1 + 0.25 * random.random())  # jitter: spread concurrent retries
        retry_after = _retry_after(exc)
        if retry_after is not None:
            delay = max(delay, retry_after)
        return min(delay, self.backoff_max)

    def _classify(self, exc: BaseException) -> tuple[FailureKind, bool, str]:
        """(kind, worth retrying, one-line reason with secrets masked) for any exception litellm or the stream raised."""
        import openai

        secrets = endpoint_secrets(self.api_base, self.api_key)
        reason = redact_secrets(error_reason(exc), secrets)
        where = redact_secrets(self.api_base, secrets) if self.api_base else "the provider's endpoint"
        status = getattr(exc, "status_code", None)
        if isinstance(exc, (openai.APITimeoutError, TimeoutError)) or status == 408:
            return "timeout", True, f"timed out after {self.timeout:g} s ({reason})"
        if isinstance(exc, openai.RateLimitError) or status == 429:
            return "rate_limit", True, f"rate limited (429: {reason})"
        if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)) or status in (401, 403):
            return "no_key", False, f"the API rejected the key ({reason}); check {API_KEY_ENV}"
        if _NO_KEY.search(reason) and not _CONNECTION.search(reason):
            return "no_key", False, f"no usable API key ({reason}); set {API_KEY_ENV}"
        if isinstance(exc, (openai.APIConnectionError, ConnectionError)) or _CONNECTION.search(reason):
            return "connection", True, f"cannot reach {where} ({reason})"
        if isinstance(status, int) and status >= 500:
            return "server", True, f"server error ({status}: {reason})"
        if isinstance(status, int) and status >= 400:
            return "refused", False, f"the API refused the request ({status}: {reason})"
        return "error", False, f"{type(exc).__name__}: {reason}"


def _pieces(stream: Any) -> Iterator[str]:
    """The text deltas of a litellm stream, empty ones skipped; the HTTP stream is closed
    when this generator is, also when the reader stops early."""
    try:
        for chunk in stream:
            try:
                piece = chunk.choices[0].delta.content
            except (AttributeError, IndexError, KeyError, TypeError):
                continue
            if isinstance(piece, str) and piece:
                yield piece
    finally:
        close = getattr(stream, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # best effort: the answer is already in hand
                pass


def _retry_after(exc: BaseException) -> float | None:
    """The server's Retry-After in seconds, when it sent one (numeric form only)."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    try:
        value = headers.get("retry-after")
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None
