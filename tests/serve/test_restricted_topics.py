"""Over HTTP, a topic only clinician-only units carry is, for a caller without the role, a declared gap: the same
status and the same body (but for timings) as from a knowledge base where no unit carries it, on every endpoint
that takes or lists a topic. A clinician still gets it as covered. (The stores: tests/rag/test_restricted_topics.py.)"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.rag.test_restricted_topics import RESTRICTED_CHUNK, store_pair
from unitrag.config import DEFAULT_EMBEDDER, Config
from unitrag.providers.embedders import load_embedder
from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.rag.search.query_embedding import QueryEncoder
from unitrag.serve import ServeSettings, create_app
from unitrag.serve.reload import KbHolder

from .conftest import CLINICIAN_KEY, CLINICIAN_KEYS

pytestmark = pytest.mark.e2e

KEY = {"authorization": f"Bearer {CLINICIAN_KEY}"}
B12, ZINC = "How much vitamin B12 a day?", "How much zinc a day?"


@pytest.fixture(scope="module")
def clients() -> Iterator[tuple[TestClient, TestClient]]:
    """``covered`` (the clinician-only chunk carries vitamin-b12) and ``declared`` (it carries nothing)."""
    encoder = QueryEncoder(load_embedder(DEFAULT_EMBEDDER))
    config = Config(llm="none")
    apps = [create_app(ServeSettings(api_keys=CLINICIAN_KEYS, reload_poll_s=0), config=config,
                       holder=KbHolder("tiny", lambda _loc, _prev, kb=KnowledgeBase(store, encoder, config): kb, 0))
            for store in store_pair(encoder)]
    with TestClient(apps[0]) as covered, TestClient(apps[1]) as declared:
        yield covered, declared


def seen(response: Any) -> tuple[int, Any]:
    """What a caller reads: the status and the body, but for how long each step took."""
    body = response.json()
    if isinstance(body, dict):
        body.pop("timings_ms", None)
    return response.status_code, body


SEARCHES = [
    {"q": B12},
    {"q": "Salt or vitamin B12, which matters more?"},  # the named-topic boost of the salt sources
    {"q": "How much a day?", "topic": "vitamin-b12"},
    {"q": "How much a day?", "topic": ["vitamin-b12", "sodium"]},
    {"q": "How much a day?", "current_topic": "vitamin-b12"},
    {"q": "How much a day?", "topic": "nope"},
]


@pytest.mark.parametrize("params", SEARCHES)
def test_an_anonymous_search_gets_the_same_for_a_restricted_only_topic_as_for_a_declared_gap(clients, params):
    covered, declared = clients
    assert seen(covered.get("/v1/search", params=params)) == seen(declared.get("/v1/search", params=params))


@pytest.mark.parametrize("body", [{"question": B12}, {"question": "Salt or vitamin B12, which matters more?"},
                                  {"question": "Is it safe?", "user": {"current_topic": "vitamin-b12"}}])
def test_an_anonymous_answer_is_the_same_for_a_restricted_only_topic_as_for_a_declared_gap(clients, body):
    covered, declared = clients
    assert seen(covered.post("/v1/ask", json=body)) == seen(declared.post("/v1/ask", json=body))


@pytest.mark.parametrize("path", ["/v1/topics", "/v1/about"])
def test_the_listings_are_the_same_for_a_restricted_only_topic_as_for_a_declared_gap(clients, path):
    covered, declared = clients
    assert seen(covered.get(path)) == seen(declared.get(path))


def test_a_restricted_only_topic_and_a_declared_gap_get_the_same_answers_from_one_server(clients):
    covered, _ = clients
    listed = {t["id"] for t in covered.get("/v1/topics").json()["topics"]}
    assert {"vitamin-b12", "zinc"} <= listed  # both in the taxonomy, as the filter's acceptance says
    assert not {"vitamin-b12", "zinc"} & {t["id"] for t in covered.get("/v1/about").json()["topics"]}
    for topic_id, question in (("vitamin-b12", B12), ("zinc", ZINC)):
        filtered = covered.get("/v1/search", params={"q": "How much a day?", "topic": topic_id})
        assert filtered.status_code == 200 and filtered.json()["sources"] == []
        assert covered.get("/v1/search", params={"q": "How much a day?", "current_topic": topic_id}).status_code == 200
        found = covered.get("/v1/search", params={"q": question}).json()["sources"]
        assert found and {s["scores"]["gap"] for s in found} == {1.0}, topic_id
    missing = covered.get("/v1/search", params={"q": "How much a day?", "topic": "nope"})
    assert (missing.status_code, missing.json()) == (422, {"error": "topic: topic 'nope' not in this knowledge base"})


def test_a_clinician_still_gets_the_topic_as_covered(clients):
    covered, declared = clients
    found = covered.get("/v1/search", params={"q": B12}, headers=KEY).json()["sources"]
    assert found[0]["chunk_id"] == RESTRICTED_CHUNK and {s["scores"]["gap"] for s in found} == {0.0}
    assert {s["scores"]["gap"] for s in declared.get("/v1/search", params={"q": B12}, headers=KEY).json()["sources"]} \
        == {1.0}
    filtered = covered.get("/v1/search", params={"q": "How much a day?", "topic": "vitamin-b12"}, headers=KEY).json()
    assert [s["chunk_id"] for s in filtered["sources"]] == [RESTRICTED_CHUNK]
    assert "vitamin-b12" in {t["id"] for t in covered.get("/v1/about", headers=KEY).json()["topics"]}
    assert json.dumps(covered.get("/v1/topics", headers=KEY).json()) == json.dumps(covered.get("/v1/topics").json())
