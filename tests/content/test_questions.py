"""eval/questions.yaml: the labelled set eval and calibration run on, loaded and cross-checked."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from unitrag.content.labelled_question import LabelledQuestion
from unitrag.content.validate import GONE_UNIT_HINT, validate_content

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"

QUESTIONS = """\
- id: q-one
  question: "How much B12 do I need?"
  lang: en
  expected_units: [scene-one, story-one]
- id: q-two
  question: "明天会下雨吗？"
  lang: zh
  unanswerable: true
- id: q-three
  question: "I have chest pain"
  lang: en
  guard: red_flag
"""


def found(content) -> list[tuple[str, int, str, str]]:
    return [(p.path, p.line, p.field, p.message) for p in content.problems]


def test_questions_are_loaded_with_the_content(tree):
    tree.write("eval/questions.yaml", QUESTIONS)
    content = validate_content(tree.root)
    assert content.problems == []
    loaded = [lq.question for lq in content.questions]
    assert [q.id for q in loaded] == ["q-one", "q-two", "q-three"]
    assert loaded[0] == LabelledQuestion(
        id="q-one", question="How much B12 do I need?", lang="en", expected_units=["scene-one", "story-one"]
    )
    assert [(q.answerable, q.unanswerable, q.guard) for q in loaded] == [
        (True, False, None), (False, True, None), (False, False, "red_flag")]
    assert content.questions[1].line_of("id") == 5


def test_a_root_questions_yaml_still_loads(tree):
    tree.write("questions.yaml", QUESTIONS)
    assert [lq.question.id for lq in validate_content(tree.root).questions] == ["q-one", "q-two", "q-three"]


def test_a_content_tree_without_questions_is_fine(tree):
    content = validate_content(tree.root)
    assert content.problems == [] and content.questions == []


def test_unknown_expected_unit_is_a_problem_on_its_line(tree):
    tree.write("eval/questions.yaml", QUESTIONS.replace("[scene-one, story-one]", "[scene-one, no-such-unit]"))
    content = validate_content(tree.root)
    assert found(content) == [
        (tree.shown("eval/questions.yaml"), 4, "q-one.expected_units", "unit 'no-such-unit' does not exist" + GONE_UNIT_HINT),
    ]


def test_a_question_in_the_other_language_than_its_lang_is_a_problem_on_the_lang_line(tree):
    """A new team's English question marked `lang: zh` passed, and eval scored it as a cross-language one."""
    mislabelled = QUESTIONS.replace('question: "How much B12 do I need?"\n  lang: en', 'question: "How much B12 do I need?"\n  lang: zh')
    mislabelled = mislabelled.replace('question: "明天会下雨吗？"\n  lang: zh', 'question: "明天会下雨吗？"\n  lang: en')
    tree.write("eval/questions.yaml", mislabelled + '- id: q-four\n  question: "pregnant 16周 有bleeding"\n  lang: zh\n'
               '  guard: red_flag\n- id: q-five\n  question: "123"\n  lang: zh\n  unanswerable: true\n')
    problems = [(line, field, message.split(":")[0]) for _, line, field, message in found(validate_content(tree.root))]
    assert problems == [(3, "q-one.lang", "lang is 'zh' but the question is written in English"),
                        (7, "q-two.lang", "lang is 'en' but the question is written in Chinese")]  # mixed, digits: fine


def test_unknown_expected_unit_in_a_block_list_points_at_the_item(tree):
    text = QUESTIONS.replace("expected_units: [scene-one, story-one]", "expected_units:\n    - scene-one\n    - ghost")
    tree.write("eval/questions.yaml", text)
    assert found(validate_content(tree.root)) == [
        (tree.shown("eval/questions.yaml"), 6, "q-one.expected_units", "unit 'ghost' does not exist" + GONE_UNIT_HINT),
    ]


def test_a_unit_that_fails_its_schema_still_counts_as_existing(tree):
    tree.write("eval/questions.yaml", QUESTIONS)
    tree.write("rules/rule-one.md", (tree.root / "rules/rule-one.md").read_text().replace("severity: warning", "severity: loud"))
    tree.write("eval/questions.yaml", QUESTIONS.replace("[scene-one, story-one]", "[rule-one]"))
    fields = [p.field for p in validate_content(tree.root).problems]
    assert fields == ["severity"]  # the rule's own problem, not an unknown unit on top


