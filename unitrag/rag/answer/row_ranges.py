"""The span of numbers a table row's label covers: "120 平方米及以下", "over 65", "19–50 years", "10 至 20 公斤".

A question often gives its own number, not the row's: "装修押金交多少 我家135平" against rows for 120 m² and under
(3,000 元) and over 120 m² (5,000 元), where a new team's answer quoted the first. The row whose label's span holds
the question's number is the one asked about (``extractive._named_rows``), as a row whose label says the number is.
Only a label that says a bound or a range in words or signs has a span; a bare number ("DC Fast (60 kW)") has none.

A length of time is read in days on both sides (``durations``, ``duration_span``): a camp's "cancel 3 weeks before"
is its refund table's "开营前14–29天" row, and not the "开营前13天以内" row, whose bound the bare "3" fell under (a new
team's parents were told "no refund" where the policy gives half back).
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


#: Units of time in days, each with what spells it: bare 月, 日 and 年 are dates (3月1日, 2025年), not lengths (多月: 一个多月).
_TIME_UNITS = {"day": 1.0, "days": 1.0, "天": 1.0, "week": 7.0, "weeks": 7.0, "wk": 7.0, "wks": 7.0,
               "周": 7.0, "星期": 7.0, "礼拜": 7.0, "month": 30.0, "months": 30.0, "个月": 30.0, "year": 365.0,
               "years": 365.0, "yr": 365.0, "yrs": 365.0, "hour": 1 / 24, "hours": 1 / 24, "hr": 1 / 24, "hrs": 1 / 24,
               "小时": 1 / 24, "钟头": 1 / 24, "minute": 1 / 1440, "minutes": 1 / 1440, "min": 1 / 1440,
               "mins": 1 / 1440, "分钟": 1 / 1440, "多月": 30.0}
_COUNT_WORDS = {**{w: float(n) for n, w in enumerate(
    "one two three four five six seven eight nine ten eleven twelve".split(), 1)}, "a": 1.0, "an": 1.0,
    **{c: float(n) for n, c in enumerate("一二三四五六七八九十", 1)}, "两": 2.0, "半": 0.5}
_UNIT = "|".join(sorted((re.escape(u) for u in _TIME_UNITS), key=len, reverse=True))
#: A count and a unit of time: "3 weeks", "two months", "a week", 两个月, 一个多月, 3天, 十天 (the count "more than", 多, kept).
_DURATION = re.compile(r"(?<![\d.])(?P<n>\d+(?:\.\d+)?|十[一二三四五六七八九]?|[一二三四五六七八九两半]|\b(?:"
                       + "|".join(w for w in _COUNT_WORDS if w.isascii()) + r")\b)\s*(?:个)?(?:多(?!月))?(?:个)?\s*"
                       r"(?P<unit>" + _UNIT + r")(?![a-z])", re.IGNORECASE)


#: Units a number of a question or a row says, by their spellings: what a bound is measured in. A child "125cm" is in a
#: ticket table's "height 100–140 cm" row, not its "aged 65 and over" one (a theme park's answer quoted the adult
#: price). Lengths of time are ``durations``'.
_UNIT_NAMES = {"cm": "cm", "厘米": "cm", "公分": "cm", "kg": "kg", "kgs": "kg", "公斤": "kg", "千克": "kg", "斤": "jin",
               "岁": "age", "周岁": "age", "years old": "age", "year old": "age", "yo": "age", "y/o": "age",
               "平": "m2", "平米": "m2", "平方米": "m2", "平方": "m2", "m²": "m2", "m2": "m2", "㎡": "m2", "sqm": "m2",
               "square meters": "m2", "square metres": "m2"}
_UNIT_AFTER = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*(?:-|–)?\s*("
                         + "|".join(sorted(map(re.escape, _UNIT_NAMES), key=len, reverse=True)) + r")(?![a-z])",
                         re.IGNORECASE)
#: An age said before its number: "aged 65 and over", "ages 3–12", 年龄 6 岁以上.
_AGE_BEFORE = re.compile(r"\b(?:aged?|ages)\b|年龄|年满", re.IGNORECASE)


def units(text: str) -> dict[str, str]:
    """The unit each number of ``text`` is said in ("125cm" → {"125": "cm"}, 8岁 → {"8": "age"}); a bare number has
    none."""
    return {m.group(1): _UNIT_NAMES[m.group(2).casefold()] for m in _UNIT_AFTER.finditer(text)}


def unit_of(label: str) -> str | None:
    """The one unit a label's bound or range is said in ("height 100–140 cm": cm, "aged 65 and over": age); None when
    it says none, or several."""
    found = set(units(label).values()) | ({"age"} if _AGE_BEFORE.search(label) else set())
    return found.pop() if len(found) == 1 else None


_MONTH_NAMES = ("january february march april may june july august september october november december").split()
#: A month, in either language: "July", "Jul", 7月, 七月 (not "may", a verb as often as a month, unless "May" is written
#: with its capital inside a sentence or beside a day: "in May", "May 5"; not 月饼, 个月).
_MONTH = re.compile(r"\b(?:" + "|".join(f"{m[:3]}(?:{m[3:]})?" for m in _MONTH_NAMES if m != "may") + r")\.?(?![a-z])"
                    r"|(?<=[a-z,] )(?-i:May)\b|\b(?-i:May)(?= \d)|(?<![\d个])(1[0-2]|[1-9]|十[一二]?|[一二三四五六七八九])月(?!饼|份?饼|亮|光)",
                    re.IGNORECASE)
_ZH_MONTHS = {c: n for n, c in enumerate("一二三四五六七八九", 1)} | {"十": 10, "十一": 11, "十二": 12}


def months(text: str) -> frozenset[int]:
    """The months ``text`` names (1–12), in either language: a question's 7月 is a table's "July" (a theme park's
    "7月几点关门" quoted its spring hours)."""
    found = set()
    for m in _MONTH.finditer(text):
        if m.group(1):
            found.add(int(m.group(1)) if m.group(1).isdigit() else _ZH_MONTHS[m.group(1)])
        else:
            word = m.group(0).rstrip(".").casefold()
            found.add(next(i for i, name in enumerate(_MONTH_NAMES, 1) if name.startswith(word[:3])))
    return frozenset(found)


#: The seasons, by their words in either language: a question's 冬天 is a row's "Winter 冬季".
_SEASONS = {"spring": ("spring", "春天", "春季"), "summer": ("summer", "夏天", "夏季", "暑假"),
            "autumn": ("autumn", "fall", "秋天", "秋季"), "winter": ("winter", "冬天", "冬季", "寒假")}
_SEASON = re.compile(r"(?<!hot )\b(spring(?! (?:water|onion|rolls?|mattress|cleaning|break))|summer|autumn|fall)\b|\b(winter)\b|(春天|春季|夏天|夏季|暑假|秋天|秋季|冬天|冬季|寒假)",
                     re.IGNORECASE)


def seasons(text: str) -> frozenset[str]:
    """The seasons ``text`` names, in either language ("冬天几点关门" and "Winter 冬季 — Closes: 17:30": winter). Not
    "fall" the verb: only beside "in", "this", "next", "last" or a season's row of its own ("Fall — …")."""
    found = set()
    for m in _SEASON.finditer(text):
        word = m.group(0).casefold()
        if word == "fall" and not re.search(r"(?:\b(?:in|this|next|last|the)\s+|^\s*)$", text[:m.start()], re.IGNORECASE):
            continue
        found.add(next(name for name, words in _SEASONS.items() if word in words))
    return frozenset(found)


