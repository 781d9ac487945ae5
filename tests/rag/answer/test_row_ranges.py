"""The numbers a table row's label covers: a bound or a range in words or signs, in either language."""

from __future__ import annotations

import math

import pytest

from unitrag.rag.answer.row_ranges import covered, duration_span, durations, holds, months, seasons, unit_of, units


@pytest.mark.parametrize(("label", "span"), [
    ("建筑面积 120 平方米及以下的住宅", (-math.inf, 120.0)),
    ("建筑面积 120 平方米以上的住宅", (120.0, math.inf)),
    ("Adults 19–50", (19.0, 50.0)),
    ("10 至 20 公斤", (10.0, 20.0)),
    ("1,000–2,000 kg", (1000.0, 2000.0)),
    ("Children under 12", (-math.inf, 12.0)),
    ("Over 65", (65.0, math.inf)),
    ("65 or older", (65.0, math.inf)),
    ("12+", (12.0, math.inf)),
    ("不超过 20 公斤", (-math.inf, 20.0)),
    ("满65岁", (65.0, math.inf)),
])
def test_a_bound_or_a_range_is_read(label: str, span: tuple[float, float]) -> None:
    assert covered(label) == span


@pytest.mark.parametrize("label", ["联排别墅", "DC Fast (60 kW)", "Weekdays 06:00–22:00", "3 zones",
                                   "under 12 or over 65"])
def test_a_label_without_one_bound_or_range_covers_nothing(label: str) -> None:
    assert covered(label) is None


def test_a_number_is_held_within_its_bound_and_of_its_order() -> None:
    assert holds("建筑面积 120 平方米以上的住宅", "135") and not holds("建筑面积 120 平方米以上的住宅", "90")
    assert holds("Adults 19–50", "35") and not holds("Adults 19–50", "51")
    assert not holds("under 120 cm", "1")  # the 1 of "1米8" is no height
    assert holds("under 12", "8") and not holds("under 12", "x")
    # a closed range holds all it spans: the order rule is an open bound's only ("0–5" held nothing, "1–100" not 50)
    assert holds("Children 0–5 years", "3") and holds("1–100 bags", "50")


@pytest.mark.parametrize(("text", "days"), [
    ("if we cancel 3 weeks before camp starts", {"3": 21.0}),
    ("whats the refund if we cancel 2 months ahead", {"2": 60.0}),
    ("a week before", {"1": 7.0}),
    ("提前一个多月取消有手续费吗", {"1": 30.0}),
    ("两个星期前取消", {"2": 14.0}),
    ("十天前", {"10": 10.0}),
    ("十二周", {"12": 84.0}),
    ("cancel an hour before or a day before", {"1": 1.0}),
    ("3月1日开营，2025年", {}),  # dates, not lengths
    ("3 kg", {}),
])
def test_a_length_of_time_is_read_in_days(text: str, days: dict[str, float]) -> None:
    assert durations(text) == days


def test_a_label_in_units_of_time_covers_days() -> None:
    assert duration_span("开营前14–29天") == (14.0, 29.0)
    assert duration_span("开营前13天以内") == (-math.inf, 13.0)
    assert duration_span("30 days or more") == (30.0, math.inf)
    assert duration_span("Under 2 years") == (-math.inf, 730.0)
    assert duration_span("10 至 20 公斤") is None and duration_span("Weekdays 06:00–22:00") is None


def test_a_number_is_read_with_its_unit_and_a_label_with_its_own() -> None:
    assert units("he is 125cm, 8 years old") == {"125": "cm", "8": "age"} and units("我家135平") == {"135": "m2"}
    assert units("spay a 30 kg dog") == {"30": "kg"} and units("3 zones") == {}
    assert unit_of("height 100–140 cm") == "cm" and unit_of("aged 65 and over") == "age"
    assert unit_of("Children under 12") is None and unit_of("taller than 140 cm, aged 18–64") is None


@pytest.mark.parametrize(("text", "named"), [
    ("what time do you close in July", {7}), ("7月几点关门", {7}), ("十二月开吗", {12}), ("Jan. 5", {1}),
    ("Spring — Months: March, April, May", {3, 4, 5}), ("open in May?", {5}),
    ("may I bring food", set()), ("you may bring food?", set()), ("can i may", set()), ("3个月的宝宝", set()),
    ("中秋月饼", set()),
])
def test_a_month_is_read_in_either_language(text: str, named: set[int]) -> None:
    assert months(text) == named


@pytest.mark.parametrize(("text", "named"), [
    ("冬天几点关门", {"winter"}), ("Winter 冬季 — Closes: 17:30", {"winter"}), ("open in the fall?", {"autumn"}),
    ("Fall — Opens 9:30", {"autumn"}), ("暑假人多吗", {"summer"}),
    ("what if i fall on the ice", set()), ("is the hot spring open", set()), ("spring rolls at the cafe", set()),
])
def test_a_season_is_read_in_either_language(text: str, named: set[str]) -> None:
    assert seasons(text) == named
