"""A caution over HTTP: the question is answered from its sources and the guard field carries the rule's note;
an acute question still gets only the safety message. A six-chunk store with the real embedder and the real
content/guard.yaml rules (no build)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.rag.conftest import ROWS as CHUNKS
from tests.rag.conftest import make_store
from tests.rag.guard.test_screen import BY_ID, ROWS
from unitrag.config import DEFAULT_EMBEDDER, Config
from unitrag.providers.embedders import load_embedder
from unitrag.rag.guard.screen import Guard
from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.rag.search.query_embedding import QueryEncoder
from unitrag.serve import ServeSettings, create_app
from unitrag.serve.reload import KbHolder

NOTE_RULE = "red-flag-poisoning-overdose"
PAST = "I took an overdose in 2015 and I'm fine now, how much salt a day is ok?"


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    encoder = QueryEncoder(load_embedder(DEFAULT_EMBEDDER))
    store = make_store(encoder.embedder.embed_passages([f"{r[6]}\n{r[7]}" for r in CHUNKS]))
    config = Config(llm="none")
    kb = KnowledgeBase(store, encoder, config)
    kb.retriever.gate = None  # six short texts: answerability is not what is tested here
    kb.guard = Guard.from_rows(ROWS)
    app = create_app(ServeSettings(reload_poll_s=0), config=config, holder=KbHolder("tiny", lambda _loc, _prev: kb, 0))
    with TestClient(app) as test_client:
        yield test_client


def test_a_caution_is_answered_with_its_note_in_the_guard_field(client: TestClient) -> None:
    body = client.post("/v1/ask", json={"question": PAST}).json()
    assert body["guard"]["type"] == "caution" and body["guard"]["rule"] == NOTE_RULE
    assert body["guard"]["note"] == BY_ID[NOTE_RULE]["caution_en"] and "past" in body["guard"]["framing"]
    assert body["sources"] and not body["not_found"] and body["answer"] != body["guard"]["note"]


def test_the_stream_carries_the_note_in_its_last_event(client: TestClient) -> None:
    text = client.post("/v1/ask/stream", json={"question": PAST}).text
    done = text[text.index("event: done"):]
    assert '"type": "caution"' in done and BY_ID[NOTE_RULE]["caution_en"][:40] in done
    first = text[:text.index("event: token")]
    assert '"guard": null' in first  # the sources event: nothing stopped it, the note comes with the answer


def test_an_acute_question_is_still_stopped(client: TestClient) -> None:
    body = client.post("/v1/ask", json={"question": "I took an overdose in 2015 and right now I took a whole bottle "
                                                     "of sleeping pills again"}).json()
    assert body["guard"]["type"] == "red_flag" and body["sources"] == [] and "note" not in body["guard"]
