"""The span of numbers a table row's label covers: "120 平方米及以下", "over 65", "19–50 years", "10 至 20 公斤".

A question often gives its own number, not the row's: "装修押金交多少 我家135平" against rows for 120 m² and under
(3,000 元) and over 120 m² (5,000 元), where a new team's answer quoted the first. The row whose label's span holds
the question's number is the one asked about (``extractive._named_rows``), as a row whose label says the number is.
Only a label that says a bound or a range in words or signs has a span; a bare number ("DC Fast (60 kW)") has none.
"""

from __future__ import annotations

import math
import re

_NUM = r"(?<![\d:.,])(\d+(?:,\d{3})*(?:\.\d+)?)(?![\d:])"  # not a clock's "06:00"
_UPPER_WORDS = (r"及以下|以下|以内|之内|或以下|或更少|不超过|不满|未满|低于|少于|小于|不足|"
                r"or (?:less|fewer|under|younger|below)|and (?:under|below|younger)")
_LOWER_WORDS = r"及以上|以上|或以上|或更多|起|or (?:more|over|older|above)|and (?:over|above|older)|\+"
#: A number, then what bounds it ("120 平方米及以下", "65 or older", "12+"); a unit may stand between.
_AFTER = re.compile(_NUM + r"\s*(?:[^\d\s|—:;,，；：]{0,6}?)\s*(?P<word>" + _UPPER_WORDS + "|" + _LOWER_WORDS + ")",
                    re.IGNORECASE)
#: What bounds a number, then the number ("under 12", "不超过 20 公斤", "≤ 5").
_BEFORE = re.compile(r"(?P<word>\b(?:under|below|less than|fewer than|up to|at most|no more than|not over|over|above|"
                     r"more than|at least|no less than|from)\b|不超过|不满|未满|低于|少于|小于|超过|高于|多于|大于|满|"
                     r"[<≤>≥])\s*" + _NUM, re.IGNORECASE)
_RANGE = re.compile(_NUM + r"\s*(?:[^\d\s|—:;,，；：]{0,4}?)\s*(?:–|—|-|~|～|至|到|to)\s*" + _NUM)
_UPPER = re.compile(r"^(?:" + _UPPER_WORDS + r"|under|below|less than|fewer than|up to|at most|no more than|not over|"
                    r"不超过|不满|未满|低于|少于|小于|<|≤)$", re.IGNORECASE)


#: How far from an open bound ("under 120") a number may lie and still be one it bounds: a tenth to ten times.
ORDER = 10.0


def _value(text: str) -> float:
    return float(text.replace(",", ""))


def covered(label: str) -> tuple[float, float] | None:
    """The numbers ``label`` covers, (low, high), when it says one range or one bound; None when it says none or two."""
    found = [(_value(m.group(1)), _value(m.group(2))) for m in _RANGE.finditer(label)]
    if not found:
        for m in _AFTER.finditer(label):
            n, upper = _value(m.group(1)), bool(_UPPER.match(m.group("word")))
            found.append((-math.inf, n) if upper else (n, math.inf))
        for m in _BEFORE.finditer(label):  # 满 65 岁: 65 and over; 不满/未满 65 岁: under it
            n = _value(m.group(2))
            found.append((-math.inf, n) if _UPPER.match(m.group("word").casefold()) else (n, math.inf))
    spans = set(found)
    return spans.pop() if len(spans) == 1 else None


def holds(label: str, number: str) -> bool:
    """Whether ``number`` (a question's, as ``focus.numbers_in`` reads it) lies in what ``label`` covers."""
    span = covered(label)
    try:
        value = _value(number)
    except ValueError:
        return False
    if span is None or not span[0] <= value <= span[1]:
        return False
    if not (math.isinf(span[0]) or math.isinf(span[1])):
        return True  # a range holds all it spans ("0–5 years" holds 3)
    # an open bound holds numbers of its own order only: the "1" of "我1米8" (1.8 m) is no height "under 120 cm"
    bound = span[1] if math.isinf(span[0]) else span[0]
    return bound / ORDER <= value <= bound * ORDER
