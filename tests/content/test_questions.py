"""questions.yaml: the labelled set the answerability gate is calibrated on, loaded and cross-checked."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from unitrag.content.models import LabelledQuestion
from unitrag.content.validate import validate_content

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"

QUESTIONS = """\
- id: q-one
  question: "How much B12 do I need?"
  lang: en
  answerable: true
  expected_units: [scene-one, story-one]
- id: q-two
  question: "明天会下雨吗？"
  lang: zh
  answerable: false
  expected_units: []
- id: q-three
  question: "What is folate?"
  lang: en
  answerable: false
"""


def found(content) -> list[tuple[str, int, str, str]]:
    return [(p.path, p.line, p.field, p.message) for p in content.problems]


def test_questions_are_loaded_with_the_content(tree):
    tree.write("questions.yaml", QUESTIONS)
    content = validate_content(tree.root)
    assert content.problems == []
    loaded = [lq.question for lq in content.questions]
    assert [q.id for q in loaded] == ["q-one", "q-two", "q-three"]
    assert loaded[0] == LabelledQuestion(
        id="q-one", question="How much B12 do I need?", lang="en", answerable=True, expected_units=["scene-one", "story-one"]
    )
    assert loaded[2].expected_units == []  # may be left out when unanswerable
    assert content.questions[1].line_of("id") == 6


def test_a_content_tree_without_questions_is_fine(tree):
    content = validate_content(tree.root)
    assert content.problems == [] and content.questions == []


def test_unknown_expected_unit_is_a_problem_on_its_line(tree):
    tree.write("questions.yaml", QUESTIONS.replace("[scene-one, story-one]", "[scene-one, no-such-unit]"))
    content = validate_content(tree.root)
    assert found(content) == [
        (tree.shown("questions.yaml"), 5, "q-one.expected_units", "unit 'no-such-unit' does not exist"),
    ]


def test_unknown_expected_unit_in_a_block_list_points_at_the_item(tree):
    text = QUESTIONS.replace("expected_units: [scene-one, story-one]", "expected_units:\n    - scene-one\n    - ghost")
    tree.write("questions.yaml", text)
    assert found(validate_content(tree.root)) == [
        (tree.shown("questions.yaml"), 7, "q-one.expected_units", "unit 'ghost' does not exist"),
    ]


def test_a_unit_that_fails_its_schema_still_counts_as_existing(tree):
    tree.write("questions.yaml", QUESTIONS)
    tree.write("rules/rule-one.md", (tree.root / "rules/rule-one.md").read_text().replace("severity: warning", "severity: loud"))
    tree.write("questions.yaml", QUESTIONS.replace("[scene-one, story-one]", "[rule-one]"))
    fields = [p.field for p in validate_content(tree.root).problems]
    assert fields == ["severity"]  # the rule's own problem, not an unknown unit on top


def test_duplicate_question_id_is_a_problem_at_the_second(tree):
    tree.write("questions.yaml", QUESTIONS + QUESTIONS.split("- id: q-two")[0].replace("q-one", "q-two"))
    content = validate_content(tree.root)
    assert found(content) == [
        (tree.shown("questions.yaml"), 15, "id", "duplicate question id 'q-two' (also at content/questions.yaml:6)"),
    ]
    assert [lq.question.id for lq in content.questions] == ["q-one", "q-two", "q-three"]


def test_label_and_expected_units_must_agree(tree):
    text = QUESTIONS.replace("expected_units: [scene-one, story-one]", "expected_units: []").replace(
        "expected_units: []\n- id: q-three", "expected_units: [scene-one]\n- id: q-three"
    )
    tree.write("questions.yaml", text)
    problems = found(validate_content(tree.root))
    assert problems == [
        (tree.shown("questions.yaml"), 5, "q-one.expected_units", "an answerable question lists the units that answer it"),
        (tree.shown("questions.yaml"), 10, "q-two.expected_units",
         "an unanswerable question has no expected units (or set answerable: true)"),
    ]


def test_schema_problems_point_at_their_lines(tree):
    text = QUESTIONS.replace("lang: zh", "lang: fr").replace("answerable: false\n  expected_units: []", "answerable: maybe")
    text += "- id: q-four\n  question: ''\n  lang: en\n  answerable: true\n  expected_units: [scene-one]\n  note: x\n"
    tree.write("questions.yaml", text)
    got = {(line, field) for _, line, field, _ in found(validate_content(tree.root))}
    assert got == {(8, "q-two.lang"), (9, "q-two.answerable"), (15, "q-four.question"), (19, "q-four.note")}


def test_questions_must_be_a_list(tree):
    tree.write("questions.yaml", "q-one: {question: x}\n")
    assert found(validate_content(tree.root)) == [(tree.shown("questions.yaml"), 1, "yaml", "expected a list of entries")]


# -- the sample content's own labelled set -----------------------------------------------------------


def test_the_sample_question_set_is_valid_balanced_and_covers_the_content(monkeypatch):
    monkeypatch.chdir(REPO_CONTENT.parent)
    content = validate_content(Path("content"))
    assert content.problems == []
    questions = [lq.question for lq in content.questions]
    counts = Counter((q.lang, q.answerable) for q in questions)
    assert counts[("en", True)] + counts[("zh", True)] >= 40
    assert counts[("en", False)] + counts[("zh", False)] >= 30
    for answerable in (True, False):  # about half in each language
        en, zh = counts[("en", answerable)], counts[("zh", answerable)]
        assert abs(en - zh) <= 0.1 * (en + zh), (answerable, en, zh)
    units = {lu.id: lu.unit for lu in content.units}
    expected = {u for q in questions for u in q.expected_units}
    stories = {u.story if u.kind == "scene" else u.id for uid in expected for u in [units[uid]] if u.kind in ("scene", "story")}
    assert stories == {uid for uid, u in units.items() if u.kind == "story"}  # all 8 stories
    assert {uid for uid, u in units.items() if u.kind == "document"} <= expected  # both documents
    assert sum(units[u].kind == "rule" for u in expected) >= 10
    assert len({q.question for q in questions}) == len(questions)
