"""The HTTP API on the real sample artifact: the same JSON as the library, guard, not found, errors."""

from __future__ import annotations

import pytest

from unitrag.config import Config
from unitrag.serve import ServeSettings

from .conftest import mock_llm

pytestmark = pytest.mark.e2e

QUESTION = "How is vitamin B12 deficiency treated?"


def test_health_names_the_artifact(client, sample_kb):
    body = client.get("/v1/health").json()
    assert body["status"] == "ok" and len(body["artifact_id"]) == 16
    public = sample_kb.store.access == "public"  # what every caller may read: the restricted ones are not counted
    assert body["chunks"] == int(public.sum()) < len(sample_kb.store)
    assert body["units"] == len({sample_kb.store.columns["unit_id"][int(i)] for i in public.nonzero()[0]})
    assert body["units"] < sample_kb.store.manifest["counts"]["units"]
    assert body["embedder"] == sample_kb.store.manifest["embedder"]["id"]
    assert body["built_at"] == sample_kb.store.manifest["built_at"]


def test_search_is_the_librarys_json(client, sample_kb):
    got = client.get("/v1/search", params={"q": QUESTION, "k": 4}).json()
    want = sample_kb.search(QUESTION, k=4).to_dict()
    assert [s["chunk_id"] for s in got["sources"]] == [s["chunk_id"] for s in want["sources"]]
    assert got["sources"][0]["scores"] == want["sources"][0]["scores"]
    assert set(got) == set(want) and "text" not in got["sources"][0]


def test_search_filters_and_user_context(client):
    got = client.get("/v1/search", params={"q": QUESTION, "lang": "zh", "kind": ["scene"]}).json()
    assert got["sources"] and all(s["lang"] == "zh" and s["kind"] == "scene" for s in got["sources"])
    plain = client.get("/v1/search", params={"q": QUESTION}).json()
    boosted = client.get("/v1/search", params={"q": QUESTION, "current_topic": "vitamin-b12"}).json()
    # the question names one topic (B12): a source covers it (×2.5) or not; no user-context boost
    assert {s["scores"].get("boost", 1.0) for s in plain["sources"]} <= {1.0, 2.5}
    # the current topic is the only topic named: the question is about it (focus), its sources get ×1.6
    assert any(s["scores"].get("boost") == pytest.approx(1.6) for s in boosted["sources"])


@pytest.mark.parametrize("question, lang", [(QUESTION, "en"), ("缺铁性贫血的诊断标准是什么？", "zh")])
def test_ask_answers_with_numbered_references(client, question, lang):
    body = client.post("/v1/ask", json={"question": question}).json()
    assert body["lang"] == lang and not body["not_found"] and body["guard"] is None and body["extractive"]
    assert body["citations"] and body["faithfulness"]["invalid_ids"] == []
    numbered = body["numbered"]
    assert "[1]" in numbered["text"] and "<Cite" not in numbered["text"]
    assert [r["number"] for r in numbered["references"]] == list(range(1, len(body["citations"]) + 1))
    assert {r["id"] for r in numbered["references"]} == {c["id"] for c in body["citations"]}
    cited = {c["id"] for c in body["citations"]}  # cited_units, as in `unitrag ask --json`: the units quoted
    carrying = [u for u in dict.fromkeys(s["unit_id"] for s in body["sources"] if cited & set(s["citation_ids"]))]
    assert body["cited_units"] and [u for u in carrying if u in body["cited_units"]] == body["cited_units"]


def test_a_red_flag_gets_the_safety_message_and_no_sources(client):
    body = client.post("/v1/ask", json={"question": "I have crushing chest pain and I can't breathe"}).json()
    assert body["guard"]["type"] == "red_flag" and body["sources"] == [] and body["citations"] == []
    assert "emergency" in body["answer"]


def test_an_off_topic_question_is_not_found(client):
    body = client.post("/v1/ask", json={"question": "Who won the last football World Cup?"}).json()
    assert body["not_found"] and body["citations"] == [] and body["guard"] is None


def test_an_llm_answer_keeps_its_valid_citations(make_client, sample_kb):
    valid = sample_kb.search(QUESTION).sources[0].citation_ids[0]
    client = make_client(llm=mock_llm(f'B12 deficiency is treated with B12. <Cite id="{valid}"/>'))
    body = client.post("/v1/ask", json={"question": QUESTION}).json()
    assert not body["extractive"] and [c["id"] for c in body["citations"]] == [valid]
    assert body["numbered"]["text"] == "B12 deficiency is treated with B12.[1]"


def test_an_llm_failure_still_answers_extractively(make_client):
    client = make_client(llm=mock_llm(Exception("simulated outage")))
    response = client.post("/v1/ask", json={"question": QUESTION})
    assert response.status_code == 200
    body = response.json()
    assert body["extractive"] and body["llm_error"] and body["citations"]


