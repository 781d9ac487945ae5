"""The semantic guard over PostgreSQL: its classifier and examples are published, incrementally, and a
knowledge base opened on the database refuses what the artifact's refuses, patterns or not."""

from __future__ import annotations

from operator import itemgetter

import duckdb
import psycopg
import pytest

from tests.e2e.test_guard_semantic import UNSEEN
from unitrag.config import Config
from unitrag.postgres.publish import publish
from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.content.text.lang import normalize_question

QUESTIONS = [(rule, question) for rule, pair in UNSEEN.items() for question in pair][::3]


@pytest.fixture(scope="module")
def kbs(built_sample, published_sample):
    ws, _ = built_sample
    duck = KnowledgeBase.open(ws.artifact, config=Config(llm="none"))
    pg = KnowledgeBase.open(published_sample, config=Config(llm="none"), embedder=duck.encoder.embedder)
    yield duck, pg
    pg.close()


def _count(url: str, table: str) -> int:
    with psycopg.connect(url) as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def test_the_guard_tables_are_published_whole_and_only_when_they_change(built_sample, pg_url):
    artifact = built_sample[0].artifact
    first = publish(artifact, pg_url)
    assert {"guard_examples", "guard_model"} <= set(first.plan.tables_changed)
    with duckdb.connect(str(artifact), read_only=True) as con:
        examples, classes = (con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("guard_examples", "guard_model"))
    assert classes > 1
    assert (_count(pg_url, "unitrag_guard_examples"), _count(pg_url, "unitrag_guard_model")) == (examples, classes)
    assert first.rows_written["guard_examples"] == examples
    again = publish(artifact, pg_url)
    assert again.plan.tables_changed == [] and again.rows_written == {}


@pytest.mark.parametrize(("rule", "question"), QUESTIONS)
def test_an_emergency_without_a_pattern_word_is_refused_as_from_the_artifact(kbs, rule, question):
    duck, pg = kbs
    assert not any(r.matches(normalize_question(question)) for r in pg.guard.rules), "a pattern matches: not a similarity test"
    expected, found = duck.ask(question), pg.ask(question)
    assert found.guard is not None and (found.guard.rule, found.guard.reason) == (rule, "similarity")
    assert found.guard.to_dict() == expected.guard.to_dict()  # same rule, score, threshold and nearest example
    assert (found.answer, found.sources) == (expected.answer, [])


def test_removing_a_rules_examples_is_published_and_stops_its_similarity(workspace, pg_url):
    question = UNSEEN["red-flag-stroke"][0]
    publish(workspace.artifact, pg_url)
    before = KnowledgeBase.open(pg_url, config=Config(llm="none"))
    try:
        assert before.guard.check(question, "en").rule == "red-flag-stroke"
        embedder = before.encoder.embedder
    finally:
        before.close()
    workspace.drop_guard_examples("red-flag-stroke")
    workspace.build()
    report = publish(workspace.artifact, pg_url)
    assert report.plan.tables_changed == ["guard_examples", "guard_model"] and report.rows_written["upserted"] == 0
    after = KnowledgeBase.open(pg_url, config=Config(llm="none"), embedder=embedder)
    try:
        assert "red-flag-stroke" not in after.guard.semantic.classes  # type: ignore[union-attr]
        outcome = after.guard.check(question, "en")
        assert outcome is None or outcome.rule != "red-flag-stroke"
    finally:
        after.close()


def test_the_answerability_exemplars_are_published_with_the_guards_examples(kbs):
    duck, pg = kbs
    assert pg.retriever.exemplars is not None
    assert sorted(pg.retriever.exemplars.texts) == sorted(duck.retriever.exemplars.texts)
    by_text = itemgetter("unit_id", "text")  # the authors' questions of units too (the page's examples, /v1/about)
    assert sorted(pg.store.unit_questions, key=by_text) == sorted(duck.store.unit_questions, key=by_text) != []
    question = "I get out of breath on the stairs and look pale, could it be my diet?"
    expected = duck.search(question).sources[0].scores["exemplar"]
    assert pg.search(question).sources[0].scores["exemplar"] == pytest.approx(expected, abs=1e-5)
