"""Answer spans: sentences, list items and table rows of a source's Markdown, each with what it sits under."""

from __future__ import annotations

import pytest

from unitrag.rag.answer.spans import spans, split_sentences


def shown(text: str, title: str = "") -> list[tuple[str, str, str]]:
    return [(s.kind, s.context, s.words) for s in spans(text, title)]


def test_a_table_row_is_rendered_with_its_header_and_the_heading_above() -> None:
    text = ("## Daily need\n\n| Group | RDA | Upper limit |\n| --- | :---: | --- |\n"
            "| Adults 19–50 | 1,000 mg | 2,500 mg |\n| Pregnancy | 1,000 mg |  |\n")
    assert shown(text) == [
        ("row", "Daily need", "Adults 19–50 — RDA: 1,000 mg; Upper limit: 2,500 mg"),
        ("row", "Daily need", "Pregnancy — RDA: 1,000 mg"),
    ]


def test_a_chinese_table_keeps_its_cells() -> None:
    text = "| 人群 | 推荐量 |\n|---|---|\n| 孕妇 | 230微克 |"
    assert shown(text) == [("row", "", "孕妇 — 推荐量: 230微克")]


def test_list_items_are_spans_under_their_lead_in_line() -> None:
    text = ("Call for help when:\n\n- the reading is 180 or more,\n  with chest pain\n"
            "- you feel faint\n\nAfter that, rest.")
    assert shown(text) == [
        ("item", "Call for help when", "the reading is 180 or more, with chest pain"),
        ("item", "Call for help when", "you feel faint"),
        ("sentence", "", "After that, rest."),
    ]


def test_a_long_item_is_split_into_sentences_and_a_numbered_item_is_an_item() -> None:
    long_item = "1. " + "First claim is long enough to matter here. " * 9 + "Last claim."
    found = shown(long_item)
    assert len(found) == 10 and {k for k, _, _ in found} == {"item"} and found[-1][2] == "Last claim."


def test_wrapped_prose_is_joined_and_split_into_sentences_with_their_citations() -> None:
    text = 'Stomach acid frees B12\nfrom food <Cite id="nih"/>. It then binds\nintrinsic factor.'
    found = spans(text)
    assert [s.words for s in found] == ["Stomach acid frees B12 from food.", "It then binds intrinsic factor."]
    # the sentence after the paragraph's last tag is the same source's (a new team's timetable quoted it uncited)
    assert found[0].cited == ("nih",) and found[1].cited == ("nih",)
    other = spans('Fares rose in July <Cite id="fares"/>. Ferries run every 20 minutes.\n\nPiers close at 01:00.')
    assert [s.cited for s in other] == [("fares",), ("fares",), ()]  # a paragraph that cites nowhere stays uncited


def test_the_title_line_a_story_starts_with_is_not_a_span_nor_a_heading_a_context() -> None:
    text = "Omega-3 fats and the heart\nEating fish twice a week is linked to fewer cardiac deaths."
    assert shown(text, "Omega-3 fats and the heart") == [
        ("sentence", "", "Eating fish twice a week is linked to fewer cardiac deaths.")]
    assert shown("# Iodine\n\nNeeded for the thyroid.", "Iodine") == [("sentence", "", "Needed for the thyroid.")]


def test_bold_lines_head_what_follows_but_a_long_bold_sentence_is_a_sentence() -> None:
    assert shown("**Safety:**\nRare reactions occur.") == [("sentence", "Safety", "Rare reactions occur.")]
    assert shown("**安全性。**\n静脉铁偶见过敏反应。") == [("sentence", "安全性", "静脉铁偶见过敏反应。")]
    long_bold = "**Do not stop treatment without asking the doctor who prescribed it.**"
    assert shown(long_bold) == [("sentence", "", "Do not stop treatment without asking the doctor who prescribed it.")]


