"""The answer-fact matcher: spellings, units and numbers folded; a number never matches part of a longer one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unitrag.eval.answer_facts import fact_stated, missing_facts, normalise


@pytest.mark.parametrize(("text", "spelling"), [
    ("Adults need 1,000 mg of calcium a day.", "1000 mg"),
    ("Adults need 1000 mg of calcium a day.", "1,000 mg"),
    ("成人每日需要1000毫克钙。", "1,000 mg"),
    ("成人每日需要1，000毫克钙。", "1000 mg"),  # a full-width thousands separator
    ("Take it WITH FOOD.", "with food"),
    ("建议随餐服用", "随餐"),
    ("400 µg of folic acid", "400 mcg"),  # micro sign
    ("400 μg of folic acid", "400 ug"),  # Greek mu
    ("每日400微克叶酸", "400 μg"),
    ("400 micrograms a day", "400µg"),
    ("keep it at 4 ℃", "4 °C"),
    ("冰箱保持在4摄氏度以下", "4°C"),
    ("Sodium under 2 g a day", "2克"),
    ("钠每日不超过2 克", "2 g"),
    ("a daily dose of **0.4 mg**", "0.4 mg"),
    ("Ｆｕｌｌ－ｗｉｄｔｈ ６００ ＩＵ", "600 IU"),
    ("600国际单位", "600 IU"),
    ("take 4 mg.", "4 mg"),  # a full stop is not a decimal point
    ("between 4 and 10 mg", "10 mg"),
    ("每次10～25毫克", "10-25 mg"),  # range dashes and tildes
    ("10–25 mg three times a day", "10~25 mg"),
    ("all three zones costs $4.50.\n2. The following is from a Chinese source", "$4.50"),  # a list's next item
    ("call the hotline, 800-555-0199.\n2. …", "800-555-0199"),
    ("the dose is 2.\n4 mg later", "4 mg"),  # "2.", a list item's number, then the fact
])
def test_a_fact_is_stated_in_any_of_its_spellings(text: str, spelling: str):
    assert fact_stated(text, [spelling])


@pytest.mark.parametrize(("text", "spelling"), [
    ("0.4 mg of folic acid", "4 mg"),  # the example: the tail of a longer number
    ("14 mg of iron", "4 mg"),
    ("10000 IU is too much", "1000 IU"),
    ("11,000 mg", "1,000 mg"),
    ("4.5 mmol/L", "4"),
    ("4.5 mmol/L", "4 mmol"),
    ("take 2 10 mg tablets", "210 mg"),  # two numbers are not one
    ("a drug", "1 ug"),
    ("克服困难", "g"),  # 克 is a gram only after a number
    ("400 mg", "400 μg"),
    ("costs $4.50.2", "$4.50"),  # a version-like number is still one number
    ("take 1.\n5 mg", "1.5 mg"),  # a full stop and a new line are no decimal point
])
def test_a_fact_is_not_stated_by_a_different_number_or_unit(text: str, spelling: str):
    assert not fact_stated(text, [spelling])


def test_missing_facts_are_listed_with_their_spellings_in_order():
    facts = [["1,000 mg", "1000毫克"], ["with food", "随餐"], ["vitamin D"]]
    assert missing_facts("Take 1000 mg a day.", facts) == [["with food", "随餐"], ["vitamin D"]]
    assert missing_facts("每日1000毫克，随餐服用，并补充Vitamin D。", facts) == []


def test_normalise_keeps_decimal_points_and_drops_thousands_separators():
    assert normalise("1,234.5 MG") == "1234.5mg"
    assert normalise("1,2,3") == "1,2,3"  # not thousands groups


# -- properties ----------------------------------------------------------------------------------

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz维生素钙铁", min_size=1, max_size=8)
_NUMBER = st.integers(min_value=1, max_value=9_999_999)
_UNIT = st.sampled_from([("mg", ["mg", "毫克", "MG", "milligrams"]), ("μg", ["µg", "μg", "ug", "mcg", "微克"]),
                         ("g", ["g", "克", "grams"]), ("°C", ["°C", "℃", "摄氏度"])])
_FILLER = st.text(alphabet="abc xyz,;()维素", max_size=12)


def _thousands(n: int, separator: str) -> str:
    return f"{n:,}".replace(",", separator)


@settings(max_examples=200, deadline=None)
@given(before=_FILLER, after=_FILLER, n=_NUMBER, unit=_UNIT, data=st.data())
def test_a_fact_matches_any_spelling_of_itself(before, after, n, unit, data):
    """However the answer spaces, cases, groups thousands or spells the unit, a stated quantity is found."""
    canonical, spellings = unit
    fact = f"{n} {canonical}"
    written = data.draw(st.sampled_from(spellings))
    number = _thousands(n, data.draw(st.sampled_from([",", "，", ""])))
    space = data.draw(st.sampled_from(["", " ", "  ", "\t", "\n"]))
    quantity = f"{number}{space}{written}"
    quantity = data.draw(st.sampled_from([quantity, quantity.upper(), quantity.lower()]))
    text = f"{before} {quantity} {after}"
    assert fact_stated(text, [fact]), (text, fact)


@settings(max_examples=200, deadline=None)
@given(n=_NUMBER, unit=_UNIT, prefix=st.sampled_from(["1", "9", "0.", "12."]), suffix=st.sampled_from(["0", ".5", "5"]))
def test_a_number_never_matches_inside_a_longer_number(n, unit, prefix, suffix):
    canonical, spellings = unit
    fact = [f"{n} {canonical}"]
    assert not fact_stated(f"the dose is {prefix}{n} {spellings[0]} daily", fact)  # 1n, 0.n: ends in n
    assert not fact_stated(f"the dose is {n}{suffix} {spellings[0]} daily", fact)  # n0, n.5: starts with n
    group = n % 1000  # the last thousands group of a longer number: 3,00n
    assert not fact_stated(f"the dose is 3,{group:03d} {spellings[0]} daily", [f"{group} {canonical}"])
    assert fact_stated(f"the dose is 3,{group:03d} {spellings[0]} daily", [f"{3000 + group} {canonical}"])


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="abc 12.,mgμ克维", max_size=30), fact=st.text(alphabet="abc12.mg维", min_size=1, max_size=6),
       data=st.data())
def test_matching_is_invariant_under_inserting_whitespace(text, fact, data):
    """Whitespace anywhere but between two digits, after a digit's full stop or comma, or inside a Latin word changes nothing (a unit word read in
    two pieces, "m cg", is not the unit "mcg")."""
    def joins(a: str, b: str) -> bool:
        return (a.isdigit() and b.isdigit()) or (a.isascii() and a.isalpha() and b.isascii() and b.isalpha())

    def ends_a_number(i: int) -> bool:  # "4." or "4," before a digit: a space there ends the number
        return i > 1 and text[i - 1] in ".," and text[i - 2].isdigit() and i < len(text) and text[i].isdigit()

    spots = [i for i in range(len(text) + 1)
             if not (0 < i < len(text) and joins(text[i - 1], text[i])) and not ends_a_number(i)]
    spot = data.draw(st.sampled_from(spots))
    spaced = text[:spot] + data.draw(st.sampled_from([" ", "\n", "  "])) + text[spot:]
    assert fact_stated(spaced, [fact]) == fact_stated(text, [fact])
