"""End-to-end questions against the built sample with the real default embedder."""

from __future__ import annotations

import concurrent.futures

import duckdb
import pytest

from unitrag.config import Config
from unitrag.rag import KnowledgeBase, UserContext, check_citations
from unitrag.rag.types import SearchFilter

pytestmark = pytest.mark.e2e

STORY_QUESTIONS = {
    "en-vitamin-b12": "Who is at risk of vitamin B12 deficiency and how is it tested?",
    "en-vitamin-d-bones": "How much vitamin D do adults need for bone health?",
    "en-salt-blood-pressure": "How does eating less salt lower blood pressure?",
    "en-omega-3-heart": "Do fish oil supplements with EPA and DHA prevent heart attacks?",
    "zh-iron-anemia": "缺铁性贫血的诊断标准是什么？",
    "zh-iodine-thyroid": "孕妇每天需要多少碘？",
    "zh-blood-glucose": "空腹血糖多少可以诊断糖尿病？",
    "zh-folate-pregnancy": "备孕期间每天应该补充多少叶酸？",
}


@pytest.fixture(scope="module")
def kb(built_sample) -> KnowledgeBase:
    ws, _ = built_sample
    return KnowledgeBase.open(ws.artifact, config=Config(llm="none"))


@pytest.mark.parametrize("story, question", sorted(STORY_QUESTIONS.items()))
def test_a_question_per_story_retrieves_that_storys_scenes(kb, story, question):
    result = kb.search(question)
    stories = [s.story_id for s in result.sources[:3]]
    assert story in stories, [(s.chunk_id, s.score) for s in result.sources]


@pytest.mark.parametrize("question, lang, rule_prefix", [
    ("I have crushing chest pain and I can't breathe", "en", "red-flag"),
    ("我胸口剧痛，喘不上气", "zh", "red-flag"),
    ("I've been having thoughts of killing myself", "en", "red-flag"),
])
def test_red_flags_get_the_fixed_response_without_retrieval(kb, question, lang, rule_prefix):
    answer = kb.ask(question)
    assert answer.guard is not None and answer.guard.type == "red_flag"
    assert answer.guard.rule.startswith(rule_prefix)
    assert answer.sources == [] and answer.lang == lang
    assert "search" not in answer.timings_ms and "embed" not in answer.timings_ms


@pytest.mark.parametrize("message", ["good morning :)", "good night!", "guess what, I got the job!!!", "多谢，今天就到这吧"])
def test_small_talk_is_never_answered_as_an_emergency(kb, message):
    """Held-out lines (content/eval/smalltalk_test.yaml): each got a crisis response before the bundled small talk."""
    answer = kb.ask(message)
    assert answer.guard is None or answer.guard.type != "red_flag", answer.guard


def test_out_of_scope_is_refused(kb):
    answer = kb.ask("Which stocks should I buy this year?")
    assert answer.guard is not None and answer.guard.type == "out_of_scope" and answer.sources == []


def test_restricted_units_never_reach_a_public_caller(kb, built_sample):
    ws, _ = built_sample
    with duckdb.connect(str(ws.artifact), read_only=True) as con:
        title, unit_id = con.execute(
            "SELECT title, unit_id FROM chunks WHERE access = 'clinician' ORDER BY chunk_id LIMIT 1"
        ).fetchone()
    public = kb.ask(title)
    assert all(s.access == "public" for s in public.sources)
    assert unit_id not in {s.unit_id for s in public.sources}
    clinician = kb.search(title, user=UserContext(roles=("clinician",)))
    assert unit_id in {s.unit_id for s in clinician.sources}


def test_current_topic_promotes_that_topics_chunk(kb):
    question = "孕妇每天需要补充多少？"
    topic = "iodine"
    candidates = kb.search(question, k=20).sources
    plain_rank = next(i for i, s in enumerate(candidates) if topic in s.topics)
    assert plain_rank > 0, "pick a question where the topic is a candidate but not already first"
    boosted = kb.search(question, k=20, user=UserContext(current_topic=topic)).sources
    boosted_rank = next(i for i, s in enumerate(boosted) if topic in s.topics)
    assert boosted_rank < plain_rank
    chunk = boosted[boosted_rank].chunk_id
    plain_boost = next((s.scores.get("boost", 1.0) for s in candidates if s.chunk_id == chunk), 1.0)  # the named topics'
    assert boosted[boosted_rank].scores["boost"] == pytest.approx(1.6 * plain_boost)


def test_a_topic_group_filters_by_its_topics_and_is_no_current_topic(kb):
    """An app developer's audit: `topics=["leavening"]` (a group) found nothing, in silence; `kinds=""` was no filter."""
    from unitrag.errors import InvalidArgument
    from unitrag.rag.types import UserContext

    members = set(kb.broadener.groups["minerals"])
    assert {"calcium", "iron", "iodine"} <= members
    grouped = kb.search("how much do I need a day?", topics=["minerals"], k=5)
    assert grouped.sources and all(members & set(s.topics) for s in grouped.sources)
    with pytest.raises(InvalidArgument, match="current_topic: 'minerals' is a group of topics; name one of its topics"):
        kb.search("how much a day?", user=UserContext(current_topic="minerals"))
    for empty in ("", {}):
        with pytest.raises(InvalidArgument, match="kinds"):
            kb.search("how much a day?", kinds=empty)