def test_a_bold_phrase_opening_a_paragraph_labels_its_first_sentence_and_is_no_sentence_of_its_own() -> None:
    """A reader saw "…每天3–4次。维生素B6与孕吐。恶心呕吐是…": the lead-in quoted as if it were a sentence."""
    found = spans("**维生素B6与孕吐。**恶心呕吐是孕早期最常见的不适。多数人在孕中期缓解。\n\n下一段。")
    assert [(s.context, s.words, s.labelled) for s in found] == [
        ("维生素B6与孕吐", "恶心呕吐是孕早期最常见的不适。", True),  # its first sentence, as written
        ("", "多数人在孕中期缓解。", False),
        ("", "下一段。", False)]
    assert shown("**Omega-3 and LDL.** High-dose DHA can raise LDL slightly.") == [
        ("sentence", "Omega-3 and LDL", "High-dose DHA can raise LDL slightly.")]
    assert shown("**Safety**: rare reactions occur.") == [("sentence", "Safety", "rare reactions occur.")]
    # bold inside a sentence, a bold subject, or a long bold sentence opening one, stays the sentence's own words
    assert shown("Take it **with food** every day.") == [("sentence", "", "Take it with food every day.")]
    assert shown("**Serum B12** is the usual first test.") == [("sentence", "", "Serum B12 is the usual first test.")]
    long_bold = "**Do not stop treatment without asking the doctor who prescribed it.** Then rest."
    assert shown(long_bold)[0][:2] == ("sentence", "")


def test_chinese_wrapped_lines_join_without_a_space() -> None:
    assert shown("孕妇每天需要\n碘230微克。碘盐是主要来源。") == [
        ("sentence", "", "孕妇每天需要碘230微克。"), ("sentence", "", "碘盐是主要来源。")]


def test_other_tags_and_links_go_and_quotes_are_read_as_text() -> None:
    text = '> See [the label guide](http://x) <b>now</b>.<Cite id="fda"/>'
    found = spans(text)
    assert [s.words for s in found] == ["See the label guide now."] and found[0].cited == ("fda",)


def test_sentences_keep_abbreviations_and_decimals_whole() -> None:
    assert split_sentences("Take 2.5 mg daily, e.g. with food. Dr. Smith agrees! Is it safe? Yes.") == [
        "Take 2.5 mg daily, e.g. with food.", "Dr. Smith agrees!", "Is it safe?", "Yes."]
    assert split_sentences("孕妇每天需要碘。这比普通成人多！真的吗？“是的。”最后一句没有句号") == [
        "孕妇每天需要碘。", "这比普通成人多！", "真的吗？", "“是的。”", "最后一句没有句号"]


def test_a_botanical_or_a_measuring_abbreviation_ends_no_sentence() -> None:
    """A reader's answer quoted "Products containing Bacillus thuringiensis subsp." and lost the Bti fact. A word in lower
    case after a full stop still starts one: questions are typed so, and the guard splits them with this."""
    assert split_sentences("Products with Bacillus thuringiensis subsp. *israelensis* (Bti) kill larvae. Repeat weekly.") == [
        "Products with Bacillus thuringiensis subsp. *israelensis* (Bti) kill larvae.", "Repeat weekly."]
    assert split_sentences("Smith et al. Found it first. Use approx. 5 g.") == ["Smith et al. Found it first.", "Use approx. 5 g."]
    assert split_sentences("the socket is smoking right now. why?") == ["the socket is smoking right now.", "why?"]


def test_nothing_but_headings_and_tags_gives_no_span() -> None:
    assert spans('# Heading\n\n<Cite id="a"/> ...\n\n| a | b |\n|---|---|\n') == []


def test_a_question_the_text_asks_itself_is_not_a_span_but_heads_its_answer() -> None:
    assert shown("How much is enough? Adults need 150 µg a day.") == [
        ("sentence", "How much is enough?", "Adults need 150 µg a day.")]
    assert shown("## 碘\n\n甲状腺疾病患者怎样吃碘？应在医生指导下限碘。") == [
        ("sentence", "甲状腺疾病患者怎样吃碘？", "应在医生指导下限碘。")]


