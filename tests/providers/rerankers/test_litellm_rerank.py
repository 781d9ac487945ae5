"""litellm: rerank provider against a tiny local server speaking Cohere's /v1/rerank (litellm 1.110 has no rerank mock)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from unitrag.errors import UserError
from unitrag.providers.rerankers import load_reranker
from unitrag.providers.rerankers.litellm import API_BASE_ENV, API_KEY_ENV, LiteLLMReranker

DOCS = ["tax returns are due in march", "the cat sleeps on the sofa", "a cat and a dog"]


class CohereRerank(BaseHTTPRequestHandler):
    """Scores a document by the share of query words it contains; answers best first, like Cohere."""

    requests: list[dict[str, Any]] = []
    drop_last = False  # leave the last document out of the answer

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        if self.headers.get("Authorization") != "Bearer test-key":
            return self._send(401, {"message": "invalid api token"})
        if self.path not in ("/v1/rerank", "/v2/rerank"):
            return self._send(404, {"message": "not found"})
        words = set(body["query"].lower().split())
        docs = [d if isinstance(d, str) else d["text"] for d in body["documents"]]
        results = [{"index": i, "relevance_score": len(words & set(d.split())) / len(words)} for i, d in enumerate(docs)]
        if type(self).drop_last:
            results = results[:-1]
        results.sort(key=lambda r: -r["relevance_score"])
        self._send(200, {"id": "r-1", "results": results[: body.get("top_n") or len(results)], "meta": {"billed_units": {"search_units": 1}}})

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), CohereRerank)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(autouse=True)
def fresh_log() -> None:
    CohereRerank.requests.clear()
    CohereRerank.drop_last = False


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_scores_come_back_in_input_order(server: str) -> None:
    reranker = LiteLLMReranker("cohere/rerank-english-v3.0", api_base=server, api_key="test-key")
    scores = reranker.score("where does the cat sleep", DOCS)
    assert scores == pytest.approx([0.0, 0.4, 0.2])  # the server answered best first; we map back by index
    [request] = CohereRerank.requests
    assert request["path"].endswith("/rerank") and request["auth"] == "Bearer test-key"
    assert request["body"]["query"] == "where does the cat sleep"
    assert request["body"]["documents"] == DOCS and request["body"]["top_n"] == 3
    assert reranker.id == "litellm:cohere/rerank-english-v3.0" and reranker.calibrated


def test_endpoint_and_key_come_from_the_environment_and_sources_are_read(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(API_BASE_ENV, server)
    monkeypatch.setenv(API_KEY_ENV, "test-key")
    reranker = load_reranker("litellm:cohere/rerank-v3.5")

    class Source:
        title, text = "Cats", 'the cat sleeps <Cite id="c1"/>'

    assert reranker.score("cat", [Source(), "no match here"]) == pytest.approx([1.0, 0.0])
    assert CohereRerank.requests[-1]["body"]["documents"][0] == "Cats\nthe cat sleeps "
    assert reranker.score("cat", []) == []
    assert len(CohereRerank.requests) == 1  # nothing to rerank: no request


def test_a_document_missing_from_the_answer_scores_zero(server: str) -> None:
    CohereRerank.drop_last = True
    reranker = LiteLLMReranker("cohere/rerank-v3.5", api_base=server, api_key="test-key")
    assert reranker.score("cat dog", DOCS) == pytest.approx([0.0, 0.5, 0.0])


def test_a_refused_key_is_a_user_error(server: str) -> None:
    reranker = LiteLLMReranker("cohere/rerank-v3.5", api_base=server, api_key="wrong")
    with pytest.raises(UserError, match="API key"):
        reranker.score("cat", DOCS)


def test_an_unreachable_endpoint_is_a_quick_user_error() -> None:
    reranker = LiteLLMReranker("cohere/rerank-v3.5", api_base=f"http://127.0.0.1:{_free_port()}", api_key="k", timeout=5, max_retries=0)
    started = time.perf_counter()
    with pytest.raises(UserError, match="litellm:cohere/rerank-v3.5"):
        reranker.score("cat", DOCS)
    assert time.perf_counter() - started < 20


def test_a_spec_without_a_model_is_refused() -> None:
    with pytest.raises(UserError, match="needs a model"):
        load_reranker("litellm:")
