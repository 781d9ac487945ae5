"""The extractive answer from a table: the row the question names (by its words, a number, a number's range, a
number in its unit, a month or a season, a length of time), with its header, and the rows of a list asked."""

from __future__ import annotations

from unitrag.rag.answer.extractive import extractive_answer

from tests.rag.answer.test_extractive import ask, lexicon, source


def test_the_header_every_row_repeats_does_not_bring_in_the_whole_table() -> None:
    text = ("## Daily Values\n\n| Nutrient | Daily Value |\n|---|---|\n| Sodium | 2,300 mg |\n| Calcium | 1,300 mg |\n"
            "| Potassium | 4,700 mg |\n| Fiber | 28 g |")
    answer = ask("What is the Daily Value for sodium?", "en", [source(1, "Labels", text, ["fda"])])
    assert "Sodium — Daily Value: 2,300 mg" in answer
    assert "Calcium" not in answer and "Potassium" not in answer


def test_another_row_of_the_table_is_quoted_only_for_a_term_of_the_question_it_adds() -> None:
    text = ("## Pagoda\n\n| Layer | Adults a day |\n|---|---|\n| Vegetables | 300–500 g |\n| Fruit | 200–350 g |\n"
            "| Salt | < 5 g |")
    known = lexicon()
    question = "How many grams of vegetables should adults eat a day?"
    focus = known.focus(question, (), {"How many grams of vegetables and fruit a day for adults?": 0.98})
    answer = extractive_answer(question, "en", [source(1, "Guidelines", text, ["cn"])], focus=(focus, known))
    assert "Vegetables — Adults a day: 300–500 g" in answer
    assert "Fruit" not in answer, "fruit is only the paraphrase's word: the question asks about vegetables"
    both = "How many grams of vegetables and fruit should adults eat a day?"
    answer = extractive_answer(both, "en", [source(1, "Guidelines", text, ["cn"])], focus=(known.focus(both), known))
    assert "Vegetables — Adults a day: 300–500 g" in answer and "Fruit — Adults a day: 200–350 g" in answer
    assert "Salt" not in answer


def test_a_rows_heading_is_not_repeated_when_the_title_says_it() -> None:
    text = "## 对照表\n\n| 症状 | 原因 |\n|---|---|\n| 叶尖干枯 | 空气干燥 |"
    answer = ask("叶尖干枯是什么原因？", "zh", [source(1, "叶片症状对照表", text, ["rhs"], lang="zh")])
    assert answer.splitlines()[1].startswith("1. 叶片症状对照表：叶尖干枯 — 原因: 空气干燥")
    other = ask("叶尖干枯是什么原因？", "zh", [source(1, "叶片症状", text, ["rhs"], lang="zh")])
    assert other.splitlines()[1].startswith("1. 叶片症状：对照表：叶尖干枯"), "a heading the title does not say stays"


def test_a_number_of_the_question_in_one_rows_label_names_that_row() -> None:
    """A new team's metro: "坐3个区多少钱" quoted the 1-zone row, whose fare is 3 元, not the 3-zone row's 7 元."""
    text = ("Fares by zones crossed.\n\n| Zones | Single | Card |\n|---|---|---|\n| 1 zone | 3 yuan | 2.7 yuan |\n"
            "| 2 zones | 5 yuan | 4.5 yuan |\n| 3 zones | 7 yuan | 6.3 yuan |\n")
    first = ask("How much is it to ride 3 zones?", "en", [source(1, "Fares", text, ["fares"])]).splitlines()[1]
    assert "3 zones — Single: 7 yuan" in first and "1 zone —" not in first


def test_a_number_of_the_question_within_one_rows_range_names_that_row() -> None:
    """A new team's renovation office: "装修押金交多少 我家135平" quoted the row for 120 m² and under (3000元), not the
    one over 120 m² (5000元)."""
    text = ("押金按建筑面积确定：\n\n| 房屋类型 | 押金 |\n|---|---|\n| 建筑面积 120 平方米及以下的住宅 | 3000元 |\n"
            "| 建筑面积 120 平方米以上的住宅 | 5000元 |\n| 联排别墅 | 10000元 |\n")
    first = ask("装修押金交多少 我家135平", "zh", [source(1, "押金", text, ["rules"], lang="zh")]).splitlines()[1]
    assert "5000元" in first and "3000元" not in first
    small = ask("装修押金交多少 我家90平", "zh", [source(1, "押金", text, ["rules"], lang="zh")]).splitlines()[1]
    assert "3000元" in small and "5000元" not in small


