"""Which cross-lingual probes a question gets, the per-language-pair correction, and a gate with a mixed feature."""

from __future__ import annotations

import numpy as np
import pytest

from unitrag.rag.search.crosslingual import CrossLingual
from unitrag.rag.gate import AnswerabilityGate
from unitrag.rag.logistic import fit_logistic
from unitrag.rag.types import Source

TOPICS = [
    {"id": "iodine", "name_en": "Iodine", "name_zh": "碘", "synonyms_en": ["iodized salt"], "synonyms_zh": ["碘盐"],
     "is_group": False, "members": []},
    {"id": "pregnancy", "name_en": "Pregnancy", "name_zh": "孕期", "synonyms_en": ["pregnant"], "synonyms_zh": ["孕妇"],
     "is_group": False, "members": []},
]


def test_a_question_naming_topics_gets_expansion_routing_and_a_pool_in_the_other_language():
    xl = CrossLingual.from_rows(TOPICS, {"en", "zh"})
    assert xl.topics_in("How much iodine does a pregnant woman need?") == ["iodine", "pregnancy"]
    probes = {p.why: p for p in xl.probes("How much iodine does a pregnant woman need?", "en")}
    assert probes["expand"].text == "碘 孕期" and probes["expand"].lang == "zh" and probes["expand"].sparse
    assert probes["route"].topics == ("iodine", "pregnancy") and probes["route"].lang is None
    assert probes["pool"].lang == "zh" and probes["pool"].text.startswith("How much")
    assert {p.why for p in xl.probes("孕妇每天需要多少碘？", "zh")} == {"expand", "route", "pool"}
    assert [p.why for p in xl.probes("What should I eat?", "en")] == ["pool"]  # no topic named


def test_one_language_knowledge_bases_get_no_cross_lingual_probes_but_keep_the_current_topic():
    xl = CrossLingual.from_rows(TOPICS, {"en"})
    assert xl.probes("How much iodine?", "en") == []
    assert [(p.why, p.topics) for p in xl.probes("What should I eat?", "en", "iodine")] == [("topic", ("iodine",))]
    xl.current_topic = False
    assert xl.probes("What should I eat?", "en", "iodine") == []


def test_the_current_topic_counts_as_named_for_expansion_and_routing():
    xl = CrossLingual.from_rows(TOPICS, {"en", "zh"})
    probes = {p.why: p for p in xl.probes("What should I eat?", "en", "iodine")}
    assert probes["expand"].text == "碘" and probes["topic"].topics == ("iodine",)
    assert "route" not in probes  # the same search as the "topic" probe
    probes = {p.why: p for p in xl.probes("Is it safe when pregnant?", "en", "iodine")}
    assert probes["expand"].text == "孕期 碘" and probes["route"].topics == ("pregnancy", "iodine")
    xl.current_topic = False
    assert [p.why for p in xl.probes("What should I eat?", "en", "iodine")] == ["pool"]


def test_the_correction_applies_across_languages_only():
    xl = CrossLingual.from_rows(TOPICS, {"en", "zh"})
    xl.offsets = {"en>zh": 0.08, "zh>en": 0.07}
    assert xl.offset("How much iodine?", "zh") == 0.08 and xl.offset("需要多少碘？", "en") == 0.07
    assert xl.offset("How much iodine?", "en") == 0.0 and xl.offset("需要多少碘？", "zh") == 0.0


def _sources(dense: float, topic: float) -> list[Source]:
    return [Source("c", "u", "scene", "t", "x", [], [], "public", "en", scores={"dense": dense, "topic": topic})]


def test_a_gate_with_a_mixed_feature_credits_a_topic_match_and_round_trips():
    rng = np.random.default_rng(0)
    topic = rng.integers(0, 2, 200).astype(float)
    dense = rng.normal(0.86, 0.02, 200)
    labels = dense + 0.05 * topic + rng.normal(0, 0.005, 200) > 0.9
    weights, _ = fit_logistic(np.column_stack([dense, topic]), labels)
    assert 0.03 < weights[1] / weights[0] < 0.07  # the topic is worth about 0.05 of cosine
    gate = AnswerabilityGate.fit(dense, labels, feature="max_dense", mix={"topic": topic}, lang_offsets={"en>zh": 0.08})
    assert not gate.answerable(_sources(0.875, 0.0)) and gate.answerable(_sources(0.875, 1.0))
    stored = gate.to_dict()
    assert stored["feature"].startswith("max_dense + ") and stored["feature"].endswith("*topic")
    assert AnswerabilityGate.from_dict(stored) == gate


def test_triggered_rules_and_recent_scenes_become_a_context_probe():
    xl = CrossLingual.from_rows(TOPICS, {"en", "zh"})
    probes = xl.probes("Is that safe?", "en", None, ("zh-ferritin-low", "en-salt-potassium"))
    context = [p for p in probes if p.why == "context"]
    assert len(context) == 1 and context[0].units == ("zh-ferritin-low", "en-salt-potassium")
    xl.context = False
    assert not [p for p in xl.probes("Is that safe?", "en", None, ("zh-ferritin-low",)) if p.why == "context"]


