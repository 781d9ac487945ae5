"""Language detection and the normal form guard patterns and topic names are matched against."""

from __future__ import annotations

import pytest

from unitrag.content.text.lang import detect_lang, in_neither_language, normalize_question


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("孕妇每天需要多少碘", "zh"),
        ("HbA1c是什么意思", "zh"),  # a Chinese question quoting an English term
        ("LDL-C偏高怎么办", "zh"),
        ("cholesterol高怎么办", "zh"),
        ("Omega-3和鱼油有什么区别", "zh"),
        ("how much vitamin D is too much", "en"),
        ("Does 叶酸 help prevent neural tube defects during pregnancy?", "en"),  # one Chinese word
        ("is 维生素B12 one of the B vitamins?", "en"),
        ("what is 维生素 good for", "en"),
        ("does 叶酸 help", "en"),  # an even split keeps the English frame
        ("", "en"),
        ("123 ?!", "en"),
        # Japanese is not Chinese: answered in English rather than with Chinese framing (the supported languages)
        ("クラブナイトは何時に始まりますか？", "en"),
        ("東京駅から新宿駅まで何分かかりますか", "en"),
    ],
)
def test_detect_lang(text, lang):
    assert detect_lang(text) == lang


@pytest.mark.parametrize(("text", "neither"), [
    ("ビタミンDは一日どれくらい必要ですか", True), ("東京駅から新宿駅まで何分かかりますか", True),
    ("비타민 D는 하루에 얼마나 필요한가요?", True), ("Сколько витамина D нужно в день?", True),
    ("孕妇每天需要多少碘", False), ("how much vitamin D", False), ("血圧の薬", False),  # one kana among Han characters
    ("how many µg of β-carotene", False), ("Vitamin D Ελλάδα", False), ("¯\\_(ツ)_/¯ 维生素D", False), ("", False),
])
def test_a_question_mostly_in_another_script_is_in_neither_language(text, neither):
    assert in_neither_language(text) is neither


def test_normalize_question():
    assert normalize_question("  I can’t\u00a0 breathe，胸 口 痛。\n“Ｂ１２”\u200b？ ") == 'I can\'t breathe,胸口痛. "B12"?'
    assert normalize_question("维生素 B 族") == "维生素 B 族"  # spaces only vanish between two Han characters
    assert normalize_question("") == ""
