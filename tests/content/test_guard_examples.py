"""guard.yaml examples and near-misses are validated like any content: language, length, duplicates, enough of them."""

from __future__ import annotations

from pathlib import Path

import yaml

from unitrag.content.problems import Problem
from unitrag.content.registry import load_guard_rules

EN = [f"my dad suddenly cannot move his arm, case {i}" for i in range(6)]
ZH = [f"我爸突然胳膊动不了了，第{i}次" for i in range(6)]


def rule(**extra: object) -> dict:
    return {"id": "red-flag-x", "type": "red_flag", "patterns": {"en": ["x"]},
            "response": {"en": "Call 120.", "zh": "请拨打120。"}, **extra}


def load(tmp_path: Path, rules: list[dict]) -> tuple[list, list[Problem]]:
    path = tmp_path / "guard.yaml"
    path.write_text(yaml.safe_dump(rules, allow_unicode=True, sort_keys=False), encoding="utf-8")
    problems: list[Problem] = []
    return load_guard_rules([path], problems), problems


def test_examples_and_near_misses_load(tmp_path: Path) -> None:
    rules, problems = load(tmp_path, [rule(examples={"en": EN, "zh": ZH}, near_misses={"en": ["Does salt cause strokes?"]})])
    assert problems == []
    assert rules[0].examples.items()[0] == ("en", EN[0]) and len(rules[0].examples.items()) == 12


def test_a_rule_without_examples_is_patterns_only(tmp_path: Path) -> None:
    assert load(tmp_path, [rule()])[1] == []


def test_too_few_examples_in_a_language(tmp_path: Path) -> None:
    _, problems = load(tmp_path, [rule(examples={"en": EN, "zh": ZH[:2]})])
    assert [(p.field, "at least 6" in p.message) for p in problems] == [("red-flag-x.examples.zh", True)]


def test_wrong_language_empty_long_and_duplicate_texts(tmp_path: Path) -> None:
    examples = {"en": [*EN, "我爸突然胳膊动不了", "   ", "x" * 301], "zh": [*ZH, "cannot move arm", ZH[0]]}
    _, problems = load(tmp_path, [rule(examples=examples, near_misses={"en": [EN[1].upper()]})])
    messages = sorted((p.field, p.message.split(":")[0].split(" (")[0]) for p in problems)
    assert messages == [
        ("red-flag-x.examples.en", "301 characters"), ("red-flag-x.examples.en", "empty text"),
        ("red-flag-x.examples.en", "not English"), ("red-flag-x.examples.zh", "not Chinese"),
        ("red-flag-x.examples.zh", "written twice"), ("red-flag-x.near_misses.en", "written twice"),
    ]
    assert all(p.line > 1 for p in problems)