def test_terms_that_each_name_several_rows_name_the_one_row_they_share() -> None:
    """A new team's vet clinic: "spay a 30 kg dog" quoted "Dog spay under 20 kg — ¥1,500": "spay" names three rows and
    "30" the two 20–40 kg rows, so no term named one row alone; together they name "Dog spay 20–40 kg"."""
    text = ("Neutering prices.\n\n| surgery | price |\n|---|---|\n| Cat spay (female) | ¥900 |\n"
            "| Dog neuter under 20 kg | ¥1,200 |\n| Dog neuter 20–40 kg | ¥1,600 |\n| Dog spay under 20 kg | ¥1,500 |\n"
            "| Dog spay 20–40 kg | ¥1,900 |\n| Dog spay over 40 kg | ¥2,300 |\n")
    first = ask("how much does it cost to spay a 30 kg dog", "en", [source(1, "Fees", text, ["fees"])]).splitlines()[1]
    assert "¥1,900" in first and "¥1,500" not in first and "¥1,600" not in first
    tied = ask("how much to neuter or spay a 30 kg dog", "en", [source(1, "Fees", text, ["fees"])]).splitlines()[1]
    assert "¥1,900" not in tied or "¥1,600" in tied  # two rows share as many terms: neither is the one asked


def test_a_list_asked_of_a_table_is_its_rows() -> None:
    """A new team's summer camp: "where are the trips going" quoted the first of six trips (the zoo) and nothing of the
    others; a list asked of a table (``asks_list``: "which", "where are the …s") is its rows, as of a list its items."""
    text = ("The 2025 trips, one each Wednesday:\n\n| week | date | destination |\n|---|---|---|\n"
            "| 1 | 9 July | Hangzhou Zoo |\n| 2 | 16 July | Science Museum |\n| 3 | 23 July | Xixi Wetland Park |\n"
            "| 4 | 30 July | Tea Museum |\n")
    unit = [source(1, "Where the field trips go", text, ["trips"])]
    first = ask("where are the trips going", "en", unit).splitlines()[1]
    assert all(place in first for place in ("Hangzhou Zoo", "Science Museum", "Xixi Wetland Park", "Tea Museum"))
    assert first.index("Hangzhou Zoo") < first.index("Tea Museum")  # in the table's order


def test_a_number_in_its_unit_names_the_row_whose_cell_covers_it() -> None:
    """A new team's theme park: "a ticket for my son, he is 125cm" quoted the adult row; the child row's range is in its
    second cell ("height 100–140 cm"), and the senior row's "aged 65 and over" holds 125 too, in years."""
    text = ("One-day tickets:\n\n| Ticket | Who | Price |\n|---|---|---|\n"
            "| Adult | taller than 140 cm, aged 18–64 | ¥260 |\n| Child | height 100–140 cm | ¥180 |\n"
            "| Infant | under 100 cm | free |\n| Senior | aged 65 and over | ¥160 |\n")
    unit = [source(1, "Ticket prices", text, ["tickets"])]
    son = ask("how much is a ticket for my son, he is 125cm", "en", unit).splitlines()[1]
    assert "¥180" in son and "¥260" not in son and "¥160" not in son
    baby = ask("my daughter is 95 cm, how much is her ticket", "en", unit).splitlines()[1]
    assert "free" in baby and "¥260" not in baby


def test_a_month_names_the_row_that_names_it_in_either_language() -> None:
    """A new team's theme park: "7月几点关门" and "十二月几点开门" quoted its spring or summer hours; the seasons' rows
    name their months in English."""
    text = ("Opening hours by season:\n\n| Season | Months | Opens | Closes |\n|---|---|---|---|\n"
            "| Spring | March, April, May | 9:30 | 18:00 |\n| Summer | June, July, August | 9:00 | 21:30 |\n"
            "| Autumn | September, October, November | 9:30 | 18:00 |\n| Winter | December, January, February | 10:00 | 17:30 |\n")
    unit = [source(1, "Opening hours", text, ["hours"])]
    july = ask("7月几点关门", "zh", unit).splitlines()[1]
    assert "21:30" in july and "17:30" not in july
    december = ask("十二月几点开门", "zh", unit).splitlines()[1]
    assert "10:00" in december and "21:30" not in december
    winter = ask("冬天几点关门", "zh", unit).splitlines()[1]  # the row says "Winter": a season in either language
    assert "17:30" in winter and "21:30" not in winter


