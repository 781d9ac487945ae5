"""A topic only clinician-only units carry is, for a caller without the role, a declared gap (a topic of the taxonomy
no unit carries): accepted where one is, the gate's ``gap`` feature and the named-topic boosts read as for one. Nothing
the caller gets tells it from one, so nothing tells that a restricted unit carries it (docs/design.md).

Two six-chunk stores with the real default embedder, the same but for one thing: in ``covered`` the clinician-only
chunk carries ``vitamin-b12``, in ``declared`` it carries nothing, so there ``vitamin-b12`` is a declared gap (so is
``zinc`` in both).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from unitrag.config import DEFAULT_EMBEDDER, Config
from unitrag.providers.embedders import load_embedder
from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.rag.search.query_embedding import QueryEncoder
from unitrag.rag.store.columns import Column
from unitrag.rag.store.known_ids import covered_topics
from unitrag.rag.types import UserContext

pytestmark = pytest.mark.e2e

CONFTEST = Path(__file__).with_name("conftest.py")
PROMPTS = {path.stem: path.read_text(encoding="utf-8") for path in (Path(__file__).parents[2] / "prompts").glob("*.j2")}
RESTRICTED_CHUNK = "en-b12-treat#p1"  # access: clinician, the only chunk carrying vitamin-b12
ANONYMOUS, CLINICIAN = UserContext(), UserContext(roles=("clinician",))


def topic(topic_id: str, en: str, zh: str) -> dict[str, Any]:
    return {"id": topic_id, "is_group": False, "name_en": en, "name_zh": zh, "synonyms_en": [], "synonyms_zh": [],
            "members": []}


TAXONOMY = [topic("iodine", "Iodine", "碘"), topic("sodium", "Salt", "盐"), topic("vitamin-b12", "Vitamin B12", "维生素B12"),
            topic("zinc", "Zinc", "锌")]


def rag_conftest() -> Any:
    spec = importlib.util.spec_from_file_location("rag_conftest", CONFTEST)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def store_pair(encoder: QueryEncoder) -> tuple[Any, Any]:
    """The ``covered`` and ``declared`` stores (same chunks, same vectors, same taxonomy)."""
    module = rag_conftest()
    vectors = encoder.embedder.embed_passages([f"{r[6]}\n{r[7]}" for r in module.ROWS])
    untagged = [(*r[:5], [] if r[0] == RESTRICTED_CHUNK else r[5], *r[6:]) for r in module.ROWS]
    stores = module.make_store(vectors), module.make_store(vectors, rows=untagged)
    for store in stores:
        store.topics, store.prompts = [dict(t) for t in TAXONOMY], dict(PROMPTS)
    return stores


@pytest.fixture(scope="module")
def kbs() -> tuple[KnowledgeBase, KnowledgeBase]:
    encoder = QueryEncoder(load_embedder(DEFAULT_EMBEDDER))
    covered, declared = store_pair(encoder)
    return KnowledgeBase(covered, encoder, Config(llm="none")), KnowledgeBase(declared, encoder, Config(llm="none"))


def plain(result: Any) -> dict[str, Any]:
    """A result as its caller reads it, but for how long each step took."""
    data = result.to_dict()
    data.pop("timings_ms", None)
    return data


#: (question, search keywords): what an anonymous caller might try to learn whether vitamin-b12 is covered
CALLS = [
    ("How much vitamin B12 a day?", {}),
    ("Salt or vitamin B12, which matters more?", {}),  # the named-topic boost of the salt sources
    ("How much a day?", {"topics": ["vitamin-b12"]}),
    ("How much a day?", {"user": UserContext(current_topic="vitamin-b12")}),
    ("Is salt safe with it?", {"user": UserContext(current_topic="vitamin-b12")}),
]


@pytest.mark.parametrize("question, keywords", CALLS)
def test_an_anonymous_search_cannot_tell_a_restricted_only_topic_from_a_declared_gap(kbs, question, keywords):
    covered, declared = kbs
    assert plain(covered.search(question, **keywords)) == plain(declared.search(question, **keywords))


@pytest.mark.parametrize("question", ["How much vitamin B12 a day?", "Salt or vitamin B12, which matters more?"])
def test_an_anonymous_answer_cannot_tell_a_restricted_only_topic_from_a_declared_gap(kbs, question):
    covered, declared = kbs
    assert plain(covered.ask(question)) == plain(declared.ask(question))


@pytest.mark.parametrize("kb_index", [0, 1])
def test_to_an_anonymous_caller_a_restricted_only_topic_scores_and_is_accepted_as_a_declared_gap(kbs, kb_index):
    kb = kbs[kb_index]
    for question in ("How much vitamin B12 a day?", "How much zinc a day?"):
        sources = kb.search(question).sources
        assert sources and {s.scores["gap"] for s in sources} == {1.0}, question
    for topic_id in ("vitamin-b12", "zinc"):  # accepted, and nothing found, as for any declared gap
        assert kb.search("How much a day?", topics=[topic_id]).sources == []
        assert kb.search("How much a day?", user=UserContext(current_topic=topic_id)).sources
    for call in (lambda: kb.search("How much a day?", topics=["nope"]),
                 lambda: kb.search("How much a day?", user=UserContext(current_topic="nope"))):
        with pytest.raises(ValueError, match="topic 'nope' not in this knowledge base"):
            call()
    salt = {s.chunk_id: s.scores.get("boost") for s in kb.search("Salt or vitamin B12, which matters more?").sources}
    assert salt == {s.chunk_id: s.scores.get("boost") for s in kb.search("Salt or zinc, which matters more?").sources}


def test_a_caller_with_the_role_still_finds_the_topic_covered(kbs):
    covered, declared = kbs
    found = covered.search("How much vitamin B12 a day?", user=CLINICIAN).sources
    assert found[0].chunk_id == RESTRICTED_CHUNK and {s.scores["gap"] for s in found} == {0.0}
    assert found[0].scores["topic"] == 1.0 and found[0].scores["boost"] == pytest.approx(2.5)
    assert [s.chunk_id for s in covered.search("How much a day?", topics=["vitamin-b12"], user=CLINICIAN).sources] \
        == [RESTRICTED_CHUNK]
    assert {s.scores["gap"] for s in declared.search("How much vitamin B12 a day?", user=CLINICIAN).sources} == {1.0}
    assert {s.scores["gap"] for s in covered.search("How much zinc a day?", user=CLINICIAN).sources} == {1.0}
    # the salt sources share the boost with the topic the clinician may read, as before
    mixed = covered.search("Salt or vitamin B12, which matters more?", user=CLINICIAN).sources
    assert any(s.scores.get("boost", 1.0) < 2.5 for s in mixed if "sodium" in s.topics)


def test_the_topics_each_set_of_roles_may_read_are_counted_once_at_open():
    access = Column(pa.array(["public", "clinician", None, "clinician"], pa.string()).dictionary_encode())
    topics = Column(pa.array([["iron"], ["iron", "iv-iron"], ["secret"], []], pa.list_(pa.string())))
    assert covered_topics(topics, access, ("clinician",)) == {frozenset(): frozenset({"iron"}),
                                              frozenset({"clinician"}): frozenset({"iron", "iv-iron"})}
    empty = Column(pa.array([], pa.list_(pa.string())))
    assert covered_topics(empty, Column(pa.array([], pa.string())), ("clinician",)) == {frozenset(): frozenset(),
                                                                         frozenset({"clinician"}): frozenset()}
    nothing = Column(pa.array([[], []], pa.list_(pa.null())))
    assert covered_topics(nothing, Column(pa.array(["public", "public"])), ("clinician",)) == {frozenset(): frozenset(),
                                                                                frozenset({"clinician"}): frozenset()}


def test_the_knowledge_base_asks_one_lookup_per_request(kbs):
    covered, _ = kbs
    assert covered.known.covered_topics(()) == frozenset({"iodine", "sodium"})
    assert covered.known.covered_topics(("clinician",)) == frozenset({"iodine", "sodium", "vitamin-b12"})
    assert covered.retriever.covered == covered.known.covered_topics


def test_a_public_callers_topic_weights_are_counted_over_the_public_chunks(kbs) -> None:
    """As BM25's statistics: how many restricted chunks carry a topic must not move a public caller's named-topic
    weights (here the only vitamin-b12 chunk is restricted: the public counts do not know the topic at all)."""
    covered, declared = kbs
    public = covered.retriever._public_topic_idf()
    assert "vitamin-b12" not in public and "vitamin-b12" in covered.retriever._topic_idf()
    assert public == declared.retriever._public_topic_idf()  # the same public chunks: the same weights