def test_reopening_the_knowledge_base_reuses_the_loaded_model(kb, built_sample):
    """An app developer's audit: each open loaded the model again (~3-4 MB never given back, ~0.8 s a time)."""
    ws, _ = built_sample
    with KnowledgeBase.open(ws.artifact) as again:
        assert again.encoder.embedder is kb.encoder.embedder
        assert again.search("How much iodine in pregnancy?").sources


def test_extractive_answer_cites_only_its_sources(kb):
    answer = kb.ask("How much sodium should adults eat per day?")
    assert not answer.not_found and answer.extractive
    whitelist = {cid for s in answer.sources for cid in s.citation_ids}
    report = check_citations(answer.answer, whitelist)
    assert report.valid_ids and not report.invalid_ids
    assert {c.id for c in answer.citations} <= whitelist


@pytest.mark.parametrize(("question", "stated", "not_stated"), [
    ("What is the Daily Value for sodium on a US Nutrition Facts label?", "2,300 mg", "4,700 mg"),
    ("按照平衡膳食宝塔，成年人每天应该吃多少克蔬菜？", "300–500 克", "200–350 克"),
])
def test_the_extractive_answer_quotes_the_table_row_asked_about_with_its_header(kb, question, stated, not_stated):
    answer = kb.ask(question)
    assert not answer.not_found and answer.extractive
    first = answer.answer.splitlines()[1]
    assert stated in first and not_stated not in answer.answer  # the row asked about, not the rest of the table


def test_eight_threads_ask_at_once(kb):
    questions = list(STORY_QUESTIONS.values())
    expected = {q: (kb.ask(q).answer, [s.chunk_id for s in kb.ask(q).sources]) for q in questions}
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda q: (q, kb.ask(q)), questions * 2))
    for question, answer in results:
        assert (answer.answer, [s.chunk_id for s in answer.sources]) == expected[question]


def _llm(mock_response):
    from unitrag.providers.llm.litellm import LiteLLMChat

    return LiteLLMChat("openai/gpt-4o-mini", api_key="sk-test", num_retries=0, mock_response=mock_response)


def test_generation_through_litellm_keeps_valid_citations(built_sample):
    ws, _ = built_sample
    question = "How much sodium should adults eat per day?"
    probe = KnowledgeBase.open(ws.artifact, config=Config(llm="none")).search(question)
    valid = probe.sources[0].citation_ids[0]
    kb = KnowledgeBase.open(ws.artifact, llm=_llm(f"Adults should keep sodium under 2 g a day. <Cite id=\"{valid}\"/>"))
    answer = kb.ask(question)
    assert not answer.extractive and answer.llm_error is None
    assert answer.faithfulness.valid_ids == [valid] and answer.faithfulness.invalid_ids == []
    assert [c.id for c in answer.citations] == [valid] and answer.citations[0].title


def test_a_fabricated_citation_is_caught_and_falls_back_to_extractive(built_sample):
    ws, _ = built_sample
    kb = KnowledgeBase.open(ws.artifact, llm=_llm('Salt is fine in any amount. <Cite id="made-up-2099"/>'))
    answer = kb.ask("How much sodium should adults eat per day?")
    assert answer.extractive  # the retry with a corrective message still cited the made-up id
    assert "made-up-2099" not in answer.answer
    assert "made-up-2099" not in {c.id for c in answer.citations}
    assert answer.faithfulness.invalid_ids == []


def test_an_llm_outage_gives_an_extractive_answer_not_an_exception(built_sample):
    ws, _ = built_sample
    kb = KnowledgeBase.open(ws.artifact, llm=_llm(Exception("simulated outage")))
    answer = kb.ask("缺铁性贫血的诊断标准是什么？")
    assert answer.extractive and answer.llm_error and answer.lang == "zh"
    assert answer.answer.startswith("根据知识库资料")


@pytest.mark.parametrize(
    "tag",
    ['<Cite id="made-up-2099" page="1"/>', "<Cite id=made-up-2099/>", "&lt;Cite id=&quot;made-up-2099&quot;/&gt;",
     '＜Cite id="made-up-2099"／＞'],
)
def test_a_disguised_fabricated_citation_is_caught_too(built_sample, tag):
    """Issue 9: spellings that used to pass the check with invalid_ids=[] and score 1.0."""
    ws, _ = built_sample
    llm_answer = f"Salt is fine in any amount. {tag}"
    answer = KnowledgeBase.open(ws.artifact, llm=_llm(llm_answer)).ask("How much sodium should adults eat per day?")
    assert answer.extractive and answer.answer != llm_answer and "made-up-2099" not in answer.answer
    assert answer.llm_calls == 2 and "made-up-2099" in (answer.llm_error or "")
    assert answer.faithfulness.invalid_ids == [] and answer.faithfulness.score == 1.0