def test_items_know_their_list_and_a_numbered_item_its_number_as_rendered() -> None:
    text = ("Steps:\n\n1. Fill a basin.\n1. Soak it.\n   - gently\n   - briefly\n\n1. Roll it in a towel.\n\n"
            "Then dry it.\n\n3. Another list.\n- A bullet.")
    found = [(s.words, s.list_no, s.ordinal) for s in spans(text)]
    assert found == [("Fill a basin.", 1, 1), ("Soak it.", 1, 2), ("gently", 2, 0), ("briefly", 2, 0),
                     ("Roll it in a towel.", 1, 3), ("Then dry it.", 0, 0), ("Another list.", 3, 3), ("A bullet.", 4, 0)]
    assert [(s.list_no, s.ordinal) for s in spans("1、加水。\n2、浸泡。")] == [(1, 1), (1, 2)]


def test_a_sentence_that_points_back_knows_the_one_before_it_in_its_paragraph_only() -> None:
    found = spans("Roasted beans release carbon dioxide for weeks. That is why bags have a valve.\n\n"
                  "That valve is one-way. Beans keep in a cool cupboard.\n\n"
                  "新烘的豆子会持续释放二氧化碳。因此包装袋上有单向阀。")
    by_words = {s.words: s for s in found}
    assert by_words["That is why bags have a valve."].leans_on == by_words["Roasted beans release carbon dioxide for weeks."].position
    assert by_words["That valve is one-way."].leans_on == -1  # it opens its paragraph: nothing before it to lean on
    assert by_words["Beans keep in a cool cupboard."].leans_on == -1
    assert by_words["因此包装袋上有单向阀。"].leans_on == by_words["新烘的豆子会持续释放二氧化碳。"].position


def test_a_bold_label_with_its_full_stop_outside_labels_its_sentence() -> None:
    """A reader saw "…亮度。两种单位。" and "异响和油污。：碟片…": a label quoted as a sentence, a heading's full stop kept."""
    found = spans("**两种单位**。尺烛光是英美资料常用的照度单位。\n\n**异响和油污。**\n\n碟片沾上油会尖叫。")
    assert [(s.context, s.words) for s in found] == [("两种单位", "尺烛光是英美资料常用的照度单位。"),
                                                      ("异响和油污", "碟片沾上油会尖叫。")]


def test_an_extension_or_phone_abbreviation_ends_no_sentence() -> None:
    """A new team's escalation procedure was quoted "… duty officer on ext." after "4410 when a caller …"."""
    assert split_sentences("Call the duty officer on ext. 4410 when a caller is locked out. Tel. 555-0100 at night.") == [
        "Call the duty officer on ext. 4410 when a caller is locked out.", "Tel. 555-0100 at night."]


@pytest.mark.parametrize(("text", "leaning", "leaned_on"), [
    # "The same applies when the home becomes uninhabitable" meant: no break fee; quoted alone it meant nothing
    ("Without a fee a tenant can leave at once. No other compensation can be claimed. The same applies when the home "
     "becomes uninhabitable.", "The same applies when the home becomes uninhabitable.",
     "No other compensation can be claimed."),
    ("在通知期内可以退租。同样适用于房屋无法居住的情况。", "同样适用于房屋无法居住的情况。", "在通知期内可以退租。"),
    # a reader's gear shop (stop 53): the late fee was quoted without the grace period it follows
    ("Every return has a 60-minute grace period. After that, the late fee is $10 per hour.",
     "After that, the late fee is $10 per hour.", "Every return has a 60-minute grace period."),
    ("每件行李可免费托运20公斤。超出部分每公斤收费10元。", "超出部分每公斤收费10元。", "每件行李可免费托运20公斤。"),
    # a park's (stop 55): the kiosk for the hours the gates are not staffed, and the wheelchairs to reserve
    ("The gates are staffed from 7:00 to 19:00. Outside those hours, pay at the kiosk.",
     "Outside those hours, pay at the kiosk.", "The gates are staffed from 7:00 to 19:00."),
    ("The centre lends two beach wheelchairs. Reserve them 48 hours ahead.", "Reserve them 48 hours ahead.",
     "The centre lends two beach wheelchairs."),
])
def test_the_same_likewise_or_a_limit_set_before_points_back(text: str, leaning: str, leaned_on: str) -> None:
    by_words = {s.words: s for s in spans(text)}
    assert by_words[leaning].leans_on == by_words[leaned_on].position


