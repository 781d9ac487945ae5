"""A unit's ``questions:``: plain text or {q, facts} (a content test); strict, at their lines; facts are never embedded."""

from __future__ import annotations

from unitrag.compiler.chunking import chunk_content
from unitrag.compiler.guard_examples import guard_example_rows
from unitrag.compiler.plan import hash_chunks
from unitrag.content.validate import validate_content

PLAIN = """\
questions:
  - "How much B12 do adults need?"
  - "维生素B12每天需要多少？"
"""
WITH_FACTS = """\
questions:
  - q: "How much B12 do adults need?"
    facts: [["2.4 µg", "2.4微克"], "per day"]
  - "维生素B12每天需要多少？"
"""


def _scene(samples, questions: str) -> str:
    return samples.SCENE.replace("citationIds:", questions + "citationIds:", 1)


def test_plain_and_fact_questions_read_as_text_and_facts(tree, samples):
    tree.write("scenes/story-one/01-scene-one.md", _scene(samples, WITH_FACTS))
    content = validate_content(tree.root)
    assert content.problems == []
    unit = next(lu.unit for lu in content.units if lu.id == "scene-one")
    assert unit.question_texts == ["How much B12 do adults need?", "维生素B12每天需要多少？"]
    assert unit.questions[0].facts == [["2.4 µg", "2.4微克"], ["per day"]]  # a bare string: one spelling
    assert unit.questions[1].facts == []


def test_a_mapping_is_strict_and_its_errors_are_at_their_lines(tree, samples):
    bad = """\
questions:
  - q: "How much B12 do adults need?"
    fact: ["2.4 µg"]
  - q: "Per day?"
    facts: ["--", []]
  - facts: ["2.4 µg"]
  - 42
"""
    tree.write("scenes/story-one/01-scene-one.md", _scene(samples, bad))
    found = {(p.line, p.field): p.message for p in validate_content(tree.root).problems}
    shown = {p.path for p in validate_content(tree.root).problems}
    assert shown == {tree.shown("scenes/story-one/01-scene-one.md")}
    assert "unknown field" in found[(10, "questions.0.fact")]
    assert "no letter or digit" in found[(12, "questions.1.facts.0.0")]
    assert (12, "questions.1.facts.1") in found  # an empty list of spellings
    assert (13, "questions.2.q") in found  # a mapping needs its question
    assert "{q: text, facts: [...]}" in found[(14, "questions.3")]


def test_adding_facts_embeds_nothing(tree, samples):
    """Chunks and exemplar rows keep their hashes: facts are metadata for content tests only."""
    def hashes() -> tuple[list, list]:
        content = validate_content(tree.root)
        assert content.problems == []
        chunks = [(h.content_hash, h.meta_hash) for h in hash_chunks(chunk_content(content, 500))]
        return chunks, guard_example_rows(content)

    tree.write("scenes/story-one/01-scene-one.md", _scene(samples, PLAIN))
    before = hashes()
    tree.write("scenes/story-one/01-scene-one.md", _scene(samples, WITH_FACTS))
    assert hashes() == before
    assert [r["text"] for r in before[1] if r["role"] == "unit_question"] == \
        ["How much B12 do adults need?", "维生素B12每天需要多少？"]
