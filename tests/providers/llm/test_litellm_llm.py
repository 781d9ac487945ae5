"""The litellm chat provider, through litellm's own test features: ``mock_response`` for
scripted answers and failures, and a ``CustomLogger`` on ``litellm.input_callback``
that sees every request litellm is about to send (retries included)."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm's import would fetch prices otherwise

import socket
import time
from typing import Any

import httpx
import litellm
import pytest

from unitrag.errors import UserError
from unitrag.providers.llm import LLM, LLMUnavailable, is_none, load_llm
from unitrag.providers.llm.litellm import API_BASE_ENV, API_KEY_ENV, LiteLLMChat

# litellm's pydantic types warn about ReadOnly TypedDict items on first use; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:Items? .*ReadOnly:UserWarning")

MESSAGES = [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": "How much iodine?"}]


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (API_BASE_ENV, API_KEY_ENV, "OPENAI_API_KEY", "DEEPSEEK_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def mocked(mock_response: Any, **options: Any) -> LLM:
    options.setdefault("backoff_base", 0.001)
    llm = load_llm("litellm:openai/gpt-4o-mini", mock_response=mock_response, **options)
    assert llm is not None
    return llm


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- the registry ------------------------------------------------------------------------


def test_specs_select_a_provider_or_none() -> None:
    for spec in ("none", "None", "", None):
        assert is_none(spec) and load_llm(spec) is None
    llm = load_llm("litellm:deepseek/deepseek-chat")
    assert isinstance(llm, LiteLLMChat)
    assert llm.id == "litellm:deepseek/deepseek-chat"
    assert (llm.timeout, llm.num_retries) == (30.0, 2)


@pytest.mark.parametrize("spec", ["openai:gpt-4o-mini", "litellm:", "gpt-4o-mini"])
def test_bad_specs_are_user_errors(spec: str) -> None:
    with pytest.raises(UserError, match="litellm"):
        load_llm(spec)


def test_endpoint_and_key_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(API_BASE_ENV, "http://127.0.0.1:9/v1")
    monkeypatch.setenv(API_KEY_ENV, "sk-test")
    llm = load_llm("litellm:openai/local-model")
    assert isinstance(llm, LiteLLMChat)
    assert (llm.api_base, llm.api_key) == ("http://127.0.0.1:9/v1", "sk-test")
    explicit = LiteLLMChat("openai/x", api_base="http://other/v1")
    assert explicit.api_base == "http://other/v1"


# -- answers -----------------------------------------------------------------------------


def test_complete_returns_the_models_text_for_the_messages_given(requests: Any) -> None:
    llm = mocked('About 150 µg a day.<Cite id="iom2001"/>')
    assert llm.complete(MESSAGES) == 'About 150 µg a day.<Cite id="iom2001"/>'
    assert requests.messages == [MESSAGES]


def test_stream_yields_pieces_that_add_up_to_the_answer(requests: Any) -> None:
    text = "孕妇每天需要 230 微克碘。<Cite id=\"who2020\"/>"
    pieces = list(mocked(text).complete(MESSAGES, stream=True))
    assert len(pieces) > 1
    assert "".join(pieces) == text
    assert len(requests.messages) == 1


def test_a_scripted_list_is_consumed_one_response_per_request(requests: Any) -> None:
    llm = mocked(["first", "second"])
    assert [llm.complete(MESSAGES), llm.complete(MESSAGES), llm.complete(MESSAGES)] == ["first", "second", "second"]


# -- retries -----------------------------------------------------------------------------


def test_a_429_is_retried_and_the_next_answer_used(requests: Any) -> None:
    assert mocked(["litellm.RateLimitError", "fine"]).complete(MESSAGES) == "fine"
    assert len(requests.messages) == 2


def test_a_stream_failing_before_its_first_piece_is_retried(requests: Any) -> None:
    assert "".join(mocked(["litellm.InternalServerError", "fine now"]).complete(MESSAGES, stream=True)) == "fine now"
    assert len(requests.messages) == 2


def test_persistent_429_gives_up_after_the_retries_with_backoff(requests: Any) -> None:
    llm = mocked("litellm.RateLimitError", num_retries=2, backoff_base=0.02)
    started = time.monotonic()
    with pytest.raises(LLMUnavailable) as caught:
        llm.complete(MESSAGES)
    assert time.monotonic() - started >= 0.02 + 0.04  # two waits, the second twice the first
    assert caught.value.kind == "rate_limit"
    assert "429" in caught.value.reason and "after 3 attempts" in caught.value.reason
    assert len(requests.messages) == 3


def test_retry_after_from_the_server_is_honoured(requests: Any) -> None:
    response = httpx.Response(429, headers={"retry-after": "0.3"}, request=httpx.Request("POST", "http://llm/v1"))
    limited = litellm.RateLimitError(message="slow down", llm_provider="openai", model="gpt-4o-mini", response=response)
    started = time.monotonic()
    assert mocked([limited, "ok"]).complete(MESSAGES) == "ok"
    assert time.monotonic() - started >= 0.3


@pytest.mark.parametrize(
    ("failure", "kind", "requests_made"),
    [
        (Exception("boom"), "server", 2),  # litellm wraps a plain exception as a 500
        ("litellm.InternalServerError", "server", 2),
        (litellm.Timeout(message="read timed out", model="gpt-4o-mini", llm_provider="openai"), "timeout", 2),
        (litellm.BadRequestError(message="bad request", model="gpt-4o-mini", llm_provider="openai"), "refused", 1),
        (litellm.AuthenticationError(message="invalid key", model="gpt-4o-mini", llm_provider="openai"), "no_key", 1),
    ],
)
def test_every_failure_is_llm_unavailable_and_only_transient_ones_are_retried(
    requests: Any, failure: Any, kind: str, requests_made: int
) -> None:
    with pytest.raises(LLMUnavailable) as caught:
        mocked(failure, num_retries=1).complete(MESSAGES)
    assert caught.value.kind == kind
    assert caught.value.reason.startswith("litellm:openai/gpt-4o-mini: ")
    assert len(requests.messages) == requests_made


@pytest.mark.parametrize("output", ["", "   ", "...", {"choices": [{"message": {"role": "assistant", "content": None}}]}])
def test_empty_or_garbage_output_is_unavailable(requests: Any, output: Any) -> None:
    with pytest.raises(LLMUnavailable) as caught:
        mocked(output).complete(MESSAGES)
    assert caught.value.kind == "empty"
    assert len(requests.messages) == 1  # not retried: the model answered, with nothing


def test_an_empty_stream_is_unavailable(requests: Any) -> None:
    with pytest.raises(LLMUnavailable, match="without any text") as caught:
        list(mocked("").complete(MESSAGES, stream=True))
    assert caught.value.kind == "empty"


# -- the network -------------------------------------------------------------------------


def test_no_key_fails_at_once_without_a_request(requests: Any) -> None:
    llm = load_llm("litellm:deepseek/deepseek-chat")
    assert llm is not None
    started = time.monotonic()
    with pytest.raises(LLMUnavailable) as caught:
        llm.complete(MESSAGES)
    assert time.monotonic() - started < 0.5
    assert caught.value.kind == "no_key"
    assert "DEEPSEEK_API_KEY" in caught.value.reason and API_KEY_ENV in caught.value.reason
    assert requests.messages == []


@pytest.mark.parametrize("stream", [False, True])
def test_an_unreachable_server_is_unavailable_quickly(requests: Any, monkeypatch: pytest.MonkeyPatch, stream: bool) -> None:
    base = f"http://127.0.0.1:{closed_port()}/v1"
    monkeypatch.setenv(API_BASE_ENV, base)
    monkeypatch.setenv(API_KEY_ENV, "sk-local")
    llm = LiteLLMChat("openai/local-model", num_retries=0, timeout=2)
    started = time.monotonic()
    with pytest.raises(LLMUnavailable) as caught:
        result = llm.complete(MESSAGES, stream=stream)
        list(result)
    assert time.monotonic() - started < 2
    assert caught.value.kind == "connection"
    assert base in caught.value.reason
    assert len(requests.messages) == 1