def durations(text: str) -> dict[str, float]:
    """The lengths of time ``text`` states, in days, by the number as ``focus.numbers_in`` reads it ("3 weeks" → {"3":
    21.0}); a number of a date (3月) or of no unit is none."""
    found: dict[str, float] = {}
    for m in _DURATION.finditer(text):
        n, unit = m.group("n"), m.group("unit").casefold()
        if n[0].isdigit():
            count = _value(n)
        else:  # 十二 is 10 + 2; "an", "two", 两 are words
            count = 10 + _COUNT_WORDS[n[1]] if n[0] == "十" and len(n) == 2 else _COUNT_WORDS[n.casefold()]
        found[n if n[0].isdigit() else f"{count:g}"] = count * _TIME_UNITS[unit]
    return found


def duration_span(label: str) -> tuple[float, float] | None:
    """What ``label`` covers in days, when it says one range or bound of a unit of time ("开营前14–29天" → (14, 29),
    "30 days or more" → (30, inf)); None when it says none, or no unit of time."""
    span = covered(label)
    said = [_TIME_UNITS[m.group("unit").casefold()] for m in re.finditer(r"\d\s*(?P<unit>" + _UNIT + r")(?![a-z])",
                                                                        label, re.IGNORECASE)]
    if span is None or len(set(said)) != 1:
        return None
    return span[0] * said[0], span[1] * said[0]


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
