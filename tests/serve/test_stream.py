"""POST /v1/ask/stream: sources first, then the answer's pieces, then the checked answer."""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from unitrag.serve import ServeSettings

from .conftest import SlowLLM, live_server, mock_llm, sample_app

pytestmark = pytest.mark.e2e

QUESTION = "How is vitamin B12 deficiency treated?"


def events(text: str) -> list[tuple[str, dict]]:
    """(event, data) pairs of an SSE body."""
    parsed = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        parsed.append((lines["event"], json.loads(lines["data"])))
    return parsed


def test_an_llm_answer_streams_token_by_token(make_client, sample_kb):
    valid = sample_kb.search(QUESTION).sources[0].citation_ids[0]
    text = f'Vitamin B12 deficiency is treated with B12 by mouth or by injection. <Cite id="{valid}"/>'
    client = make_client(llm=mock_llm(text))
    with client.stream("POST", "/v1/ask/stream", json={"question": QUESTION}) as response:
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
        got = events(response.read().decode())
    names = [name for name, _ in got]
    assert names[0] == "sources" and names[-1] == "done" and names.count("token") > 5
    assert set(names[1:-1]) == {"token"}
    assert got[0][1]["sources"] and got[0][1]["guard"] is None and not got[0][1]["not_found"]
    assert "".join(data["text"] for name, data in got if name == "token") == text
    done = got[-1][1]
    assert done["answer"] == text and not done["extractive"] and done["faithfulness"]["valid_ids"] == [valid]
    assert [c["id"] for c in done["citations"]] == [valid] and done["numbered"]["text"].endswith("[1]")
    assert "generate" in done["timings_ms"] and done["sources"] == got[0][1]["sources"]


def test_a_fabricated_citation_in_a_stream_is_never_sent_and_the_answer_falls_back(make_client):
    client = make_client(llm=mock_llm('Take B12. <Cite id="made-up-2099"/> It works [2].'))
    got = events(client.post("/v1/ask/stream", json={"question": QUESTION}).text)
    tokens = "".join(data["text"] for name, data in got if name == "token")
    assert tokens.startswith("Take B12.") and "made-up-2099" not in tokens and "[2]" not in tokens
    done = got[-1][1]
    assert done["extractive"] and done["llm_error_kind"] == "llm_invalid_citations"
    assert done["faithfulness"]["invalid_ids"] == [] and done["citations"]
    assert "made-up-2099" not in json.dumps(done)


def test_without_an_llm_the_extractive_answer_streams_once(client):
    got = events(client.post("/v1/ask/stream", json={"question": QUESTION}).text)
    assert [name for name, _ in got] == ["sources", "token", "done"]
    assert got[1][1]["text"] == got[2][1]["answer"] and got[2][1]["extractive"] and got[2][1]["citations"]


def test_a_red_flag_streams_the_safety_message_without_sources(client):
    got = events(client.post("/v1/ask/stream", json={"question": "我胸口剧痛，喘不上气"}).text)
    assert got[0][1]["guard"]["type"] == "red_flag" and got[0][1]["sources"] == []
    assert got[-1][1]["guard"]["type"] == "red_flag" and got[-1][1]["lang"] == "zh" and got[-1][1]["citations"] == []


def test_not_found_is_said_before_any_token(client):
    got = events(client.post("/v1/ask/stream", json={"question": "明天上海会下雨吗？"}).text)
    assert got[0][1]["not_found"] and got[-1][1]["not_found"] and got[-1][1]["citations"] == []


def test_a_failed_stream_falls_back_to_the_extractive_answer(make_client):
    client = make_client(llm=mock_llm(Exception("simulated outage")))
    done = events(client.post("/v1/ask/stream", json={"question": QUESTION}).text)[-1][1]
    assert done["extractive"] and done["llm_error"] and done["citations"]


def test_a_client_that_drops_mid_stream_ends_the_llm_stream_and_the_lease_at_once(sample_kb):
    """On a real uvicorn server (h11): the client goes after the first pieces; the answer's LLM stream is closed and
    its lease on the knowledge base released within a second, not at some later garbage collection (none runs here)."""
    llm = SlowLLM("Vitamin B12 deficiency is treated with B12 tablets or injections. " * 20, pause_s=0.05)
    app = sample_app(sample_kb, ServeSettings(reload_poll_s=0), llm=llm)
    holder = app.state.unitrag.holder
    with live_server(app, http="h11") as base, httpx.Client(base_url=base, timeout=60) as client, no_gc():
        with client.stream("POST", "/v1/ask/stream", json={"question": QUESTION}) as response:
            lines = response.iter_lines()
            assert next(line for line in lines if line.startswith("event: token"))
            assert holder.current.leases == 1
        dropped, deadline = llm.pieces, time.monotonic() + 1.0  # the 200 pieces would take 10 s
        while holder.current.leases and time.monotonic() < deadline:
            time.sleep(0.02)
        assert holder.current.leases == 0, "the dropped stream still holds the knowledge base"
        time.sleep(0.3)
        assert llm.pieces <= dropped + 2, "the LLM went on generating for a client that left"
        assert client.get("/v1/health").status_code == 200


def test_a_finished_stream_has_released_its_lease_when_the_client_has_read_it(make_client, sample_kb):
    client = make_client(llm=SlowLLM("B12 by mouth or by injection.", pause_s=0))
    holder = client.app.state.unitrag.holder
    with client.stream("POST", "/v1/ask/stream", json={"question": QUESTION}) as response:
        assert events(response.read().decode())[-1][0] == "done"
    assert holder.current.leases == 0


@contextmanager
def no_gc() -> Iterator[None]:
    """No cyclic garbage collection meanwhile: what is cleaned up is cleaned up by the code, not by chance."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