def test_topics_citations_and_units(client, sample_kb):
    topics = client.get("/v1/topics").json()["topics"]
    assert {t["id"] for t in topics} == {t["id"] for t in sample_kb.store.topics}
    cid = next(iter(sample_kb.store.citations))
    assert client.get(f"/v1/citations/{cid}").json()["id"] == cid
    unit = client.get("/v1/units/en-vitamin-b12").json()
    assert unit["kind"] == "story" and unit["chunks"][0]["text"]
    assert client.get("/v1/citations/nope").status_code == 404
    assert client.get("/v1/units/nope").json() == {"error": "no unit 'nope'"}
    long = client.get("/v1/units/" + "x" * 30_000)  # a long id is not echoed back whole
    assert long.status_code == 404 and len(long.text) < 300 and "30000 characters" in long.text


def test_openapi_docs_and_page(client):
    assert client.get("/docs").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/v1/health", "/v1/search", "/v1/ask", "/v1/ask/stream", "/v1/units/{unit_id}", "/v1/citations/{citation_id}",
            "/v1/topics"} <= set(paths)
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")


@pytest.mark.parametrize("request_kwargs, status, message", [
    ({"json": {"question": ""}}, 422, "question: empty"),
    ({"json": {"question": "\u202e"}}, 422, "question: empty"),
    ({"json": {"question": "(" * 100 + "a" * 100}}, 422, "question: empty"),
    ({"json": {"question": "x" * 301}}, 422, "question"),
    ({"json": {"question": QUESTION, "lang": "fr"}}, 422, "lang"),
    ({"json": {"question": QUESTION, "user": {"current_topic": "no-such-topic"}}}, 422, "no-such-topic"),
    ({"json": {"question": QUESTION, "user": {"recent_scenes": "en-b12-testing"}}}, 422, "recent_scenes"),
    ({"json": {"question": QUESTION, "user": {"roles": ["Admin"]}}}, 422, "roles"),  # no role is spelled so
    ({"json": {"question": QUESTION, "extra": 1}}, 422, "extra"),
    ({"json": {"question": 5}}, 422, "question"),
    ({"content": b'{"question": "oops', "headers": {"content-type": "application/json"}}, 400, "not valid JSON"),
    ({"content": b"[1, 2]", "headers": {"content-type": "application/json"}}, 400, "JSON object"),
    ({"content": b"question=hi", "headers": {"content-type": "application/x-www-form-urlencoded"}}, 400, "JSON object"),
    ({"json": {"question": "x" * 70_000}}, 413, "request body over"),
    ({"content": b'{"question": "caf\xe9"}', "headers": {"content-type": "application/json"}}, 400, "not UTF-8"),
    # an attacker's: 30,000 nested brackets, a 60,000-digit number ("There was an error parsing the body")
    ({"content": b'{"question": "hi", "user": ' + b"[" * 30_000 + b"]" * 30_000 + b"}",
      "headers": {"content-type": "application/json"}}, 400, "not valid JSON (nested too deeply)"),
    ({"content": b'{"question": "hi", "lang": ' + b"1" * 60_000 + b"}",
      "headers": {"content-type": "application/json"}}, 400, "not valid JSON (a number too long)"),
])
def test_bad_asks_get_one_readable_json_error(make_client, request_kwargs, status, message):
    client = make_client(config=Config(llm="none", max_question_chars=300))
    for path in ("/v1/ask", "/v1/ask/stream"):
        response = client.post(path, **request_kwargs)
        assert response.status_code == status, (path, response.text)
        assert set(response.json()) == {"error"} and message in response.json()["error"]
        assert "Traceback" not in response.text


@pytest.mark.parametrize("params, message", [
    ({"q": QUESTION, "topic": "no-such-topic"}, "no-such-topic"),
    ({"q": QUESTION, "k": 0}, "k"),
    ({"q": QUESTION, "kind": ["essay"]}, "kind: unknown 'essay'"),
    ({"q": "  "}, "question: empty"),
    ({"q": "\x00"}, "question: empty"),
    ({"q": "😀" * 50}, "question: empty"),
    ({}, "q: Field required"),
    ({"q": QUESTION, "topics": "vitamin-b12"}, "unknown query parameter 'topics'"),  # a typo is no silent no-filter
])
def test_bad_searches_get_one_readable_json_error(client, params, message):
    response = client.get("/v1/search", params=params)
    assert response.status_code == 422 and message in response.json()["error"], response.text


@pytest.mark.parametrize("path", ["/v1/health", "/v1/me", "/v1/about", "/v1/topics", "/v1/units/en-vitamin-b12",
                                  "/v1/units/nope", "/v1/citations/nope"])
