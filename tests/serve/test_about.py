"""``GET /v1/about``: the knowledge base's name, description and languages from the config, and example
questions and topics from the artifact; a clinician-only unit's question never reaches a public caller."""

from __future__ import annotations

from dataclasses import replace

from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.serve import ServeSettings

from .conftest import CLINICIAN_KEY

CLINICIAN = {"authorization": f"Bearer {CLINICIAN_KEY}"}


def clinician_questions(kb: KnowledgeBase) -> set[str]:
    return {row["text"] for row in kb.store.unit_questions if row["role"] == "clinician_question"}


def test_the_name_description_and_languages_come_from_the_config(make_client, sample_kb):
    config = replace(sample_kb.config, name="Bike care", description="Fixing and riding bicycles.", languages=("en",))
    about = make_client(ServeSettings(reload_poll_s=0), config=config).get("/v1/about").json()
    assert (about["name"], about["description"], about["languages"]) == ("Bike care", "Fixing and riding bicycles.", ["en"])
    assert about["localized"] == {}


def test_each_languages_own_name_is_given_to_the_page(make_client, sample_kb):
    config = replace(sample_kb.config, name="Bike care", name_zh="自行车保养", description_zh="修车与骑行。")
    about = make_client(ServeSettings(reload_poll_s=0), config=config).get("/v1/about").json()
    assert about["name"] == "Bike care"
    assert about["localized"] == {"zh": {"name": "自行车保养", "description": "修车与骑行。"}}


def test_examples_are_the_units_own_questions_of_public_units(client, sample_kb):
    about = client.get("/v1/about").json()
    own = {(row["unit_id"], row["text"]) for row in sample_kb.store.unit_questions}
    assert {e["lang"] for e in about["examples"]} == {"en", "zh"}
    assert all(sum(e["lang"] == lang for e in about["examples"]) == 6 for lang in ("en", "zh"))
    for example in about["examples"]:
        assert (example["unit_id"], example["text"]) in own  # an author's question, with its unit
        assert client.get(f"/v1/units/{example['unit_id']}").status_code == 200  # one an anonymous caller may read
    assert len({e["unit_id"] for e in about["examples"] if e["lang"] == "en"}) == 6  # spread: one per unit


def test_a_clinician_only_units_question_reaches_only_a_clinician(client, sample_kb):
    restricted = clinician_questions(sample_kb)
    assert restricted  # the sample has clinician-only units with questions
    public = {e["text"] for e in client.get("/v1/about").json()["examples"]}
    assert not public & restricted
    every_public = {e["text"] for e in sample_kb.example_questions((), per_lang=10_000)}  # every unit's pick, not 6
    assert every_public and not every_public & restricted
    granted = {e["text"] for e in sample_kb.example_questions(("clinician",), per_lang=10_000)}
    assert granted & restricted  # the key's role reads them: the filter, not chance, keeps them off the public page
    assert {e["text"] for e in client.get("/v1/about", headers=CLINICIAN).json()["examples"]} & restricted


def test_a_wrong_key_is_refused_like_any_endpoint(client):
    assert client.get("/v1/about", headers={"authorization": "Bearer wrong"}).status_code == 401


def test_topics_are_those_most_covered(client, sample_kb):
    topics = client.get("/v1/about").json()["topics"]
    known = {t["id"]: t for t in sample_kb.store.topics}
    assert 1 <= len(topics) <= 8 and all(not known[t["id"]]["is_group"] for t in topics)
    assert all(t["name_en"] == known[t["id"]]["name_en"] and t["name_zh"] == known[t["id"]]["name_zh"] for t in topics)
    counts = {t: sum(t in chunk_topics for chunk_topics, access in zip(sample_kb.store.columns["topics"],
                                                                          sample_kb.store.access) if access == "public")
              for t in known}
    shown = [counts[t["id"]] for t in topics]
    assert shown == sorted(shown, reverse=True) and shown[-1] >= max(counts[t] for t in known
                                                                     if t not in {s["id"] for s in topics} and not known[t]["is_group"])