def test_a_length_of_time_names_the_row_whose_days_cover_it() -> None:
    """A new team's summer camp: "cancel 3 weeks before camp" quoted "13 days or less: no refund" (the bare 3 fell
    under 13) where the policy gives half back; "2 months ahead" did too."""
    text = ("退费按取消日期距开营日的天数计算：\n\n| 取消时间 | 退费 |\n|---|---|\n| 开营前30天及以上 | 全额退款，扣除手续费200元 |\n"
            "| 开营前14–29天 | 退还50%营费 |\n| 开营前13天以内 | 不退款，可转到其他周次 |\n")
    unit = [source(1, "退费", text, ["refunds"], lang="zh")]
    weeks = ask("if we cancel 3 weeks before camp do we get our money back", "en", unit).splitlines()[1]
    assert "50%" in weeks and "不退款" not in weeks
    months = ask("whats the refund if we cancel 2 months ahead", "en", unit).splitlines()[1]
    assert "200" in months and "不退款" not in months
    week = ask("开营前一周取消还能退吗", "zh", unit).splitlines()[1]
    assert "不退款" in week and "50%" not in week


def test_a_number_of_the_question_counts_only_in_the_row_the_question_names() -> None:
    """A new team's charging network: "is riverside park and ride open 24 hours" quoted the library hub's "24/7" row
    before Riverside's own 05:00–01:00: the other station's number is not the one asked about."""
    text = ("Stations:\n\n| station | opening hours |\n|---|---|\n| Central Library Hub | 24/7 |\n"
            "| Riverside Park & Ride | 05:00–01:00 |\n")
    first = ask("is riverside park and ride open 24 hours", "en", [source(1, "Stations", text, ["map"])]).splitlines()[1]
    assert first.index("Riverside Park & Ride") < first.find("Central Library Hub") or "Central Library Hub" not in first


def test_the_rows_of_a_table_of_ranges_between_two_quoted_rows_are_quoted_too() -> None:
    """A new team's driving school: "is there a fee if I cancel" quoted the rows "24 hours or more — free" and "under 12
    hours — full fee", and not "12–24 hours — ¥50" between them; a table of things keeps to the rows asked."""
    text = ("Cancellation fee, by how long before the lesson you cancel:\n\n| hours before the lesson | fee |\n|---|---|\n"
            "| 24 hours or more | free |\n| 12–24 hours | ¥50 |\n| under 12 hours or no-show | full lesson fee |\n")
    answer = ask("is there a fee if I cancel a lesson?", "en", [source(1, "Cancelling", text, ["rules"])])
    first = answer.splitlines()[1]
    assert "free" in first and "full lesson fee" in first and "¥50" in first
    assert first.index("free") < first.index("¥50") < first.index("full lesson fee")  # in the table's order
    things = ("## Pagoda\n\n| Layer | Adults a day |\n|---|---|\n| Vegetables | 300–500 g |\n| Fruit | 200–350 g |\n"
              "| Salt | < 5 g |")
    both = ask("How many grams of vegetables and salt a day?", "en", [source(1, "Guidelines", things, ["cn"])])
    assert "Fruit" not in both  # rows named by things, not a scale: the one between is not asked


def test_a_row_saying_just_what_a_quoted_row_says_of_the_question_is_another_answer() -> None:
    """A new team's driving school: "how much is the automatic course?" quoted the VIP row ("manual or automatic",
    ¥6,800) and not the Standard row ("automatic (C2)", ¥4,500), which says "automatic" as much; the manual row says
    nothing asked."""
    text = ("SafeRoute offers three course packages.\n\n| package | car | lessons | price |\n|---|---|---|---|\n"
            "| Basic | manual (C1) | 20 hours | ¥3,800 |\n| Standard | automatic (C2) | 24 hours | ¥4,500 |\n"
            "| VIP one-to-one | manual or automatic | 30 hours, pick-up from home | ¥6,800 |\n")
    first = ask("how much is the automatic course?", "en", [source(1, "Course packages", text, ["prices"])]).splitlines()[1]
    assert "¥4,500" in first and "¥6,800" in first and "¥3,800" not in first