def _translating(built_sample, translation: str) -> KnowledgeBase:
    import json

    ws, _ = built_sample
    return KnowledgeBase.open(ws.artifact, llm=_llm(json.dumps({"translation": translation}, ensure_ascii=False)))


def test_an_llm_translation_reaches_units_the_offline_probes_miss(kb, built_sample):
    from dataclasses import replace

    question = "is table salt with added iodine needed if I eat seaweed?"
    # the named-topic boost (iodine) and the reranker's cross-language imputation find this unit
    # offline too: both off here, the translation is what is tested
    weights = {**kb.retriever.reranker.weights, "cross": 0.0}
    boosts, kb.boosts = kb.boosts, replace(kb.boosts, named_topic=1.0)
    kept, kb.retriever.reranker.weights = kb.retriever.reranker.weights, weights
    try:
        offline = kb.search(question)
    finally:
        kb.boosts, kb.retriever.reranker.weights = boosts, kept
    assert "zh-iodine-salt-policy" not in [s.unit_id for s in offline.sources]
    translating = _translating(built_sample, "如果我吃海带，还需要吃加碘盐吗？")
    translating.boosts = replace(translating.boosts, named_topic=1.0)
    translating.retriever.reranker.weights = weights
    result = translating.search(question)
    assert "zh-iodine-salt-policy" in [s.unit_id for s in result.sources], [s.unit_id for s in result.sources]
    assert "translate" in result.timings_ms
    # the translation adds candidates; the scores the gate reads stay the question's own
    offline_dense = {s.chunk_id: s.scores.get("dense") for s in kb.retriever.candidates(
        [question], SearchFilter(restricted=False), {}, sparse=True, probes=kb.retriever.probes(question, "en"))}
    for source in result.sources:
        if source.chunk_id in offline_dense:
            assert source.scores.get("dense") == offline_dense[source.chunk_id]


def test_the_default_reranker_reaches_a_unit_in_the_other_language_offline(kb):
    """No shared term with a Chinese unit: its term features are imputed from its cosine, not zero."""
    from dataclasses import replace

    question = "is table salt with added iodine needed if I eat seaweed?"
    boosts, kb.boosts = kb.boosts, replace(kb.boosts, named_topic=1.0)
    try:
        found = [s.unit_id for s in kb.search(question).sources]
    finally:
        kb.boosts = boosts
    assert "zh-iodine-salt-policy" in found, found


def test_a_misspelled_topic_word_is_answered_as_if_spelled_right(kb):
    """Without the correction no term matches and no topic is named: the gate said "not found"."""
    answer = kb.ask("is colesterol in eggs bad for me")
    assert answer.corrected == "is cholesterol in eggs bad for me" and answer.question == "is colesterol in eggs bad for me"
    assert not answer.not_found and "cholesterol" in answer.answer.lower()
    speller, kb._speller = kb._speller, type(kb._speller)([], lambda _: 0)  # one that knows no topic word
    try:
        assert kb.ask("is colesterol in eggs bad for me").not_found
    finally:
        kb._speller = speller


def test_a_question_in_traditional_characters_is_searched_as_its_simplified_twin(kb):
    """The sample's Chinese is simplified: the embedder sees the folded question too, not only BM25."""
    traditional, simplified = "維生素D缺乏會有哪些症狀？", "维生素D缺乏会有哪些症状？"
    twin = [(s.chunk_id, s.scores["dense"]) for s in kb.search(simplified).sources]
    assert [(s.chunk_id, s.scores["dense"]) for s in kb.search(traditional).sources] == twin
    assert kb.search(traditional).question == traditional  # what is shown stays as asked
    folding, kb._traditional = kb._traditional, True  # as if the content were in traditional characters
    try:
        dense = [s.scores["dense"] for s in kb.search(traditional).sources]
    finally:
        kb._traditional = folding
    assert dense != [score for _, score in twin]


def test_a_warning_sign_in_traditional_characters_is_stopped_as_its_simplified_twin_is(kb):
    """The guard's examples are simplified, like the units: read as typed, the classifier scored this 0.36 (stop 42;
    its earlier question now scores 0.62 as typed too, with more of the suicide rule's examples)."""
    question = "把東西都送給同學了 跟大家道過別了 心裡很平靜 順便問問燕麥片怎麼煮比較好吃"
    answer = kb.ask(question)
    assert answer.guard is not None and answer.guard.rule == "red-flag-suicide-self-harm" and answer.sources == []
    as_typed, folded = (next(s for s in kb.guard.scores(text) if s.type == "red_flag")
                        for text in (question, kb.in_content_script(question)))
    assert as_typed.score < as_typed.threshold <= folded.score  # the classifier alone, on the text as typed and folded


def test_a_translation_cannot_reach_restricted_units(kb, built_sample):
    """Whatever the LLM returns, the translation is searched under the caller's own filter."""
    translated = _translating(built_sample, "静脉补铁的适应证和总缺铁量的计算方法")
    public = translated.search("when is an iron drip needed?")
    assert all(s.access == "public" for s in public.sources)
    clinician = translated.search("when is an iron drip needed?", user=UserContext(roles=["clinician"]))
    assert "zh-iron-intravenous" in [s.unit_id for s in clinician.sources]
