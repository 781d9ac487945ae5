"""Answerability exemplars on the built sample (real embedder, committed gate): a lay question near the questions the
knowledge base answers is answered, one near those it does not is "not found", and neither counts itself."""

from __future__ import annotations

import pytest

from unitrag.content.registry import load_questions
from unitrag.rag.calibrate.calibration import measure
from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.rag.types import UserContext

pytestmark = pytest.mark.e2e

#: Written for this test, in none of the question sets: no topic name, no close cosine to a chunk.
LAY_ANSWERABLE = "I get out of breath on the stairs and look pale, could it be my diet?"
UNCOVERED = "My scan showed a fatty liver even though I rarely drink. What foods should I cut?"


@pytest.fixture(scope="module")
def kb(built_sample) -> KnowledgeBase:
    ws, _ = built_sample
    return KnowledgeBase.open(ws.artifact, config=ws.config)


def test_the_artifact_carries_exemplars_of_both_kinds_and_the_gate_reads_them(kb: KnowledgeBase):
    exemplars = kb.retriever.exemplars
    assert exemplars is not None and exemplars.answerable.any() and (~exemplars.answerable).any()
    assert exemplars.restricted.any()  # the clinician-only units' questions, for clinicians only
    assert "exemplar" in kb.retriever.gate.mix


def test_a_lay_question_near_answered_ones_is_answered_only_with_the_exemplars(kb: KnowledgeBase):
    sources = kb.search(LAY_ANSWERABLE).sources
    assert sources[0].scores["exemplar"] > 0
    assert not kb.ask(LAY_ANSWERABLE).not_found
    kept, kb.retriever.exemplars = kb.retriever.exemplars, None
    try:
        assert kb.ask(LAY_ANSWERABLE).not_found  # the cosine alone cannot tell it from an uncovered question
    finally:
        kb.retriever.exemplars = kept


def test_an_uncovered_question_near_unanswered_ones_is_not_found(kb: KnowledgeBase):
    sources = kb.search(UNCOVERED).sources
    assert sources[0].scores["exemplar"] < 0
    assert kb.ask(UNCOVERED).not_found


def test_a_clinicians_exemplars_do_not_make_a_public_question_look_answered(kb: KnowledgeBase):
    clinician_only = next(t for t, c in zip(kb.retriever.exemplars.texts, kb.retriever.exemplars.restricted) if c)
    public = kb.search(clinician_only).sources[0].scores["exemplar"]
    clinician = kb.search(clinician_only, user=UserContext(roles=("clinician",))).sources[0].scores["exemplar"]
    assert clinician > public


def test_a_dev_question_is_no_exemplar_of_itself_asked_or_measured(kb: KnowledgeBase, built_sample):
    """Measured, a dev question's file is left out of the exemplars; asked word for word, the question itself is (two
    new teams found ``eval`` scoring one answer and ``ask`` giving another: the question was its own neighbour)."""
    ws, _ = built_sample
    problems: list = []
    questions = [q for q in load_questions([ws.root / "content" / "eval" / "questions.yaml"], problems)
                 if q.question.user is None and q.question.guard is None and q.question.answerable][:3]
    assert problems == [] and questions
    samples, _ = measure(kb, questions)
    assert len(samples) == len(questions)
    for sample in samples:
        asked = kb.search(sample.question).sources[0].scores["exemplar"]
        with kb.retriever.exemplars_without([sample.question]):
            without_itself = kb.search(sample.question).sources[0].scores["exemplar"]
        assert asked == pytest.approx(without_itself, abs=1e-6), sample.id  # its own text was a cosine of 1


def test_an_authors_own_question_is_answered_from_its_unit_first(kb: KnowledgeBase, built_sample):
    """Two new teams' audits: a unit's own question, word for word, was answered from other units ranked above it
    (151 of the sample's 390 public ones did not rank their unit first). Now its unit comes first (a story's
    question: one of the story's scenes), and the extractive answer quotes it; anonymous callers still never get a
    restricted unit's question's unit."""
    import duckdb

    ws, _ = built_sample
    with duckdb.connect(str(ws.artifact), read_only=True) as con:
        rows = con.execute("SELECT rule_id, text FROM guard_examples WHERE role = 'unit_question' ORDER BY rule_id, text"
                           ).fetchall()
        restricted = con.execute("SELECT rule_id, text FROM guard_examples WHERE role = 'clinician_question' "
                                 "ORDER BY rule_id, text LIMIT 3").fetchall()
    checked = rows[::6]
    assert len(checked) > 40
    for unit, text in checked:
        first = kb.search(text).sources[0]
        assert unit in (first.unit_id, first.story_id), (text, unit, first.unit_id)
    for unit, text in restricted:
        assert all(s.access == "public" for s in kb.search(text).sources)
        assert kb.search(text, user=UserContext(roles=(kb.restricted_role,))).sources[0].unit_id == unit