def test_a_unit_file_that_cannot_be_read_is_not_also_a_missing_unit_of_every_question(tree):
    """A new team's audit: one unclosed '[' in a unit's frontmatter was reported, then again as "unit ... does not exist"
    at every question naming it. Its id is read from its ``id:`` line (a scene's file name is not its id), whatever
    broke: bad YAML, a wrong kind, UTF-16; a unit truly missing is still reported beside it."""
    scene = tree.root / "scenes/story-one/01-scene-one.md"
    good = scene.read_text()
    tree.write("eval/questions.yaml", QUESTIONS.replace("[scene-one, story-one]", "[scene-one]"))
    for broken in (good.replace("id: scene-one", "id: scene-one\ntopics: [b12"),
                   good.replace("kind: scene", "kind: artcle"),
                   good.encode("utf-16")):
        tree.write("scenes/story-one/01-scene-one.md", broken)
        problems = validate_content(tree.root).problems
        assert problems and all(p.path.endswith("01-scene-one.md") for p in problems), problems
    tree.write("eval/questions.yaml", QUESTIONS.replace("[scene-one, story-one]", "[scene-one, ghost]"))
    fields = [(p.field, p.message) for p in validate_content(tree.root).problems if p.path.endswith("questions.yaml")]
    assert fields == [("q-one.expected_units", "unit 'ghost' does not exist" + GONE_UNIT_HINT)]


def test_duplicate_question_id_is_a_problem_at_the_second(tree):
    tree.write("eval/questions.yaml", QUESTIONS + QUESTIONS.split("- id: q-two")[0].replace("q-one", "q-two"))
    content = validate_content(tree.root)
    assert found(content) == [
        (tree.shown("eval/questions.yaml"), 13, "id", "duplicate question id 'q-two' (also at content/eval/questions.yaml:5)"),
    ]
    assert [lq.question.id for lq in content.questions] == ["q-one", "q-two", "q-three"]


def test_exactly_one_label_per_question(tree):
    text = QUESTIONS.replace("  unanswerable: true\n", "").replace("  guard: red_flag\n", "  guard: red_flag\n  unanswerable: true\n")
    tree.write("eval/questions.yaml", text)
    assert found(validate_content(tree.root)) == [
        (tree.shown("eval/questions.yaml"), 5, "q-two", "give exactly one of expected_units, unanswerable: true, guard (found none of them)"),
        (tree.shown("eval/questions.yaml"), 8, "q-three",
         "give exactly one of expected_units, unanswerable: true, guard (found unanswerable: true and guard)"),
    ]


def test_schema_problems_point_at_their_lines(tree):
    text = QUESTIONS.replace("lang: zh", "lang: fr").replace("unanswerable: true", "unanswerable: maybe")
    text += "- id: q-four\n  question: ''\n  lang: en\n  expected_units: [scene-one]\n  guard: stop\n  note: x\n"
    tree.write("eval/questions.yaml", text)
    got = {(line, field) for _, line, field, _ in found(validate_content(tree.root))}
    assert got == {(7, "q-two.lang"), (8, "q-two.unanswerable"), (14, "q-four.question"), (17, "q-four.guard"), (18, "q-four.note")}


def test_a_clinician_only_unit_needs_a_clinician_asking(tree):
    tree.write("rules/rule-one.md", (tree.root / "rules/rule-one.md").read_text().replace("lang: en", "lang: en\naccess: clinician", 1))
    tree.write("eval/questions.yaml", QUESTIONS.replace("[scene-one, story-one]", "[rule-one]"))
    assert found(validate_content(tree.root)) == [(
        tree.shown("eval/questions.yaml"), 4, "q-one.expected_units",
        "unit 'rule-one' is clinician-only: add `user: {roles: [clinician]}` to this question")]
    tree.write("eval/questions.yaml", QUESTIONS.replace("[scene-one, story-one]", "[rule-one]\n  user: {roles: [clinician]}"))
    assert found(validate_content(tree.root)) == []


def test_a_scene_that_takes_its_storys_clinician_access_needs_a_clinician_asking(tree):
    story = (tree.root / "stories/story-one.md").read_text()
    tree.write("stories/story-one.md", story.replace("lang: en", "lang: en\naccess: clinician", 1))
    tree.write("eval/questions.yaml", QUESTIONS.replace("[scene-one, story-one]", "[scene-one]"))
    assert found(validate_content(tree.root)) == [(
        tree.shown("eval/questions.yaml"), 4, "q-one.expected_units",
        "unit 'scene-one' is clinician-only: add `user: {roles: [clinician]}` to this question")]