def test_every_get_endpoint_refuses_an_unknown_query_parameter_as_search_does(client, path):
    """A parameter no endpoint reads (``role=``, a typo) is a 422 naming it, not silently dropped; HEAD as GET."""
    refused = client.get(path, params={"role": "clinician"})
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"].startswith("unknown query parameter 'role' for /v1/")
    assert client.head(path + "?x=1").status_code == 422
    assert client.get(path + "?r%ff=1").status_code == 400  # not UTF-8: the 400 /v1/search gives
    assert client.get(path).status_code in (200, 404)  # without one, as before


@pytest.mark.parametrize("path", ["/v1/ask", "/v1/ask/stream"])
def test_ask_refuses_a_query_parameter_rather_than_seem_to_honour_it(client, path):
    """``POST /v1/ask?role=clinician`` was answered as the anonymous caller, as if the role had been read."""
    refused = client.post(path + "?role=clinician", json={"question": QUESTION})
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"].startswith(f"unknown query parameter 'role' for {path}")


def test_a_long_unknown_parameter_name_is_quoted_shortened(client):
    name = "x" * 5000
    for response in (client.get("/v1/health", params={name: "1"}), client.get("/v1/search", params={"q": QUESTION, name: "1"})):
        assert response.status_code == 422 and len(response.json()["error"]) < 300, response.text[:200]


@pytest.mark.parametrize("body, argument", [
    (b'{"question": "salt \\ud800 per day"}', "question"),
    (b'{"question": "salt per day", "user": {"current_topic": "sodium\\udc00"}}', "current_topic"),
    (b'{"question": "salt per day", "user": {"recent_scenes": ["\\udfff"]}}', "recent_scenes"),
    (b'{"question": "salt per day", "user": {"roles": ["clinician\\ud800"]}}', "user.roles"),
])
def test_a_lone_surrogate_is_a_clear_422_before_any_search(make_client, monkeypatch, body, argument):
    """A JSON escape of half a surrogate pair parses, but UTF-8 cannot carry it: refused at the edge,
    before the search and before a stream starts (it used to cut the stream, and /v1/ask searched first)."""
    client = make_client()
    kb = client.app.state.unitrag.holder.current.kb

    def searched(*args, **kwargs):
        raise AssertionError("searched")

    monkeypatch.setattr(kb, "search", searched)
    for path in ("/v1/ask", "/v1/ask/stream"):
        response = client.post(path, content=body, headers={"content-type": "application/json"})
        assert response.status_code == 422, (path, response.text)
        assert response.json()["error"].startswith(f"{argument}: not valid Unicode text: a lone surrogate U+D")


def test_an_unexpected_failure_is_a_500_without_details(make_client, monkeypatch):
    client = make_client(raise_server_exceptions=False)
    kb = client.app.state.unitrag.holder.current.kb

    def broken(*args, **kwargs):
        raise RuntimeError("secret internals /etc/passwd")

    monkeypatch.setattr(kb, "search", broken)
    response = client.get("/v1/search", params={"q": QUESTION})
    assert response.status_code == 500 and "secret" not in response.text and set(response.json()) == {"error"}


def test_a_slow_request_times_out_with_504(make_client, monkeypatch):
    import time

    client = make_client(ServeSettings(request_timeout_s=0.2, reload_poll_s=0))
    kb = client.app.state.unitrag.holder.current.kb
    monkeypatch.setattr(kb, "search", lambda *a, **k: time.sleep(1))
    response = client.get("/v1/search", params={"q": QUESTION})
    assert response.status_code == 504 and "0.2 s" in response.json()["error"]


def test_rate_limit_is_off_by_default_and_per_ip_when_set(make_client):
    free = make_client()
    assert all(free.get("/v1/topics").status_code == 200 for _ in range(10))
    limited = make_client(ServeSettings(rate_limit_per_minute=3, reload_poll_s=0))
    codes = [limited.get("/v1/topics").status_code for _ in range(5)]
    assert codes == [200, 200, 200, 429, 429]
    refused = limited.get("/v1/topics")
    assert int(refused.headers["retry-after"]) >= 1 and "rate limit" in refused.json()["error"]
    assert limited.get("/").status_code == 200  # the page is not an API call


def test_cors_is_off_by_default_and_configurable(make_client):
    origin = {"origin": "https://app.example.org"}
    assert "access-control-allow-origin" not in make_client().get("/v1/topics", headers=origin).headers
    allowed = make_client(ServeSettings(cors_origins=("https://app.example.org",), reload_poll_s=0))
    assert allowed.get("/v1/topics", headers=origin).headers["access-control-allow-origin"] == "https://app.example.org"


def test_a_streamed_body_without_a_length_is_cut_off_too(make_client):
    client = make_client(ServeSettings(max_body_bytes=1000, reload_poll_s=0))

    def chunks():
        yield b'{"question": "'
        for _ in range(100):
            yield b"x" * 100
        yield b'"}'

    response = client.post("/v1/ask", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413 and response.json() == {"error": "request body over 1000 bytes"}
