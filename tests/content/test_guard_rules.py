"""Guard rules' patterns: matched as before, each search time-bounded, and a catastrophic one refused by validation."""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path

import pytest

from unitrag.content.guard_rules import (
    PATTERN_TIMEOUT_S, QUESTION_BUDGET_S, SPENT_TIMEOUT_S, compile_pattern, compile_rule, first_match, pattern_problem,
)
from unitrag.content.problems import Problem
from unitrag.content.registry import load_guard_rules
from unitrag.content.validate import validate_content

#: Exponential in ``regex`` (and in ``re``): 2^36 tries on the question below, minutes unbounded.
OVERLAPPING = "^(a|a)+$"
#: Nested quantifiers: exponential in ``re``, quadratic in ``regex``.
NESTED = r"^(\w+\s?)+$"
ATTACK = "a" * 36 + "b recycling"


def rule(*patterns: str, rule_id: str = "r", rule_type: str = "out_of_scope") -> dict:
    return {"id": rule_id, "type": rule_type, "patterns_en": list(patterns), "response_en": "No."}


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("unitrag.content.guard_rules._warned", set())


def test_an_ordinary_pattern_matches_as_re_does() -> None:
    compiled = compile_rule(rule(r"\b(recycl\w*|landfill)\b", "胸痛"))
    for text in ("how do i recycle batteries", "RECYCLING bins", "landfill", "胸痛", "胸痛了", "compost"):
        expected = any(re.search(p, text, re.IGNORECASE) for p in (r"\b(recycl\w*|landfill)\b", "胸痛"))
        assert compiled.matches(text) is expected, text


def test_a_pattern_is_folded_to_simplified_han_as_before() -> None:
    assert compile_rule(rule("電池")).matches("电池冒烟")


def test_a_catastrophic_pattern_at_runtime_returns_in_time_as_no_match_and_warns_once(caplog) -> None:
    compiled = compile_rule(rule(OVERLAPPING, rule_id="oos-waste"))
    caplog.set_level(logging.WARNING, logger="unitrag.content.guard_rules")
    for _ in range(3):
        started = time.perf_counter()
        assert not compiled.matches(ATTACK)
        assert time.perf_counter() - started < 1.0
    [record] = caplog.records
    assert "oos-waste" in record.getMessage() and OVERLAPPING in record.getMessage()


def test_the_rules_after_a_catastrophic_pattern_still_match() -> None:
    rules = [compile_rule(rule(OVERLAPPING, rule_id="slow")), compile_rule(rule(r"\brecycling\b", rule_id="fine"))]
    started = time.perf_counter()
    found = first_match(rules, ATTACK, "out_of_scope")
    assert time.perf_counter() - started < 1.0
    assert found is not None and found.id == "fine"


def test_many_catastrophic_patterns_cost_a_question_a_bounded_time() -> None:
    rules = [compile_rule(rule(OVERLAPPING, rule_id=f"slow-{i}")) for i in range(40)]
    rules.append(compile_rule(rule("recycling", rule_id="last")))
    started = time.perf_counter()
    found = first_match(rules, ATTACK, "out_of_scope")
    bound = QUESTION_BUDGET_S + PATTERN_TIMEOUT_S + 41 * SPENT_TIMEOUT_S
    assert time.perf_counter() - started < bound + 0.5
    assert found is not None and found.id == "last"


@pytest.mark.parametrize("pattern", [OVERLAPPING, NESTED, "(x+x+)+y", r"(\s*)*$"])
def test_a_catastrophic_pattern_is_a_validation_problem(pattern: str) -> None:
    started = time.perf_counter()
    message = pattern_problem(pattern)
    assert time.perf_counter() - started < 1.0
    assert message is not None and pattern in message and "nested quantifiers" in message


@pytest.mark.parametrize("pattern", [
    r"\bchest (pain|pressure)\b", r"(\w+ ){0,3}pain", "^(?=[\\s\\S]*\\bchest\\b)(?=[\\s\\S]*breath)", "胸[^，。]{0,6}痛",
])
def test_an_ordinary_pattern_is_no_validation_problem(pattern: str) -> None:
    assert pattern_problem(pattern, ["my chest hurts and I can't catch my breath"]) is None


def test_a_pattern_re_refuses_is_still_a_bad_regular_expression() -> None:
    assert pattern_problem(r"\p{Han}+").startswith("bad regular expression: ")  # regex would take it; re does not
    with pytest.raises(re.error):
        compile_pattern("(unclosed")


def test_validation_names_the_rule_and_the_pattern_on_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "guard.yaml").write_text(
        "- id: oos-waste\n"                       # 1
        "  type: out_of_scope\n"                  # 2
        "  patterns:\n"                           # 3
        "    en:\n"                               # 4
        "      - 'recycling'\n"                   # 5
        "      - '^(a|a)+$'\n"                    # 6
        "    zh: ['^(\\w+\\s?)+$']\n"             # 7
        "  response: {en: a, zh: b}\n",           # 8
        encoding="utf-8",
    )
    problems: list[Problem] = []
    started = time.perf_counter()
    rules = load_guard_rules([tmp_path / "guard.yaml"], problems)
    assert time.perf_counter() - started < 2.0
    assert sorted((p.path, p.line, p.field) for p in problems) == [
        ("guard.yaml", 6, "oos-waste.patterns.en"), ("guard.yaml", 7, "oos-waste.patterns.zh")]
    assert "'^(a|a)+$'" in problems[0].message and "(a|a)+" in problems[0].message
    assert [r.id for r in rules] == ["oos-waste"]


def test_a_catastrophic_pattern_stops_the_content_the_build_checks_first(tree, samples) -> None:
    tree.write("guard.yaml", samples.GUARD.replace("en: ['chest pain']", "en: ['chest pain', '^(a|a)+$']"))
    started = time.perf_counter()
    content = validate_content(tree.root)
    assert time.perf_counter() - started < 10.0
    [problem] = content.problems
    assert problem.path == "content/guard.yaml" and problem.field == "red-flag-chest-pain.patterns.en"
    assert "^(a|a)+$" in problem.message


def test_a_rule_in_chinese_only_answers_in_chinese_whatever_the_question_language() -> None:
    """A zh-only knowledge base (unitrag.toml languages = ["zh"]) writes no English response: none is required."""
    row = {"id": "red-flag-chest-pain", "type": "red_flag", "patterns_zh": ["胸痛"], "response_zh": "请立即拨打120。",
           "caution_zh": "如果胸痛已经过去，也请尽快就医。", "similar_without_sign": "unsure"}
    compiled = compile_rule(row)
    assert compiled.response("zh") == compiled.response("en") == "请立即拨打120。"
    assert compiled.caution("en") == compiled.caution("zh") == "如果胸痛已经过去，也请尽快就医。"
    assert compile_rule({**row, "caution_zh": None}).caution("en") is None
    from unitrag.rag.guard.screen import Guard

    guard = Guard.from_rows([row])
    for question, lang in (("我爸突然胸痛，出冷汗", "zh"), ("my dad has 胸痛 right now", "en")):
        outcome = guard.check(question, lang)
        assert outcome is not None and outcome.type == "red_flag" and outcome.response == "请立即拨打120。", lang


def test_a_rule_in_english_only_answers_in_english_and_one_without_any_response_is_refused() -> None:
    compiled = compile_rule(rule("stocks"))
    assert compiled.response("zh") == compiled.response("en") == "No."
    with pytest.raises(ValueError, match="'r': no response in any language"):
        compile_rule({"id": "r", "type": "out_of_scope", "patterns_en": ["x"], "response_en": "", "response_zh": None})