def test_one_public_expected_unit_answers_an_anonymous_question_when_another_is_restricted(tree):
    # any one expected unit answers a question: restricting one of two must not block the build that restricts it
    tree.write("rules/rule-one.md", (tree.root / "rules/rule-one.md").read_text().replace("lang: en", "lang: en\naccess: clinician", 1))
    tree.write("eval/questions.yaml", QUESTIONS.replace("[scene-one, story-one]", "[rule-one, story-one]"))
    assert found(validate_content(tree.root)) == []
    # a unit that does not exist is no visible one: the restricted unit is still named
    tree.write("eval/questions.yaml", QUESTIONS.replace("[scene-one, story-one]", "[rule-one, no-such-unit]"))
    assert found(validate_content(tree.root)) == [
        (tree.shown("eval/questions.yaml"), 4, "q-one.expected_units", "unit 'no-such-unit' does not exist" + GONE_UNIT_HINT),
        (tree.shown("eval/questions.yaml"), 4, "q-one.expected_units",
         "unit 'rule-one' is clinician-only (and no other expected unit is visible to this question): "
         "add `user: {roles: [clinician]}` to this question"),
    ]


def test_a_question_whose_every_expected_unit_is_restricted_names_each(tree):
    story = (tree.root / "stories/story-one.md").read_text()
    tree.write("stories/story-one.md", story.replace("lang: en", "lang: en\naccess: clinician", 1))  # scene-one inherits it
    tree.write("eval/questions.yaml", QUESTIONS)
    assert [(line, message.split(":")[0]) for _, line, _, message in found(validate_content(tree.root))] == [
        (4, "unit 'scene-one' is clinician-only (and no other expected unit is visible to this question)"),
        (4, "unit 'story-one' is clinician-only (and no other expected unit is visible to this question)"),
    ]


def test_a_labelled_question_longer_than_ask_accepts_is_a_problem_at_its_line(tree):
    tree.write("eval/questions.yaml", QUESTIONS.replace('question: "How much', 'question: "' + "x" * 2_100 + " How much", 1))
    assert found(validate_content(tree.root, max_question_chars=2_000)) == [(
        tree.shown("eval/questions.yaml"), 2, "q-one.question",
        "2,124 characters, over the 2,000 that ask accepts (max_question_chars): shorten it")]
    assert found(validate_content(tree.root)) == []  # no limit given: none checked


def test_user_context_ids_are_checked(tree):
    user = "  user:\n    current_topic: iron\n    triggered_rules: [rule-one, scene-one]\n    recent_scenes: [scene-one]\n"
    tree.write("eval/questions.yaml", QUESTIONS.replace("  expected_units: [scene-one, story-one]\n",
                                                        "  expected_units: [scene-one, story-one]\n" + user))
    assert found(validate_content(tree.root)) == [
        (tree.shown("eval/questions.yaml"), 6, "q-one.user.current_topic", "unknown topic 'iron' (not in topics.yaml)"),
        (tree.shown("eval/questions.yaml"), 7, "q-one.user.triggered_rules", "'scene-one' is not a rule id"),
    ]


def test_questions_must_be_a_list(tree):
    tree.write("eval/questions.yaml", "q-one: {question: x}\n")
    assert found(validate_content(tree.root)) == [(tree.shown("eval/questions.yaml"), 1, "yaml", "expected a list of entries")]


def test_answer_facts_are_lists_of_spellings_and_a_bare_string_is_one_spelling(tree):
    facts = '  answer_facts:\n    - ["1,000 mg", "1000毫克"]\n    - with food\n'
    tree.write("eval/questions.yaml", QUESTIONS.replace("[scene-one, story-one]\n", "[scene-one, story-one]\n" + facts, 1))
    content = validate_content(tree.root)
    assert content.problems == []
    assert content.questions[0].question.answer_facts == [["1,000 mg", "1000毫克"], ["with food"]]
    assert content.questions[1].question.answer_facts == []


def test_bad_answer_facts_are_problems_on_their_lines(tree):
    text = QUESTIONS.replace("[scene-one, story-one]\n", "[scene-one, story-one]\n  answer_facts:\n    - []\n    - [' , ']\n    - 3\n", 1)
    text = text.replace("  unanswerable: true\n", "  unanswerable: true\n  answer_facts: [[\"8 hours\"]]\n")
    tree.write("eval/questions.yaml", text)
    got = [(line, field, message) for _, line, field, message in found(validate_content(tree.root))]
    assert [(line, field) for line, field, _ in got] == [
        (6, "q-one.answer_facts.0"), (7, "q-one.answer_facts.1.0"), (8, "q-one.answer_facts.2"), (13, "q-two.answer_facts")]
    assert "at least 1 item" in got[0][2]
    assert got[1][2] == "spelling ',' has no letter or digit: it would be found in any answer"
    assert got[3][2].startswith("answer_facts need expected_units: an unanswerable or guard question has no answer")


