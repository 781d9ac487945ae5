"""Guard rules' patterns: matched as before, each search time-bounded, and a catastrophic one refused by validation."""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path

import pytest

from unitrag.content.guard_rules import (
    PATTERN_TIMEOUT_S, QUESTION_BUDGET_S, SPENT_TIMEOUT_S, STARVED_TRIES, compile_pattern, compile_rule, first_match,
    pattern_problem, search,
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
    started = time.thread_time()
    found = first_match(rules, ATTACK, "out_of_scope")
    assert time.thread_time() - started < 1.0
    assert found is not None and found.id == "fine"


def test_many_catastrophic_patterns_cost_a_question_a_bounded_time() -> None:
    rules = [compile_rule(rule(OVERLAPPING, rule_id=f"slow-{i}")) for i in range(40)]
    rules.append(compile_rule(rule("recycling", rule_id="last")))
    started = time.thread_time()  # the budget is this thread's CPU time: a busy machine's wall clock says nothing
    found = first_match(rules, ATTACK, "out_of_scope")
    bound = QUESTION_BUDGET_S + PATTERN_TIMEOUT_S + 41 * SPENT_TIMEOUT_S
    assert time.thread_time() - started < bound + 0.5
    assert found is not None and found.id == "last"


def test_a_search_starved_of_the_cpu_is_tried_again_with_more_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy server: the thread had the CPU for none of the wall-clock time (its CPU clock stood still), so the
    pattern never had its chance; it is searched again, each time with four times the time, before it counts as no
    match. (Real starvation is not reproducible on demand; benchmarks/guard/pattern_load.py measures it.)"""
    pattern = compile_pattern(OVERLAPPING)  # runs to its limit every time: each try lasts its whole wall-clock time
    timeout = 0.002
    assert search(pattern, ATTACK, timeout) is None  # on the CPU: no match once it used its time
    monkeypatch.setattr("unitrag.content.guard_rules.time.thread_time", lambda: 0.0)
    started = time.perf_counter()
    assert search(pattern, ATTACK, timeout) is None
    assert time.perf_counter() - started >= timeout * sum(4 ** i for i in range(STARVED_TRIES))
    assert search(compile_pattern(r"\bsuicid\w*"), "i think about suicide", timeout) is True


@pytest.mark.parametrize("pattern", [OVERLAPPING, NESTED, "(x+x+)+y", r"(\s*)*$"])
def test_a_catastrophic_pattern_is_a_validation_problem(pattern: str) -> None:
    started = time.perf_counter()
    message = pattern_problem(pattern)
    assert time.perf_counter() - started < 1.0
    assert message is not None and pattern in message and "nested quantifiers" in message


@pytest.mark.parametrize("pattern", [
    r"\bchest (pain|pressure)\b", r"(\w+ ){0,3}pain", r"(\d{1,3}\.){3}\d{1,3}", r"(ab*){2}c", r"x{3}", "^(?=[\\s\\S]*\\bchest\\b)(?=[\\s\\S]*breath)", "胸[^，。]{0,6}痛",
])
def test_an_ordinary_pattern_is_no_validation_problem(pattern: str) -> None:
    assert pattern_problem(pattern, ["my chest hurts and I can't catch my breath"]) is None


@pytest.mark.parametrize("pattern", [r"(.*e){10}#", r"(\w+\s?){3,8}!", r"^(?:[a-z]+\d*){4}$"])
def test_an_unbounded_part_repeated_a_counted_3_or_more_times_is_a_validation_problem(pattern: str) -> None:
    # (.*e){10}# takes re seconds on 27 characters; it matches nothing when it does not stop, so the probes alone pass it
    message = pattern_problem(pattern)
    assert message is not None and pattern in message and "nested quantifiers" in message and "counted" in message


@pytest.mark.parametrize("pattern", ["", ".*", r"\s*", "a?", "^", "(?:x|)", "電池|"])
def test_a_pattern_that_matches_the_empty_string_matches_every_question_and_is_a_problem(pattern: str) -> None:
    message = pattern_problem(pattern)
    assert message is not None and message.startswith("this pattern matches every question: ")
    assert repr(pattern) in message


def test_a_pattern_matching_every_question_is_a_problem_on_its_line(tmp_path: Path) -> None:
    (tmp_path / "guard.yaml").write_text(
        "- id: oos-evil\n"                        # 1
        "  type: out_of_scope\n"                  # 2
        "  patterns:\n"                           # 3
        "    en: ['\\bsolar\\b', '.*']\n"        # 4
        "    zh: ['']\n"                          # 5
        "  response: {en: a, zh: b}\n",           # 6
        encoding="utf-8",
    )
    problems: list[Problem] = []
    load_guard_rules([tmp_path / "guard.yaml"], problems)
    assert [(p.line, p.field) for p in sorted(problems)] == [(4, "oos-evil.patterns.en"), (5, "oos-evil.patterns.zh")]
    assert all("matches every question" in p.message for p in problems)


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


TWICE = """\
- id: red-flag-gas-smell
  type: red_flag
  patterns: {en: ['gas smell'], zh: ['煤气味']}
  response: {en: "Leave now.", zh: "立即离开。"}
- id: oos-solar
  type: out_of_scope
  patterns: {en: ['solar'], zh: ['太阳能']}
  response: {en: "Not here.", zh: "不在这里。"}
- id: red-flag-gas-smell
  type: out_of_scope
  patterns: {en: ['gas smell'], zh: ['煤气味']}
  response: {en: "Leave now.", zh: "立即离开。"}
"""


def test_a_guard_rule_id_written_twice_is_one_problem_at_the_second_naming_the_first(tree) -> None:
    tree.write("guard.yaml", TWICE)
    # a question labelled with the id, of the first rule's type or the second's: no second problem about it
    tree.write("eval/questions.yaml", "- id: gt-1\n  question: it smells of gas\n  lang: en\n  guard: out_of_scope\n"
                                      "  guard_rule: red-flag-gas-smell\n"
                                      "- id: gt-2\n  question: gas smell upstairs\n  lang: en\n  guard: red_flag\n"
                                      "  guard_rule: red-flag-gas-smell\n")
    content = validate_content(tree.root)
    [problem] = content.problems
    assert (problem.path, problem.line) == ("content/guard.yaml", 9)
    assert "guard rule id 'red-flag-gas-smell' is already used at content/guard.yaml:1" in problem.message
    assert [rule.id for rule in content.guard_rules] == ["red-flag-gas-smell", "oos-solar"]  # the first kept


def test_a_misnamed_guard_rule_is_still_reported_beside_an_id_written_twice(tree) -> None:
    tree.write("guard.yaml", TWICE)
    tree.write("eval/questions.yaml", "- id: gt-1\n  question: solar panels\n  lang: en\n  guard: red_flag\n"
                                      "  guard_rule: oos-solar\n")
    content = validate_content(tree.root)
    assert sorted(p.field for p in content.problems) == ["gt-1.guard_rule", "red-flag-gas-smell.id"]


MARKUP = """\
- id: oos-xss
  type: out_of_scope
  patterns: {en: ['solar'], zh: ['太阳能']}
  response:
    en: "Not here. <script>alert(1)</script>"
    zh: "不在这里。[点这里](javascript:alert(1))"
- id: red-flag-img
  type: red_flag
  patterns: {en: ['gas smell'], zh: ['煤气味']}
  response: {en: "Leave now; a price < 5 > 3 is fine.", zh: "立即离开。"}
  caution: {en: "Careful <img src=x onerror=alert(1)>", zh: "小心。"}
"""


def test_markup_in_a_guard_response_or_caution_is_a_note_at_its_line_not_a_problem(tree) -> None:
    # unit titles and bodies may hold markup (validate accepts it; the page shows text as text): a note, as for a
    # unit line that reads as an instruction to a model
    tree.write("guard.yaml", MARKUP)
    content = validate_content(tree.root)
    assert content.problems == []
    assert [(n.path, n.line, n.field) for n in content.notes] == [
        ("content/guard.yaml", 5, "oos-xss.response.en"), ("content/guard.yaml", 6, "oos-xss.response.zh"),
        ("content/guard.yaml", 11, "red-flag-img.caution.en")]
    assert "'<script>' is markup" in content.notes[0].message
    assert "'javascript:' is markup" in content.notes[1].message
    assert "'<img src=x onerror=alert(1)>' is markup" in content.notes[2].message
