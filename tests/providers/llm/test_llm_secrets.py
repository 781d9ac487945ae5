"""An LLM failure never carries the endpoint's password or the key (issue 22, item 3): the reason an operator
reads is redacted, the category a caller gets is one fixed word, and no exception in the chain holds the
provider's raw message. Through litellm for real: an unreachable endpoint and ``mock_response`` exceptions."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm's import would fetch prices otherwise

import logging
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import litellm
import pytest

from unitrag.providers.llm import LLMUnavailable
from unitrag.providers.llm.base import CATEGORIES
from unitrag.providers.llm.litellm import API_BASE_ENV, API_KEY_ENV, LiteLLMChat
from unitrag.providers.llm.redact import redact_secrets

pytestmark = pytest.mark.filterwarnings("ignore:Items? .*ReadOnly:UserWarning")  # litellm's pydantic types

SECRETS = ("S3cretPW", "S3cretBase", "S3cretLLMKey")
MESSAGES = [{"role": "user", "content": "How much iodine?"}]


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        leaked = [s for s in SECRETS if s in text]
        assert not leaked, f"{leaked} in {text!r}"


def chain(exc: BaseException | None) -> Iterator[BaseException]:
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def failure_of(llm: LiteLLMChat, stream: bool = False) -> LLMUnavailable:
    with pytest.raises(LLMUnavailable) as caught:
        list(llm.complete(MESSAGES, stream=stream))
    for link in chain(caught.value):  # nothing in the chain holds the provider's raw message
        assert_no_secret(str(link), repr(link), *map(repr, link.args))
    return caught.value


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (API_BASE_ENV, API_KEY_ENV, "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("stream", [False, True])
def test_an_unreachable_endpoint_with_a_password_is_named_without_it(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, stream: bool
) -> None:
    caplog.set_level(logging.INFO)
    port = closed_port()
    monkeypatch.setenv(API_BASE_ENV, f"http://user:S3cretBase@127.0.0.1:{port}/v1")
    monkeypatch.setenv(API_KEY_ENV, "S3cretLLMKey")
    failure = failure_of(LiteLLMChat("openai/local-model", num_retries=0, timeout=2), stream)
    assert (failure.kind, failure.category) == ("connection", "llm_unavailable")
    assert f"cannot reach http://user:***@127.0.0.1:{port}/v1" in failure.reason  # the operator still sees where
    assert_no_secret(caplog.text)


def _rejected(status: int, cls: type, message: str) -> Exception:
    response = httpx.Response(status, request=httpx.Request("POST", "http://llm/v1/chat/completions"))
    return cls(message=message, llm_provider="openai", model="gpt-4o-mini", response=response)


@pytest.mark.parametrize(
    ("failure", "category"),
    [
        (_rejected(401, litellm.AuthenticationError, "Incorrect API key provided: S3cretLLMKey. You can find your key at "
                                                     "https://platform.openai.com/account/api-keys."), "llm_auth"),
        (Exception("Incorrect API key provided: S3cretLLMKey"), "llm_auth"),  # litellm wraps it as a 500
        (_rejected(429, litellm.RateLimitError, "rate limit for key=S3cretLLMKey"), "llm_rate_limited"),
        (litellm.Timeout(message="read timed out, Authorization: Bearer S3cretLLMKey", model="gpt-4o-mini",
                         llm_provider="openai"), "llm_timeout"),
        (Exception("upstream http://admin:S3cretPW@10.0.0.5/v1 said 502"), "llm_unavailable"),
        (litellm.BadRequestError(message="unsupported parameter in request S3cretLLMKey", model="gpt-4o-mini",
                                 llm_provider="openai"), "llm_error"),
    ],
)
def test_a_provider_message_echoing_a_secret_is_redacted(
    failure: Any, category: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    llm = LiteLLMChat("openai/gpt-4o-mini", api_key="S3cretLLMKey", num_retries=0, mock_response=failure)
    unavailable = failure_of(llm)
    assert unavailable.category == category
    assert unavailable.reason.startswith("litellm:openai/gpt-4o-mini: ") and "***" in unavailable.reason


def test_a_stream_breaking_off_mid_way_is_redacted() -> None:
    class Broken:
        """A litellm stream whose connection drops after one piece, with a message echoing the key."""

        def __iter__(self) -> Iterator[Any]:
            yield litellm.ModelResponse(stream=True, choices=[{"delta": {"content": "Iodine"}}])
            raise ConnectionError("reset by http://user:S3cretBase@llm.internal/v1 for key S3cretLLMKey")

    llm = LiteLLMChat("openai/gpt-4o-mini", api_key="S3cretLLMKey", num_retries=0, mock_response="unused")
    pieces = llm._relay("Iodine", iter(Broken()))
    assert next(pieces) == "Iodine"
    with pytest.raises(LLMUnavailable) as caught:
        list(pieces)
    assert caught.value.category == "llm_unavailable" and "broke off" in caught.value.reason
    for link in chain(caught.value):
        assert_no_secret(str(link), repr(link))


def test_every_failure_kind_has_a_category() -> None:
    assert set(CATEGORIES.values()) == {"llm_auth", "llm_timeout", "llm_rate_limited", "llm_unavailable", "llm_error"}
    assert LLMUnavailable("x", kind="no_key").category == "llm_auth"


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("cannot reach http://user:S3cretBase@127.0.0.1:1/v1 (Connection error.)", "http://user:***@127.0.0.1:1/v1"),
        ("postgresql://u:p@S3cretPW@db/kb", "postgresql://u:***@db/kb"),  # an unencoded '@' in the password
        ("Incorrect API key provided: sk-proj-S3cretLLMKey0000. See https://platform.openai.com/account/api-keys.",
         "provided: ***. See https://platform.openai.com/account/api-keys."),
        ("the key sk-proj-S3cretLLMKey0000 was revoked", "the key sk-*** was revoked"),
        ("Authorization: Bearer S3cretLLMKey", "Authorization: Bearer ***"),
        ("GET /v1/models?key=S3cretLLMKey&alt=json", "?key=***&alt=json"),
        ("UNITRAG_LLM_API_KEY=S3cretLLMKey", "UNITRAG_LLM_API_KEY=***"),
        ("token S3cretLLMKey0123456789abcdefABCDEF", "token ***"),
        ("no API key; set DEEPSEEK_API_KEY or UNITRAG_LLM_API_KEY", "no API key; set DEEPSEEK_API_KEY or UNITRAG_LLM_API_KEY"),
        ("model gpt-4o-mini-2024-07-18 is overloaded (503)", "model gpt-4o-mini-2024-07-18 is overloaded (503)"),
        ("model 'DeepSeek-R1-Distill-Qwen-32B' not found", "model 'DeepSeek-R1-Distill-Qwen-32B' not found"),
    ],
)
def test_redaction_masks_key_shapes_and_keeps_the_rest(text: str, kept: str) -> None:
    redacted = redact_secrets(text)
    assert kept in redacted
    assert_no_secret(redacted)


def test_a_known_secret_is_masked_wherever_it_appears() -> None:
    assert redact_secrets("the server said S3cretLLMKey twice: S3cretLLMKey", ["S3cretLLMKey", None, ""]) == (
        "the server said *** twice: ***")


@pytest.mark.parametrize("stream", [False, True])
def test_an_unreachable_endpoint_is_named_without_its_query_values(monkeypatch: pytest.MonkeyPatch, stream: bool) -> None:
    port = closed_port()  # Azure SAS ``sig=``, Azure Functions ``code=``: names no list of key names holds
    monkeypatch.setenv(API_BASE_ENV, f"http://127.0.0.1:{port}/v1/tenant/t0kenabc?sig=abcd1234&code=S3cretPW")
    failure = failure_of(LiteLLMChat("openai/m", api_key="S3cretLLMKey", num_retries=0, timeout=2), stream)
    assert f"cannot reach http://127.0.0.1:{port}/v1/tenant/t0kenabc?sig=***&code=***" in failure.reason
    assert "abcd1234" not in failure.reason


@pytest.mark.parametrize("echoed", ["p%40ss%2Fw0rd%2Bkey", "p%40ss%2fw0rd%2bkey", "p%40ss/w0rd%2Bkey"])
def test_a_key_the_provider_echoes_percent_encoded_is_masked(echoed: str) -> None:
    llm = LiteLLMChat("openai/gpt-4o-mini", api_key="p@ss/w0rd+key", num_retries=0,
                      mock_response=Exception(f"POST /v1/chat?x=1 body api_token%3D{echoed} rejected: {echoed}"))
    reason = failure_of(llm).reason
    assert "w0rd" not in reason
    assert "rejected: ***)" in reason


def test_a_query_value_of_the_endpoint_echoed_outside_its_url_is_masked() -> None:
    llm = LiteLLMChat("openai/gpt-4o-mini", api_key="S3cretLLMKey", num_retries=0,
                      api_base="https://fn.example/api/chat?code=Zm9vYmFyYmF6cXV4",
                      mock_response=Exception("function key Zm9vYmFyYmF6cXV4 is not valid"))
    assert "function key *** is not valid" in failure_of(llm).reason


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("cannot reach https://x.blob.example/c?sv=2022-11-02&sig=abcd%2B1234&se=2030. Retry.",
         "cannot reach https://x.blob.example/c?sv=***&sig=***&se=***. Retry."),
        ("url 'https://fn.example/api/HttpTrigger1?code=abcd1234==' returned 401",
         "url 'https://fn.example/api/HttpTrigger1?code=***' returned 401"),
        ("https://hooks.example/services/T0AB12CD/B0XY98ZW/aB3dE6gH9jK2mN5pQ8rS1tU4 said 404",
         "https://hooks.example/services/T0AB12CD/B0XY98ZW/*** said 404"),
        ("https://llm.example/openai/deployments/gpt-4o-mini-2024-07-18/chat/completions said 404",
         "https://llm.example/openai/deployments/gpt-4o-mini-2024-07-18/chat/completions said 404"),
        ("https://llm.example/v1/models/DeepSeek-R1-Distill-Qwen-32B#x", "https://llm.example/v1/models/DeepSeek-R1-Distill-Qwen-32B#x"),
    ],
)
def test_in_a_url_every_query_value_and_token_shaped_path_segments_are_masked(text: str, redacted: str) -> None:
    assert redact_secrets(text) == redacted
