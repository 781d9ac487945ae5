"""Traditional characters folded to simplified for every lexical matcher, never for what a reader sees."""

from __future__ import annotations

import pytest

from unitrag.content.guard_rules import compile_rule, first_match
from unitrag.content.text.han_script import to_simplified, written_in_traditional
from unitrag.content.text.lang import normalize_question
from unitrag.content.text.tokenize import tokenize


@pytest.mark.parametrize(("traditional", "simplified"), [
    ("出門前怎麼快速檢查車子安不安全", "出门前怎么快速检查车子安不安全"),
    ("維生素B12缺乏會怎樣", "维生素B12缺乏会怎样"),
    ("骨質疏鬆要補鈣嗎", "骨质疏松要补钙吗"),
])
def test_a_question_in_traditional_characters_gets_the_terms_of_its_simplified_form(traditional: str, simplified: str) -> None:
    assert tokenize(traditional) == tokenize(simplified)
    assert normalize_question(traditional) == normalize_question(simplified)


def test_text_without_han_characters_is_returned_as_it_is() -> None:
    text = "How much vitamin D? 25(OH)D < 30 nmol/L"
    assert to_simplified(text) is text


def test_text_the_converter_cannot_encode_is_returned_as_it_is() -> None:
    assert to_simplified("電池\ud800冒煙") == "電池\ud800冒煙"  # a lone surrogate: not UTF-8


def test_simplified_text_is_left_as_it_is() -> None:
    text = "维生素D缺乏的人每天要晒多久太阳？头发、面包、里面"
    assert to_simplified(text) == text


def test_a_guard_pattern_matches_a_question_in_the_other_script_whichever_script_it_was_written_in() -> None:
    def rule(pattern: str):  # type: ignore[no-untyped-def]
        return compile_rule({"id": "red-flag-battery", "type": "red_flag", "patterns_zh": [pattern],
                             "response_en": "Stop charging it.", "response_zh": "请停止充电。"})

    for pattern in ("电池.*冒烟", "電池.*冒煙"):  # written in simplified, then in traditional characters
        rules = [rule(pattern)]
        for question in ("電池充電時冒煙了", "电池充电时冒烟了"):
            assert first_match(rules, normalize_question(question), "red_flag") is not None, (pattern, question)


def test_the_script_of_a_knowledge_bases_chinese_is_told_from_its_titles() -> None:
    simplified = ["维生素D缺乏的症状", "刹车的检查与保养：刹车片、碟片和油压碟刹", "铁的吸收"]
    traditional = ["維生素D缺乏的症狀", "剎車的檢查與保養：剎車片、碟片和油壓碟剎", "鐵的吸收"]
    assert not written_in_traditional(simplified)
    assert written_in_traditional(traditional)
    assert not written_in_traditional([]) and not written_in_traditional(["Vitamin D deficiency"])