# -- the sample content's own labelled set -----------------------------------------------------------


def test_the_sample_question_set_is_valid_balanced_and_covers_the_content(monkeypatch):
    monkeypatch.chdir(REPO_CONTENT.parent)
    content = validate_content(Path("content"))
    assert content.problems == []
    # the dev set; held-out sets (eval/*_test.yaml) have their own composition
    questions = [lq.question for lq in content.questions if Path(lq.path).name == "questions.yaml"]
    label = {q.id: "answerable" if q.answerable else "unanswerable" if q.unanswerable else "guard" for q in questions}
    counts = Counter((q.lang, label[q.id]) for q in questions)
    assert len(questions) >= 120
    assert counts[("en", "answerable")] + counts[("zh", "answerable")] >= 60
    assert counts[("en", "unanswerable")] + counts[("zh", "unanswerable")] >= 25
    assert counts[("en", "guard")] + counts[("zh", "guard")] >= 15
    for kind in ("answerable", "unanswerable", "guard"):  # about half in each language
        en, zh = counts[("en", kind)], counts[("zh", kind)]
        assert abs(en - zh) <= 0.2 * (en + zh), (kind, en, zh)
    assert {q.guard for q in questions} == {None, "red_flag", "out_of_scope"}
    assert any(q.user and q.user.roles for q in questions) and any(q.user and q.user.current_topic for q in questions)
    units = {lu.id: lu.unit for lu in content.units}
    expected = {u for q in questions for u in q.expected_units}
    stories = {u.story if u.kind == "scene" else u.id for uid in expected for u in [units[uid]] if u.kind in ("scene", "story")}
    assert stories == {uid for uid, u in units.items() if u.kind == "story"}  # all 8 stories
    assert {uid for uid, u in units.items() if u.kind == "document"} <= expected  # both documents
    assert sum(units[u].kind == "rule" for u in expected) >= 10
    assert len({q.question for q in questions}) == len(questions)


def test_an_unknown_question_field_names_the_one_it_is_near_and_the_questions_doc(tree):
    """A new team's audit: `expected_unit:` was "unknown field (… the fields of this kind)", pointing at the units' doc."""
    tree.write("eval/questions.yaml", QUESTIONS.replace("expected_units:", "expected_unit:"))
    messages = [p.message for p in validate_content(tree.root).problems if p.field.endswith("expected_unit")]
    assert messages == ["unknown field: did you mean 'expected_units'? (the fields are in docs/evaluation.md)"]


def test_a_labelled_questions_facts_written_as_a_unit_questions_names_answer_facts(tree):
    """A new team's campground: `facts:` (a unit question's word) on a labelled question, whose field is `answer_facts`."""
    tree.write("eval/questions.yaml", QUESTIONS.replace("expected_units:", "facts: [x]\n  expected_units:", 1))
    messages = [p.message for p in validate_content(tree.root).problems if p.field.endswith(".facts")]
    assert messages == ["unknown field: did you mean 'answer_facts'? (the fields are in docs/evaluation.md)"]


@pytest.mark.parametrize("access, message", [
    ("Clinician", "unknown access level 'Clinician': write clinician"),
    ("clinican", "unknown access level 'clinican'"),
])
def test_a_wrong_access_is_the_units_problem_alone_not_a_restricted_unit_at_its_questions(tree, access, message):
    """A new team's audit: `access: Staff` gave the access pattern's regex, then two questions told to add a role
    ("unit … is staff-only"): the unit is invalid, not restricted, and following that advice would be wrong."""
    tree.write("rules/rule-one.md", (tree.root / "rules/rule-one.md").read_text().replace("lang: en", f"lang: en\naccess: {access}", 1))
    tree.write("eval/questions.yaml", QUESTIONS.replace("[scene-one, story-one]", "[rule-one]"))
    problems = validate_content(tree.root).problems
    assert [p.field for p in problems] == ["access"] and message in problems[0].message, problems
    assert "^(public|" not in problems[0].message


def test_answer_facts_and_facts_name_each_other_when_written_in_the_others_place():
    from unitrag.content.errors import unknown_field

    assert "did you mean 'answer_facts'?" in unknown_field("facts", {"question", "answer_facts", "expected_units"}, "d")
    assert "did you mean 'facts'?" in unknown_field("answer_facts", {"q", "facts"}, "d")
    assert "did you mean" not in unknown_field("units", {"question", "answer_facts", "expected_units", "restricted_units"}, "d")
