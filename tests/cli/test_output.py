"""What `unitrag ask` prints for people: numbered markers, a numbered reference list, the units
the answer came from; `--json` keeps the raw answer."""

from __future__ import annotations

import io
import json
from unittest.mock import MagicMock

import pytest
from rich.console import Console
from typer.testing import CliRunner

from unitrag.cli import app, output, query_cmds
from unitrag.rag.knowledge_base import Answer, KnowledgeBase
from unitrag.rag.types import FaithfulnessReport, ResolvedCitation, Source

RAW = ('From the knowledge base:\n'
       '1. Testing for B12 deficiency: Serum B12 is the usual first test.<Cite id="devalia-2014"/>\n'
       '2. Treatment: Injections restore stores quickly.<Cite id="nice-ng239"/><Cite id="devalia-2014"/>')
CITATIONS = [
    ResolvedCitation("devalia-2014", "Guidelines for the diagnosis and treatment of cobalamin deficiency", ["Devalia V"], 2014,
                     doi="10.1111/bjh.12959"),
    ResolvedCitation("nice-ng239", "Vitamin B12 deficiency in over 16s", ["NICE"], 2024, url="https://www.nice.org.uk/ng239"),
]


def source(unit: str, title: str, citation_ids: list[str]) -> Source:
    return Source(f"{unit}#p1", unit, "scene", title, "text", [], citation_ids, "public", "en")


def answer() -> Answer:
    sources = [source("en-b12-testing", "Testing for B12 deficiency", ["devalia-2014"]),
               source("en-b12-foods", "Foods with B12", ["usda-2019"]),  # retrieved, never cited
               source("en-b12-treatment", "Treatment", ["nice-ng239", "devalia-2014"]),
               source("en-b12-testing", "Testing for B12 deficiency", ["devalia-2014"])]
    return Answer("How is B12 deficiency tested?", "en", RAW, False, None, sources, CITATIONS,
                  FaithfulnessReport(["devalia-2014", "nice-ng239"], [], 1.0, False), extractive=True,
                  llm_error=None)


