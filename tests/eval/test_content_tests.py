"""Content tests: which unit questions are tests, who asks them, and how a failing one is reported and gated."""

from __future__ import annotations

from pathlib import Path

from unitrag.content.validate import validate_content
from unitrag.eval.content_tests import GATE_HINT, TOP, ContentTestReport, content_tests, first_units
from unitrag.rag.types import Source

CONTENT = Path(__file__).resolve().parents[2] / "content"


def test_the_samples_unit_questions_with_facts_are_its_content_tests():
    tests = content_tests(validate_content(CONTENT, 200_000))
    assert 6 <= len(tests) <= 12
    by_unit = {t.unit_id: t for t in tests}
    treatment = by_unit["en-b12-treatment"]  # a clinician-only scene: asked as a clinician
    assert treatment.question.user is not None and treatment.question.user.roles == ["clinician"]
    assert by_unit["en-b12-absorption"].question.user is None
    for t in tests:
        assert t.question.expected_units == [t.unit_id] and t.question.answer_facts
        written = (Path(t.path) if Path(t.path).is_absolute() else Path.cwd() / t.path).read_text(encoding="utf-8")
        assert t.question.question in written.split("\n")[t.line - 1]  # the line of its `- q:`


def _row(found: bool = True, missing: dict[str, list] | None = None, **extra: object) -> dict:
    missing = missing or {"extractive": []}
    return {"id": "u-q1", "unit": "u", "path": "content/u.md", "line": 9, "question": "How much?", "built": True,
            "found": found, "top": ["u"] if found else ["other"], "guard": None, "not_found": False,
            "answer_facts": {mode: {"facts": 2, "stated": 2 - len(m), "missing": m, "answer": "..."}
                             for mode, m in missing.items()}, **extra}


def test_a_passing_report_has_no_failures_and_passes_the_strictest_gate():
    report = ContentTestReport({}, [_row(), _row()])
    assert report.failures() == [] and report.gate(1.0) == []
    assert report.modes["extractive"] == {"questions": 2, "passed": 2, "pass_rate": 1.0, "unit_found": 2, "fact_recall": 1.0}


def test_a_missing_fact_names_the_file_line_question_and_spellings():
    report = ContentTestReport({}, [_row(missing={"extractive": [["1,000 mg", "1000毫克"], ["with food"]]}), _row()])
    assert report.failures() == [
        "content/u.md:9: question 'How much?' — missing facts: \"1,000 mg\" / \"1000毫克\"; \"with food\" "
        "(the answer: \"...\")",
    ]
    assert report.gate(None) == [] and report.gate(0.5) == []
    assert report.gate(1.0) == [("unit questions (extractive): 1/2 pass their content test (0.5000), "
                                 f"below --min-answer-facts 1.0. {GATE_HINT}")]
    assert "Usual fixes: write the fact in the unit" in GATE_HINT  # what to do, not only the figure
    assert report.to_dict()["failures"] == report.failures(answers=False)  # --json has the answers in "questions"
    assert report.to_dict()["failures"] == [
        "content/u.md:9: question 'How much?' — missing facts: \"1,000 mg\" / \"1000毫克\"; \"with food\""]


def test_a_missing_fact_shows_the_answer_on_one_line_trimmed():
    said = "The inverter shuts down\nwhen the grid fails, " + "and waits for it to come back. " * 20
    row = _row(missing={"extractive": [["shut down"]]})
    row["answer_facts"]["extractive"]["answer"] = said
    (line,) = ContentTestReport({}, [row]).failures()
    assert line.startswith("content/u.md:9: question 'How much?' — missing facts: \"shut down\" "
                           "(the answer: \"The inverter shuts down when the grid fails, and waits")
    assert "\n" not in line and line.endswith("…\")") and len(line) < 260
    markdown = ContentTestReport({}, [row]).markdown()
    assert "- content/u.md:9: question 'How much?' — missing facts: \"shut down\" (the answer: \"The inverter shuts down" in markdown


def test_a_unit_not_among_the_sources_fails_even_when_the_facts_are_stated():
    report = ContentTestReport({}, [_row(found=False)])
    assert report.failures() == [f"content/u.md:9: question 'How much?' — unit u is not among the first {TOP} sources (other)"]
    assert report.modes["extractive"]["passed"] == 0


def test_each_mode_is_named_when_there_are_two():
    report = ContentTestReport({}, [_row(missing={"extractive": [["2 mg"]], "llm": []}, not_found=False)])
    assert report.failures() == ["content/u.md:9: question 'How much?' — missing facts (extractive): \"2 mg\" "
                                 "(the answer: \"...\")"]
    assert [line.split(":")[0] for line in report.gate(1.0)] == ["unit questions (extractive)"]


def test_guard_not_found_and_a_stale_artifact_are_reasons():
    stopped = _row(guard="red-flag-x", missing={"extractive": [["2 mg"]]}, found=False, top=[])
    stale = _row(built=False, found=False, top=[])
    reasons = ContentTestReport({}, [stopped, stale]).failures()
    assert "stopped by the guard (rule red-flag-x)" in reasons[0] and "(none)" in reasons[0]
    assert "the answer:" not in reasons[0]  # a guard's fixed answer is no reason a fact is missing
    assert "is not in the knowledge base (run `unitrag build`)" in reasons[1]


def test_no_content_test_fails_a_gate_that_asks_for_them():
    assert ContentTestReport({}, []).gate(1.0) and ContentTestReport({}, []).gate(None) == []


def test_first_units_count_a_scene_for_its_story_and_stop_at_top():
    def source(unit: str, story: str | None = None) -> Source:
        return Source(f"{unit}#0", unit, "scene" if story else "story", "", "", [], [], "public", "en", story_id=story)

    sources = [source("s1", "story"), source("a"), source("b"), source("c"), source("d")]
    assert first_units(sources, 5) == ["s1", "story", "a", "b", "c"]
