"""Cross-lingual retrieval, "not found" and the current topic on the built sample, with the real default embedder.

The sample covers each topic in one language only. Each test also switches its mechanism off
and checks the outcome flips, so it cannot pass by accident.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.rag.types import UserContext

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def kb(built_sample) -> KnowledgeBase:
    ws, _ = built_sample
    return KnowledgeBase.open(ws.artifact, config=ws.config)


def _units(kb: KnowledgeBase, question: str, user: UserContext | None = None) -> list[str]:
    return [s.unit_id for s in kb.search(question, user=user).sources]


@pytest.mark.parametrize(("question", "unit"), [
    ("Which foods are rich in iron, and is plant iron absorbed as well as meat iron?", "zh-iron-sources"),  # only in Chinese
    ("What is the recommended daily iodine intake for pregnant women?", "zh-iodine-intake-urinary"),
    ("严格素食的人怎样获得足够的维生素B12？", "en-b12-food-sources"),  # only in English
])
def test_a_question_finds_the_unit_written_only_in_the_other_language(kb: KnowledgeBase, question: str, unit: str):
    assert unit in _units(kb, question)
    # an author's own question in the other language reaches its unit too (``authored_units``): off here as well
    probes, kb.retriever.crosslingual = kb.retriever.crosslingual, None
    exemplars, kb.retriever.exemplars = kb.retriever.exemplars, None
    try:
        assert unit not in _units(kb, question), "without the cross-lingual probes the other language stays out"
    finally:
        kb.retriever.crosslingual, kb.retriever.exemplars = probes, exemplars


@pytest.mark.parametrize("question", [
    "Does zinc help me get over a cold faster?",  # in the domain, covered by no unit
    "补镁能改善睡眠吗？",
    "How do I replace the clutch on a 2009 diesel pickup?",  # off the domain, past the guard
])
def test_uncovered_and_off_domain_questions_get_not_found(kb: KnowledgeBase, question: str):
    answer = kb.ask(question)
    assert answer.guard is None and answer.not_found
    gate, kb.retriever.gate = kb.retriever.gate, None
    try:
        assert not kb.ask(question).not_found, "without the gate every question is answered from something"
    finally:
        kb.retriever.gate = gate


def test_the_current_topic_brings_its_units_in_the_other_language(kb: KnowledgeBase):
    user = UserContext(current_topic="iodine")  # every iodine unit is Chinese
    question = "What should I watch in my diet?"
    brought = [u for u in _units(kb, question, user) if u.startswith("zh-iodine")]
    assert brought
    kb.retriever.crosslingual.current_topic = False
    try:
        assert not [u for u in _units(kb, question, user) if u.startswith("zh-iodine")], "a ×1.6 boost alone brings nothing"
    finally:
        kb.retriever.crosslingual.current_topic = True


@pytest.mark.parametrize(("question", "topic", "prefix"), [
    ("Which foods have the most of it?", "calcium", "en-"),  # asked in English; calcium's units are English
    ("平时吃什么能多补一点？", "potassium", "en-salt"),  # asked in Chinese about English units
    ("is it safe for my kids?", "omega-3", "en-omega3"),  # same language: the reranker's cut must keep the topic
    ("how much should I take a day?", "folate", "zh-folate"),  # English about Chinese units
])
def test_a_question_naming_nothing_else_is_about_the_current_topic(kb: KnowledgeBase, question: str, topic: str, prefix: str):
    user = UserContext(current_topic=topic)
    sources = kb.search(question, user=user).sources
    assert topic in sources[0].topics and sources[0].unit_id.startswith(prefix)
    focused, kb.retriever.focused = kb.retriever.focused, lambda question, user: False
    try:
        assert topic not in kb.search(question, user=user).sources[0].topics, "without the focus a boost alone is outranked"
    finally:
        kb.retriever.focused = focused


@pytest.mark.parametrize(("question", "unit"), [
    ("My urinary iodine result is 80 µg/L. What does that suggest?", "zh-urinary-iodine-low"),  # names iodine
    ("低密度脂蛋白胆固醇200 mg/dL算很高吗？", "en-ldl-very-high"),  # names cholesterol
])
def test_a_unit_on_the_topic_a_question_names_ranks_in_the_top_five(kb: KnowledgeBase, question: str, unit: str,
                                                                    monkeypatch):
    from unitrag.eval.variants import VARIANTS, rank
    from unitrag.rag.search import retrieval

    def ranked() -> tuple[list[str], float]:  # the units eval scores (Success@5), and the unit's best final score
        found = rank(kb, question, VARIANTS["full"], kb.config.dense_k)
        return found.units, max(s.score for s in found.sources if s.unit_id == unit)

    assert unit in ranked()[0][:5]
    # the reranker's cross-language imputation, and the question's own best matches reranked past the cut, reach these
    # units too (and since BM25's lowest hit ranks above what BM25 did not return, without the boost as well): off, the
    # boost alone must lift the unit, never lower it
    monkeypatch.setattr(retrieval, "OWN_KEPT", 0)
    weights = kb.retriever.reranker.weights
    kb.retriever.reranker.weights = {**weights, "cross": 0.0}
    try:
        (boosted, with_boost) = ranked()
        boosts, kb.boosts = kb.boosts, replace(kb.boosts, named_topic=1.0)
        try:
            (plain, without) = ranked()
        finally:
            kb.boosts = boosts
    finally:
        kb.retriever.reranker.weights = weights
    assert with_boost > without and boosted.index(unit) <= plain.index(unit) and boosted.index(unit) < 5


def test_an_extractive_answer_says_its_source_is_in_the_other_language(kb: KnowledgeBase):
    from unitrag.rag.answer.extractive import extractive_answer

    question = "Which foods are rich in iron, and is plant iron absorbed as well as meat iron?"
    text = extractive_answer(question, "en", kb.search(question).sources)
    assert "The following is from a Chinese source: " in text
    # The label follows the language of the quoted span's unit, so the English sources are given alone (a
    # Chinese unit may also say something about B12 for vegans, and then it is quoted without a label).
    question = "严格素食的人怎样获得足够的维生素B12？"
    english = [s for s in kb.search(question).sources if s.lang == "en"]
    assert english, "the English B12 unit is among the sources of the Chinese question"
    text = extractive_answer(question, "zh", english)
    assert "以下内容来自英文资料：" in text
    assert "以下内容来自英文资料" not in extractive_answer("哪些食物含铁多？", "zh", kb.search("哪些食物含铁多？").sources)


def test_a_triggered_rule_in_the_other_language_joins_the_sources(kb: KnowledgeBase):
    user = UserContext(triggered_rules=("zh-hemoglobin-low-female",))
    question = "What should I do about this result?"
    assert _units(kb, question, user)[0] == "zh-hemoglobin-low-female"  # the question is about it: first
    kb.retriever.crosslingual.context = False  # no probe for it, and the question not taken as about it
    focused, kb.retriever.focused = kb.retriever.focused, lambda question, user: False
    try:
        assert "zh-hemoglobin-low-female" not in _units(kb, question, user), "a ×1.5 boost alone brings nothing"
    finally:
        kb.retriever.crosslingual.context = True
        kb.retriever.focused = focused


def test_the_questions_own_best_match_is_reranked_though_topic_probes_bury_it(kb: KnowledgeBase, monkeypatch):
    """"膳食指南…多少盐、多少油、多少蔬菜" names salt, oil and vegetables: the probes for those topics heap the fused
    ranking with their units, and the guidelines overview, the question's own first BM25 match, fell below the
    reranker's cut (``OWN_KEPT``)."""
    from unitrag.rag.search import retrieval

    question = "膳食指南建议每天吃多少盐、多少油、多少蔬菜"
    assert "zh-dietary-guidelines-overview" in _units(kb, question)
    monkeypatch.setattr(retrieval, "OWN_KEPT", 0)
    assert "zh-dietary-guidelines-overview" not in _units(kb, question), "without the kept matches the cut drops it"


def test_a_not_found_the_gate_nearly_answered_names_the_closest_material(kb: KnowledgeBase, monkeypatch):
    from unitrag.rag.answer import closest

    question = "Does zinc help me get over a cold faster?"  # covered by no unit; names no topic of the sample's
    answer = kb.ask(question)
    assert answer.not_found and closest.CLOSEST_LEAD["en"] not in answer.answer
    monkeypatch.setattr(closest, "NEAR_ANSWERABLE", answer.gate["p_answerable"])
    assert closest.CLOSEST_LEAD["en"] in kb.ask(question).answer  # at the gate's p: near enough to name them