@pytest.fixture
def printed(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    buffer = io.StringIO()
    monkeypatch.setattr(output, "out", Console(file=buffer, width=200, color_system=None))
    return buffer


def test_the_answer_has_numbered_markers_and_a_matching_reference_list(printed: io.StringIO) -> None:
    output.print_answer(answer())
    lines = printed.getvalue().splitlines()
    assert "<Cite" not in printed.getvalue()
    assert lines[:3] == [
        "From the knowledge base:",
        "1. Testing for B12 deficiency: Serum B12 is the usual first test.[1]",
        "2. Treatment: Injections restore stores quickly.[2][1]",
    ]
    assert "[1] Guidelines for the diagnosis and treatment of cobalamin deficiency (2014) https://doi.org/10.1111/bjh.12959" in lines
    assert "[2] Vitamin B12 deficiency in over 16s (2024) https://www.nice.org.uk/ng239" in lines
    assert lines.index("[1] Guidelines for the diagnosis and treatment of cobalamin deficiency (2014) "
                       "https://doi.org/10.1111/bjh.12959") < lines.index("[2] Vitamin B12 deficiency in over 16s (2024) "
                                                                          "https://www.nice.org.uk/ng239")


def test_the_units_the_answer_came_from_are_listed_once_each(printed: io.StringIO) -> None:
    output.print_answer(answer())
    text = printed.getvalue()
    assert "en-b12-testing" in text and "en-b12-treatment" in text
    assert text.count("en-b12-testing") == 1


def test_only_cited_units_are_listed_as_answered_from_and_the_rest_as_also_retrieved(printed: io.StringIO) -> None:
    output.print_answer(answer())
    lines = printed.getvalue().splitlines()
    start = lines.index("Answered from these units:")
    assert lines[start:] == [
        "Answered from these units:",
        "  en-b12-testing: Testing for B12 deficiency",
        "  en-b12-treatment: Treatment",
        "",
        "Also retrieved (not cited):",
        "  en-b12-foods: Foods with B12",
    ]


def test_a_chinese_answer_gets_chinese_headings(printed: io.StringIO) -> None:
    chinese = answer()
    chinese.lang = "zh"
    output.print_answer(chinese)
    text = printed.getvalue()
    assert "回答依据的内容单元：" in text and "也检索到（未引用）：" in text
    assert "Answered from" not in text and "Also retrieved" not in text


def test_an_answer_citing_nothing_lists_no_unit_as_answered_from(printed: io.StringIO) -> None:
    uncited = answer()
    uncited.citations = []
    output.print_answer(uncited)
    text = printed.getvalue()
    assert "Answered from" not in text and "Retrieved (the answer cites none of them):" in text


def test_markup_in_an_answer_is_printed_as_written(printed: io.StringIO) -> None:
    raw = answer()
    raw.answer = "Use [bold]this[/bold] [red] literally."
    output.print_answer(raw)
    assert printed.getvalue().startswith("Use [bold]this[/bold] [red] literally.")


@pytest.mark.parametrize("as_json", [False, True])
def test_unitrag_ask_prints_numbers_and_json_keeps_the_raw_tags(monkeypatch: pytest.MonkeyPatch, as_json: bool) -> None:
    kb = MagicMock(spec=KnowledgeBase)  # whatever else the command asks of it, only the answer matters here
    kb.ask.return_value = answer()
    monkeypatch.setattr(query_cmds, "_open", lambda *a, **k: kb)
    monkeypatch.setattr(output, "out", Console(width=200, color_system=None))
    result = CliRunner().invoke(app, ["ask", "How is B12 deficiency tested?", *(["--json"] if as_json else [])])
    assert result.exit_code == 0, result.output
    if as_json:
        printed = json.loads(result.output)
        assert printed["answer"] == RAW and len(printed["sources"]) == 4  # every key kept, "cited_units" added
        assert printed["cited_units"] == ["en-b12-testing", "en-b12-treatment"]
    else:
        assert "<Cite" not in result.output and "[2][1]" in result.output and "[1] Guidelines" in result.output


@pytest.mark.parametrize(("commit", "said"), [
    (None, "no git commit recorded (the content was not in a committed git checkout when built)"),
    ("534bec5", "commit 534bec5"),
])
def test_inspect_says_which_commit_or_that_none_was_recorded(printed: io.StringIO, commit, said) -> None:
    manifest = {"schema_version": 7, "embedder": {"id": "e5", "dim": 384}, "chunker": {"version": 3},
                "built_at": "2026-12-03T22:00:00+00:00", "git_commit": commit, "counts": {"chunks": 4}}
    output.print_summary("dist/kb.duckdb", "0.1 MB", manifest, [])
    assert printed.getvalue().splitlines()[1].endswith(f"built 2026-12-03T22:00:00+00:00, {said}")
    assert "None" not in printed.getvalue()


def test_inspect_says_the_name_the_knowledge_base_was_built_with(printed: io.StringIO) -> None:
    manifest = {"schema_version": 8, "embedder": {"id": "e5", "dim": 384}, "chunker": {"version": 1},
                "identity": {"name": "Bike care", "description": "Fixing and riding bicycles."}, "counts": {"chunks": 4}}
    output.print_summary("dist/kb.duckdb", "0.1 MB", manifest, [])
    assert printed.getvalue().splitlines()[2] == 'knowledge base "Bike care": Fixing and riding bicycles.'


def test_a_caution_note_is_printed_after_the_answer_and_set_apart(printed: io.StringIO) -> None:
    from dataclasses import replace

    from unitrag.rag.types import GuardOutcome

    note = "If you ever think about harming yourself, call a crisis line."
    output.print_answer(replace(answer(), caution=GuardOutcome("caution", "red-flag-suicide-self-harm", note)))
    text = printed.getvalue()
    assert f"Safety note: {note}" in text
    assert text.index("Safety note:") > text.index("2. Treatment") and "Answered from these units:" in text
    output.print_answer(answer())
    assert printed.getvalue().count("Safety note:") == 1  # none without a caution


def test_a_corrected_question_is_shown_as_read_before_the_answer(printed: io.StringIO) -> None:
    read = answer()
    read.corrected = "is cholesterol in [eggs] bad"
    output.print_answer(read)
    assert printed.getvalue().startswith("Read as: is cholesterol in [eggs] bad\n")
    printed.seek(0), printed.truncate()
    output.print_answer(answer())
    assert "Read as" not in printed.getvalue()


def test_the_build_names_the_pattern_that_stops_own_questions_and_near_misses(monkeypatch: pytest.MonkeyPatch) -> None:
    buffer = io.StringIO()
    monkeypatch.setattr(output, "err", Console(file=buffer, width=400, color_system=None))
    stopped = [{"unit": f"en-u{i}", "text": f"question {i}?", "rule": "oos-evil", "by": "pattern", "pattern": ".*"}
               for i in range(3)]
    stopped.append({"unit": "en-u9", "text": "scored?", "rule": "oos-evil", "by": "score 0.91"})
    output._print_guard_stops_own(stopped)
    output._print_near_misses_stopped([{"rule": "red-flag-shock", "text": "How does an RCD stop you being electrocuted?",
                                        "pattern": "electrocuted"}])
    text = buffer.getvalue()
    assert "oos-evil: pattern '.*' stops 3 of them, e.g. en-u0: 'question 0?'" in text
    assert "question 1?" not in text  # one example a pattern
    assert "en-u9: 'scored?' → oos-evil (score 0.91)" in text
    assert "red-flag-shock: pattern 'electrocuted' stops the near-miss 'How does an RCD stop you being electrocuted?'" in text


def test_a_guard_pattern_is_shown_as_written_to_paste_back_into_yaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not Python's repr: ``\\b`` is one backslash, as in guard.yaml; what cannot be seen is escaped, on one line."""
    buffer = io.StringIO()
    monkeypatch.setattr(output, "err", Console(file=buffer, width=400, color_system=None))
    pattern = r"\b(someone|somebody)\s+(collapsed|fainted)\b" + "\n\u200b…"
    output._print_guard_stops_own([{"unit": "en-u1", "text": "What if someone collapsed?", "rule": "red-flag-collapse",
                                    "by": "pattern", "pattern": pattern}])
    output._print_near_misses_stopped([{"rule": "red-flag-collapse", "text": "Has someone fainted before?",
                                        "pattern": pattern}])
    lines = buffer.getvalue().splitlines()
    shown = r"pattern '\b(someone|somebody)\s+(collapsed|fainted)\b\n\u200b…' stops"
    assert shown in lines[1] and shown in lines[3] and len(lines) == 4
    assert "\\\\" not in buffer.getvalue()


def test_a_restricted_units_question_stopped_by_a_rule_points_at_the_exemption(monkeypatch: pytest.MonkeyPatch) -> None:
    buffer = io.StringIO()
    monkeypatch.setattr(output, "err", Console(file=buffer, width=400, color_system=None))
    output._print_guard_stops_own([
        {"unit": "zh-staff-gas", "text": "租客说有煤气味，客服怎么做？", "rule": "red-flag-gas", "by": "pattern", "pattern": "煤气味",
         "restricted": True},
        {"unit": "en-public", "text": "Gas smell?", "rule": "red-flag-gas", "by": "pattern", "pattern": "gas smell"}])
    lines = buffer.getvalue().splitlines()
    staff = next(line for line in lines if "zh-staff-gas" in line)
    public = next(line for line in lines if "en-public" in line)
    assert "exempt_restricted_role: true" in staff and "exempt_restricted_role" not in public