def test_an_uncited_item_takes_the_citation_of_the_nearest_cited_item_of_its_list_not_every_id_of_its_unit() -> None:
    """A reader's heater answer: "加热棒功率：每升约 1 瓦" has no tag of its own; the item above it cites the heater
    guide, and the answer showed the white-spot paper (the unit's first id) as its source."""
    found = spans("## 怎么办\n\n1. 每天核对水温 <Cite id=\"heater-guide\"/>。\n2. 加热棒功率：每升约 1 瓦。\n\n"
                  "白点病常在水温变化时暴发 <Cite id=\"white-spot\"/>。\n\n| 鱼 | 温度 |\n|---|---|\n| 孔雀鱼 | 24 |")
    by_words = {s.words: s for s in found}
    assert by_words["加热棒功率：每升约 1 瓦。"].cited == ("heater-guide",)
    # nothing in its table cites: the paragraph right before it, which introduces it, backs it
    assert all(s.cited == ("white-spot",) for s in found if s.kind == "row")
    unheaded = spans("Prose under no heading with no tag.\n\nAnother paragraph.<Cite id=\"a\"/>")
    assert unheaded[0].cited == ()  # no list, table or heading to share: every id of its unit, as before


def test_a_list_or_table_that_cites_nowhere_is_backed_by_the_paragraph_that_introduces_it() -> None:
    """A new team's stuck-cable steps, cited in their lead-in ("按以下步骤操作 <Cite/>："), were shown with no source but
    the refund policy of a later sentence; its price table, after "Prices include tax <Cite/>.", with none at all."""
    steps = spans("充电枪拔不出来时，请按以下步骤操作 <Cite id=\"handbook\"/>：\n\n1. 先结束充电。\n2. 等待30秒。\n\n"
                  "切勿用力拉拽。占位费会全额退还 <Cite id=\"refunds\"/>。")
    assert [s.cited for s in steps] == [("handbook",), ("handbook",), ("refunds",), ("refunds",)]
    table = spans("Prices include tax <Cite id=\"prices\"/>.\n\n| type | price |\n|---|---|\n| AC | $0.34 |\n\n"
                  "The idle fee is capped at $40.")
    assert [s.cited for s in table] == [("prices",), ("prices",), ()]  # the paragraph after it cites nowhere: left so
    own = spans("Intro.\n\n1. First <Cite id=\"b\"/>.\n2. Second.")
    assert [s.cited for s in own] == [(), ("b",), ("b",)]  # a list cited inside is cited as it says


def test_a_citing_lead_in_backs_its_steps_before_a_step_citing_its_own_source() -> None:
    """A new team's lost-card steps, "If you lose your access card <Cite rules/>:", were all shown citing the price
    list its fourth step cites for the replacement fee."""
    steps = spans("If you lose your access card <Cite id=\"rules\"/>:\n1. Report it.\n2. It is blocked.\n"
                  "3. Pay the fee of 100 RMB <Cite id=\"prices\"/>.\n4. Hand in the old one if found.")
    assert [s.cited for s in steps] == [("rules",), ("rules",), ("prices",), ("rules",)]
    told = spans("Most cards last years <Cite id=\"rules\"/>.\n\n1. Report it.\n2. Pay 100 RMB <Cite id=\"prices\"/>.")
    assert [s.cited for s in told] == [("rules",), ("prices",), ("prices",)]  # a sentence without a lead-in: its own
    apart = spans("Intro <Cite id=\"a\"/>.\n\n## Prices\n\n| type | price |\n|---|---|\n| AC | $0.34 |")
    assert [s.cited for s in apart] == [("a",), ()]  # under a heading of its own, nothing introduces it


def test_a_sentence_that_names_a_thing_it_is_not_about_leans_on_nothing() -> None:
    assert all(s.leans_on == -1 for s in spans("Bikes are free. Park it is a sign near the gate. Keep left."))