def test_context_rows_respect_access_and_need_no_vectors_in_memory():
    from unitrag.config import Config
    from unitrag.rag.search.retrieval import Retriever
    from unitrag.rag.types import SearchFilter

    from tests.rag.conftest import make_store

    store = make_store()
    retriever = Retriever(store, encoder=None, config=Config())  # type: ignore[arg-type]
    vector = store.vectors[4]
    rows, scores = retriever._unit_rows(("zh-iodine", "en-b12-treat"), vector, SearchFilter())
    assert [store.columns["unit_id"][r] for r in rows] == ["zh-iodine"]  # the clinician-only unit stays out
    assert scores[0] > 0.99
    rows, _ = retriever._unit_rows(("zh-iodine", "en-b12-treat"), vector, SearchFilter(restricted=True))
    assert len(rows) == 2
    store.vectors = np.zeros((0, 384), np.float32)  # a published (PostgreSQL) store keeps no vectors in memory
    rows, scores = retriever._unit_rows(("zh-iodine",), vector, SearchFilter())
    assert len(rows) == 1 and scores.tolist() == [0.0]


# --- excludes: words that contain a topic's name but are not about it ---------------------------------------------

IRON = {"id": "iron", "name_en": "Iron", "name_zh": "铁", "synonyms_en": ["heme iron"], "synonyms_zh": ["补铁"],
        "is_group": False, "members": [], "excludes": ["高铁", "地铁", "cast iron"]}


def test_a_name_inside_an_exclude_does_not_name_the_topic_and_one_outside_every_exclude_does():
    xl = CrossLingual.from_rows([IRON, *TOPICS], {"en", "zh"})
    not_iron = ["坐高铁去上海", "坐地铁还是打车？", "从北京坐高铁到上海要多久？",
                "Is a CAST-IRON pan safe?"]  # case, and a hyphen for the space, as names are matched
    assert [xl.topics_in(q) for q in not_iron] == [[]] * len(not_iron)
    assert [p.why for p in xl.probes("从北京坐高铁到上海要多久？", "zh")] == ["pool"]  # no iron units to route to
    iron = ["缺铁怎么办", "高铁上能补铁吗", "坐地铁的孕妇要补铁吗", "Cast iron pans add iron to food?"]
    assert ["iron" in xl.topics_in(q) for q in iron] == [True] * len(iron)


@pytest.mark.parametrize("row", [{k: v for k, v in IRON.items() if k != "excludes"}, {**IRON, "excludes": None},
                                 {**IRON, "excludes": []}])
def test_rows_without_excludes_match_as_before(row):
    """An artifact or database older than the column gives rows without the key, or NULL."""
    assert CrossLingual.from_rows([IRON], {"en", "zh"}).topics_in("坐高铁去上海") == []
    xl = CrossLingual.from_rows([row], {"en", "zh"})
    assert xl.topics_in("坐高铁去上海") == ["iron"]
    assert xl.broadener.topics["iron"].excludes is None  # and no masking pass per question


# --- a plural name whose singular is a function word ---------------------------------------------------------------

CANS = {"id": "recyclables", "name_en": "Recyclables", "name_zh": "可回收物", "synonyms_en": ["cans", "plastic bottles"],
        "synonyms_zh": ["易拉罐"], "is_group": False, "members": []}


def test_a_stop_word_is_no_singular_of_a_plural_name():
    """A new team's audit: the synonym "cans" made the modal "can" name recyclables ("Where can I learn Mandarin in
    Binjiang?" was answered from recyclables units with topic 1.0 and the ×2.5 boost; "could" was "not found"). A
    plural whose singular is a stop word of the analyzer matches that singular only as a noun."""
    xl = CrossLingual.from_rows([CANS, *TOPICS], {"en", "zh"})
    modal = ["Where can I learn Mandarin in Binjiang?", "Can you recommend a good hotel?", "CAN I bring my dog?",
             "Is there a bin that can take glass?", "This can be recycled?"]
    assert [xl.topics_in(q) for q in modal] == [[]] * len(modal)
    assert [p.why for p in xl.probes("Where can I learn Mandarin in Binjiang?", "en")] == ["pool"]
    cans = ["Where do cans go?", "Is a can recyclable?", "Which bin does a can of beans go in?",
            "Where do I put an empty can?", "Can I recycle a soda can?", "CANS: blue bin?", "Rinse the can first?"]
    assert [xl.topics_in(q) for q in cans] == [["recyclables"]] * len(cans)
    match = xl.broadener.topics["recyclables"].find("Which bin does a can of beans go in?")
    assert match is not None and match.group() == "can"
    # other plurals keep their optional s
    assert xl.topics_in("Is a plastic bottle recyclable?") == ["recyclables"]
