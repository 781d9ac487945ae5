"""An LLM failure reaches an HTTP caller as one fixed word; its detail goes to the server log, redacted (issue 22,
item 3). Before, ``llm_error`` relayed "cannot reach http://user:S3cretBase@..." and the provider's "Incorrect API
key provided: S3cretLLMKey" verbatim, to anonymous callers, in ``/v1/ask`` and in the stream's ``done`` event."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from unitrag.providers.llm import load_llm

from .conftest import mock_llm
from .test_stream import events

pytestmark = [pytest.mark.e2e, pytest.mark.filterwarnings("ignore:Items? .*ReadOnly:UserWarning")]

QUESTION = "How is vitamin B12 deficiency treated?"
SECRETS = ("S3cretBase", "S3cretLLMKey")


def unreachable(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("UNITRAG_LLM_API_BASE", "http://user:S3cretBase@127.0.0.1:1/v1")
    monkeypatch.setenv("UNITRAG_LLM_API_KEY", "S3cretLLMKey")
    return load_llm("litellm:openai/local-model", num_retries=0, timeout=2)


def rejecting(monkeypatch: pytest.MonkeyPatch) -> Any:
    return mock_llm(Exception("Incorrect API key provided: S3cretLLMKey"))


def answers(client: Any) -> list[tuple[dict[str, Any], str]]:
    """(the answer, the whole body) from ``/v1/ask`` and from the stream's ``done`` event."""
    plain = client.post("/v1/ask", json={"question": QUESTION})
    streamed = client.post("/v1/ask/stream", json={"question": QUESTION})
    assert plain.status_code == streamed.status_code == 200
    return [(plain.json(), plain.text), (events(streamed.text)[-1][1], streamed.text)]


@pytest.mark.parametrize(("llm", "category", "detail"), [
    (unreachable, "llm_unavailable", "cannot reach http://user:***@127.0.0.1:1/v1"),
    (rejecting, "llm_auth", "Incorrect API key provided: ***"),
])
def test_a_caller_gets_the_category_and_the_log_gets_the_redacted_detail(
    make_client: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, llm: Any, category: str,
    detail: str,
) -> None:
    caplog.set_level(logging.INFO)
    client = make_client(llm=llm(monkeypatch))
    for answer, body in answers(client):
        assert answer["extractive"] and answer["citations"]
        assert answer["llm_error"] == answer["llm_error_kind"] == category
        assert not [s for s in SECRETS if s in body], body
    logged = [r.getMessage() for r in caplog.records if r.name == "unitrag.serve" and category in r.getMessage()]
    assert len(logged) == 2 and all(detail in line for line in logged), logged
    assert not [s for s in SECRETS if s in caplog.text]


def test_a_used_answer_has_no_llm_error(make_client: Any, sample_kb: Any) -> None:
    valid = sample_kb.search(QUESTION).sources[0].citation_ids[0]
    client = make_client(llm=mock_llm(f'Treated with B12. <Cite id="{valid}"/>'))
    for answer, _ in answers(client):
        assert not answer["extractive"] and answer["llm_error"] is None and answer["llm_error_kind"] is None
