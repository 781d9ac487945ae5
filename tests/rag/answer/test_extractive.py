"""The extractive answer: the spans that state what was asked, best first, each cited from its own source."""

from __future__ import annotations

import re

import pytest

from unitrag.rag.search.broaden import Broadener
from unitrag.rag.answer.citations import check_citations
from unitrag.rag.answer.extractive import BUDGET_CHARS, LEAD, NOTHING, OTHER_LANGUAGE, extractive_answer
from unitrag.rag.answer.focus import Lexicon
from unitrag.rag.types import Source

CITE = re.compile(r'<Cite id="([^"]+)"/>')


def source(n: int, title: str, text: str, ids: list[str], lang: str = "en", topics: list[str] | None = None) -> Source:
    return Source(f"c{n}", f"u{n}", "story", title, text, topics or [], ids, "public", lang)


def cited(answer: str) -> list[str]:
    return CITE.findall(answer)


def lexicon() -> Lexicon:
    """The taxonomy knows iodine, pregnancy and salt in both languages; every term weighs 1."""
    rows = [
        {"id": "iodine", "name_en": "Iodine", "name_zh": "碘", "synonyms_en": [], "synonyms_zh": [], "is_group": False},
        {"id": "pregnancy", "name_en": "Pregnancy", "name_zh": "孕期", "synonyms_en": ["pregnant"],
         "synonyms_zh": ["孕妇"], "is_group": False},
        {"id": "salt", "name_en": "Salt", "name_zh": "盐", "synonyms_en": [], "synonyms_zh": [], "is_group": False},
    ]
    broadener = Broadener.from_rows(rows)
    return Lexicon(None, broadener.topics)


def ask(question: str, lang: str, sources: list[Source], named: tuple[str, ...] = (), **kwargs: object) -> str:
    known = lexicon()
    return extractive_answer(question, lang, sources, focus=(known.focus(question, named), known), **kwargs)  # type: ignore[arg-type]


def test_the_span_that_states_what_was_asked_comes_first_not_the_first_sentence() -> None:
    text = ("Salt has been traded for millennia. Caravans carried it across deserts. "
            "Adults should eat less than 5 g of salt a day. Most of it comes from processed food.")
    answer = ask("How much salt should adults eat a day?", "en", [source(1, "Salt", text, ["who"])])
    assert answer.splitlines()[1].startswith("1. Salt: Adults should eat less than 5 g of salt a day.")
    assert "Caravans" not in answer


def test_a_table_row_with_its_header_answers_a_population_question() -> None:
    text = ("Iodine is needed for thyroid hormones.\n\n## Daily need\n\n| Group | RDA |\n|---|---|\n"
            "| Adults | 150 µg |\n| Pregnancy | 220 µg |\n\nSeaweed is rich in iodine.")
    answer = ask("How much iodine does a pregnant woman need?", "en",
                 [source(1, "Iodine", text, ["iom"], topics=["iodine"])], ("iodine", "pregnancy"))
    first = answer.splitlines()[1]
    assert first.startswith("1. Iodine: Daily need: Pregnancy — RDA: 220 µg")
    assert "Adults" not in first  # the other row of the same table states nothing asked


def test_a_chinese_question_reaches_the_english_span_through_the_topics_names() -> None:
    text = "Iodised salt is cheap. Pregnant women need 220 µg of iodine a day. Seaweed varies a lot."
    answer = ask("孕妇每天需要多少碘？", "zh", [source(1, "Iodine", text, ["iom"], topics=["iodine"])], ("pregnancy", "iodine"))
    assert answer.splitlines()[1] == ("1. " + OTHER_LANGUAGE[("zh", "en")]
                                      + 'Iodine: Pregnant women need 220 µg of iodine a day.<Cite id="iom"/>')


def test_an_item_about_another_topic_is_left_out() -> None:
    sources = [
        source(1, "Iodine in pregnancy", "Pregnant women need 220 µg of iodine a day.", ["a"], topics=["iodine"]),
        source(2, "Salt", "Adults should eat less than 5 g of salt a day.", ["b"], topics=["salt"]),
    ]
    answer = ask("How much iodine in pregnancy?", "en", sources, ("iodine", "pregnancy"))
    assert "salt" not in answer.lower() and cited(answer) == ["a"]


def test_titles_appear_once_and_every_span_is_cited_from_its_own_source() -> None:
    text = ('Pregnant women need 220 µg of iodine a day <Cite id="who"/>. Breastfeeding women need 290 µg of iodine'
            ' a day <Cite id="iom"/>. Seaweed varies.')
    answer = ask("How much iodine do pregnant and breastfeeding women need a day?", "en",
                 [source(1, "Iodine", text, ["who", "iom"], topics=["iodine"])], ("iodine", "pregnancy"))
    assert answer.count("Iodine:") == 1
    assert answer.splitlines()[1] == ('1. Iodine: Pregnant women need 220 µg of iodine a day.<Cite id="who"/> '
                                      'Breastfeeding women need 290 µg of iodine a day.<Cite id="iom"/>')


def test_spans_that_repeat_one_already_quoted_are_dropped() -> None:
    sources = [source(1, "A", "Adults need 150 µg of iodine a day.", ["a"]),
               source(2, "B", "Adults need 150 µg of iodine each day.", ["b"])]
    answer = ask("How much iodine do adults need a day?", "en", sources, ("iodine",))
    assert answer.count("150 µg") == 1


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_answer_stays_within_its_length_budget(lang: str) -> None:
    word = "碘" if lang == "zh" else "iodine "
    sources = [source(n, f"T{n}", (f"第{n}句讲{word * 30}。" if lang == "zh" else f"Fact {n} about {word * 30}."),
                      [f"id{n}"], lang) for n in range(1, 6)]
    answer = ask("碘" if lang == "zh" else "iodine", lang, sources, ("iodine",))
    quoted = CITE.sub("", answer.split("\n", 1)[1])
    assert len(quoted) <= BUDGET_CHARS[lang] + 40 and len(cited(answer)) >= 2


def test_a_question_after_a_frequency_quotes_the_span_saying_how_often() -> None:
    # without a digit, "once a week" stated nothing asked, and the amount lost a month came first
    text = ("A salt level check tells you whether the softener still works. Levels drop by roughly 2 kg a month in a "
            "small household. Check the salt level at least once a week and refill when the tank is half empty.")
    answer = ask("How often should I check the salt level?", "en", [source(1, "Salt", text, ["maker"], topics=["salt"])],
                 ("salt",))
    assert "once a week" in answer and answer.index("once a week") < answer.index("2 kg")


@pytest.mark.parametrize(("text", "often"), [
    ("盐量每周看一次。", True), ("每 2 周换一次水。", True), ("一天两次。", True), ("check before every ride", True),
    ("every 2–3 weeks", True), ("浇水要一次浇透。", False), ("Every tyre loses air.", False), ("after a day or two", False),
])
def test_what_says_how_often(text: str, often: bool) -> None:
    assert lexicon().read(text, "").spans[0].often is often


@pytest.mark.parametrize(("question", "asks"), [
    ("软水机多久检查一次盐量？", True), ("换水频率是多少", True), ("how many times a day?", True), ("多久能到？", False),
])
def test_which_questions_ask_how_often(question: str, asks: bool) -> None:
    assert lexicon().focus(question).asks_often is asks


def test_an_english_source_quoted_for_a_chinese_question_has_the_english_budget() -> None:
    # Counted against the Chinese budget (400 characters), the second sentence, with the upper limit, was left out.
    text = ("Pregnant women need 220 µg of iodine a day, according to the Institute of Medicine, which set the "
            "figure from balance studies, thyroid uptake measurements and the iodine content of newborn thyroid glands "
            "reported across several decades of research in North America and Europe. "
            "In pregnancy the tolerable upper intake of iodine is 1100 µg a day, a ceiling derived from serum "
            "thyrotropin responses observed in adults given graded supplements over weeks, applied unchanged to "
            "expectant mothers because no separate evidence suggested otherwise.")
    answer = ask("孕妇每天需要多少碘？", "zh", [source(1, "Iodine", text, ["iom"], topics=["iodine"])], ("pregnancy", "iodine"))
    assert len(text) > BUDGET_CHARS["zh"] and "220 µg" in answer and "1100 µg" in answer


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_extractive_answer_passes_the_faithfulness_check(lang: str) -> None:
    sources = [
        source(n, f"T{n}", (f"第{n}条资料讲碘。第二句。") if lang == "zh" else (f"Source {n} is about iodine. Two."), [f"id{n}"])
        for n in range(1, 5)
    ]
    whitelist = {cid for s in sources for cid in s.citation_ids}
    answer = ask("碘" if lang == "zh" else "iodine", lang, sources, ("iodine",))
    report = check_citations(answer, whitelist)
    assert report.invalid_ids == [] and len(report.valid_ids) >= 2 and report.score == 1.0
    assert not report.uncited_long_answer


def test_english_answer_cites_all_source_ids_when_the_span_cites_none() -> None:
    sources = [source(1, "Iodised salt", "Iodised salt is the main source of iodine.", ["who2014", "iom2001"])]
    answer = extractive_answer("Where does iodine come from?", "en", sources)
    assert answer.splitlines() == [
        LEAD["en"], '1. Iodised salt: Iodised salt is the main source of iodine.<Cite id="who2014"/><Cite id="iom2001"/>']


def test_a_sentence_is_cited_with_the_tag_that_closes_its_paragraph_not_every_id_of_its_unit() -> None:
    text = ('A cheap repeater halves the speed it relays. A mesh with a backhaul keeps it.<Cite id="ofcom"/>\n\n'
            "Place the router high and central.")
    sources = [source(1, "Mesh or extender", text, ["ofcom", "ieee"])]
    answer = extractive_answer("does a repeater halve the speed", "en", sources)
    assert "halves the speed" in answer and cited(answer) == ["ofcom"]  # ieee backs nothing in that paragraph
    answer = extractive_answer("where should the router go, high and central?", "en", sources)
    # no tag in its paragraph, where the unit cites elsewhere: none (an IT help desk's answer credited NIST with such a
    # sentence); a unit that cites nowhere inline is cited whole (the test above)
    assert "Place the router" in answer and cited(answer) == []


def test_an_inline_id_that_is_not_the_sources_own_is_never_cited() -> None:
    sources = [source(1, "T", 'A claim.<Cite id="stray"/>', ["own"])]
    assert cited(extractive_answer("q?", "en", sources)) == ["own"]


def test_the_whitelist_narrows_the_ids() -> None:
    sources = [source(1, "T", "A claim.", ["kept", "dropped"])]
    assert cited(extractive_answer("q?", "en", sources, allowed={"kept", "elsewhere"})) == ["kept"]


def test_empty_and_duplicate_sources_are_skipped() -> None:
    sources = [source(1, "Empty", "# Only a heading\n", ["x"]), source(2, "Real", "Something useful.", ["y"]),
               source(2, "Real", "Something useful.", ["y"])]
    answer = extractive_answer("something useful", "en", sources)
    assert answer.count("Something useful.") == 1 and cited(answer) == ["y"] and "Empty" not in answer


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_nothing_to_extract_says_so_without_citations(lang: str) -> None:
    assert extractive_answer("q?", lang, []) == NOTHING[lang]
    assert extractive_answer("q?", lang, [source(1, "T", "<Cite id=\"a\"/> ...", ["a"])]) == NOTHING[lang]


def test_a_malformed_source_does_not_raise() -> None:
    no_text = source(1, "T", "", ["a"])
    no_text.text = None  # type: ignore[assignment]
    no_ids = source(2, "T", "Fine text.", ["a"])
    no_ids.citation_ids = None  # type: ignore[assignment]
    good = source(3, "Good", "Good text.", ["b"])
    answer = extractive_answer("good text", "en", [no_text, no_ids, good])
    assert answer.splitlines()[1:] == ['1. Good: Good text.<Cite id="b"/>']


def test_no_stray_space_is_left_where_a_tag_was() -> None:
    for text in ('Kidney impairment raises MMA on its own\n<Cite id="s"/>. Second point.',
                 'Kidney impairment raises MMA on its own <Cite id="s"/><Cite id="t"/>. Second point.'):
        answer = extractive_answer("kidney MMA", "en", [source(1, "T", text, ["s", "t"])])
        assert " ." not in answer and "Kidney impairment raises MMA on its own." in answer


def test_only_canonical_tags_of_the_sources_own_ids_reach_the_answer() -> None:
    text = 'A fact.&lt;Cite id=&quot;own&quot;/&gt; Another <Cite id="own" page="2"/> fact. ＜Cite id="x"／＞'
    answer = extractive_answer("fact", "en", [source(1, "T", text, ["own"])])
    report = check_citations(answer, {"own"})
    assert (report.valid_ids, report.invalid_ids) == (["own"], [])
    assert "&lt;" not in answer and "page=" not in answer and "＜" not in answer


def test_the_units_quoted_are_those_the_answer_rests_on_not_those_sharing_its_citation() -> None:
    from unitrag.rag.answer.extractive import extractive_quotes
    from unitrag.rag.results import Answer

    sources = [
        source(1, "Iodine in pregnancy", "Pregnant women need 220 µg of iodine a day.", ["who"], topics=["iodine"]),
        source(2, "Salt", "Adults should eat less than 5 g of salt a day.", ["who"], topics=["salt"]),  # same guideline
    ]
    known = lexicon()
    question = "How much iodine in pregnancy?"
    text, units = extractive_quotes(question, "en", sources, focus=(known.focus(question, ("iodine", "pregnancy")), known))
    assert units == ["u1"] and cited(text) == ["who"]
    from unitrag.rag.answer.citations import check_citations

    report = check_citations(text, {"who"})
    extractive = Answer(question, "en", text, False, None, sources, [], report, extractive=True, quoted_units=units)
    assert extractive.cited_units == ["u1"] and extractive.to_dict()["cited_units"] == ["u1"]


@pytest.mark.parametrize("question", ["借的书能借多長時間？", "借的书能借多长时间？", "這些書有哪些？"])
def test_a_question_in_traditional_characters_asks_what_the_simplified_one_asks(question):
    focus = lexicon().focus(question)
    simplified = lexicon().focus(question.replace("長時間", "长时间").replace("這些書", "这些书"))
    assert (focus.asks_amount, focus.asks_list) == (simplified.asks_amount, simplified.asks_list)
    assert focus.asks_amount or focus.asks_list


def test_a_number_asked_as_a_digit_finds_the_row_that_writes_it_as_a_word_and_back() -> None:
    text = ("## Iron settings\n\n| Setting | Temperature |\n|---|---|\n| One dot | 110 °C, synthetics |\n"
            "| Two dots | 150 °C, wool and silk |\n| Three dots | 200 °C, cotton and linen |")
    answer = ask("What temperature is 2 dots on the iron?", "en", [source(1, "Ironing", text, ["care"])])
    assert answer.splitlines()[1].startswith("1. Ironing: Iron settings: Two dots — Temperature: 150 °C")
    digits = text.replace("One dot", "1 dot").replace("Two dots", "2 dots").replace("Three dots", "3 dots")
    answer = ask("What temperature is two dots on the iron?", "en", [source(1, "Ironing", digits, ["care"])])
    assert answer.splitlines()[1].startswith("1. Ironing: Iron settings: 2 dots — Temperature: 150 °C")


def test_chinese_number_words_and_digits_match_both_ways() -> None:
    text = "| 档位 | 温度 |\n|---|---|\n| 一点 | 110度，化纤 |\n| 两点 | 150度，羊毛、丝绸 |\n| 三点 | 200度，棉、麻 |"
    answer = ask("熨斗2点是多少度？", "zh", [source(1, "熨烫", text, ["care"], lang="zh")])
    assert answer.splitlines()[1].startswith("1. 熨烫：两点 — 温度: 150度")
    digits = text.replace("一点", "1点").replace("两点", "2点").replace("三点", "3点")
    answer = ask("熨斗两点是多少度？", "zh", [source(1, "熨烫", digits, ["care"], lang="zh")])
    assert answer.splitlines()[1].startswith("1. 熨烫：2点 — 温度: 150度")


def test_number_words_are_numbers_but_a_pronoun_or_a_little_is_not() -> None:
    from unitrag.rag.answer.focus import numbers_in

    assert numbers_in("Two dots, twelve minutes") == {"2", "12"}
    assert numbers_in("两个点，洗三次，第五步，十二次") == {"2", "3", "5", "12"}
    assert numbers_in("Which one is best? One of them.") == set()
    assert numbers_in("多放一点，一些，统一，十分重要，二氧化碳，下一步，进一步，同一天") == set()
    assert numbers_in("每天2次，维生素B12") == {"2"}


def test_a_context_is_shown_once_in_a_line_and_its_spans_sit_together() -> None:
    text = ("## Hand washing a wool jumper\n\n- Use cool water and a wool wash.\n\n## Why wool shrinks\n\n"
            "Hot water and rubbing make a wool jumper shrink.\n\n## Hand washing a wool jumper\n\n- Dry the jumper flat.")
    answer = ask("Which water and wash do I use to hand wash a wool jumper, why does it shrink, how do I dry it?", "en",
                 [source(1, "Wool", text, ["iwto"])])
    line = answer.splitlines()[1]
    assert line.count("Hand washing a wool jumper") == 1, line
    assert "Hand washing a wool jumper: Use cool water and a wool wash. Dry the jumper flat. Hot water" in line


def test_at_most_two_units_are_quoted_however_many_say_the_questions_words() -> None:
    sources = [source(1, "Blood stains", "Rinse a blood stain with cold water; hot water sets it.", ["a"]),
               source(2, "Ink stains", "Dab an ink stain with alcohol, then rinse it in cold water.", ["b"]),
               source(3, "Rust stains", "Rub a rust stain with salt and lemon, then rinse it in cold water.", ["c"])]
    answer = extractive_answer("blood stain: cold water or hot water?", "en", sources)
    assert "Blood stains" in answer.splitlines()[1] and len(answer.splitlines()) == 3  # the lead line and two units
    assert "Rust stains" not in answer and set(cited(answer)) == {"a", "b"}


def test_a_sentence_that_points_back_is_quoted_after_the_sentence_it_points_to() -> None:
    text = ("Store beans in an opaque, airtight tin. Roasted coffee keeps releasing carbon dioxide for weeks. "
            "That is why good coffee bags have a one-way valve. Grind just before brewing.")
    answer = ask("what is the one-way valve on coffee bags for?", "en", [source(1, "Storing beans", text, ["nca"])])
    line = answer.splitlines()[1]
    assert "Roasted coffee keeps releasing carbon dioxide for weeks. That is why good coffee bags have a one-way valve." in line
    assert "airtight tin" not in line  # only the sentence it leans on comes with it


def test_a_sentence_that_points_back_is_quoted_alone_when_both_do_not_fit() -> None:
    filler = "Dark roasts taste of chocolate and smoke and caramel and toast " * 16
    text = (f"Roasted coffee keeps releasing carbon dioxide. {filler}. That is why coffee bags have a one-way valve. "
            "A coffee valve bag should be squeezed flat and clipped.")
    answer = ask("coffee bags one-way valve: what for, and squeezed flat?", "en", [source(1, "Storing beans", text, ["nca"])])
    assert "That is why coffee bags have a one-way valve." in answer and "squeezed flat" in answer
    assert "chocolate" not in answer  # the sentence it leans on would take the whole budget


def test_in_a_unit_on_one_topic_the_span_naming_what_was_asked_beats_the_one_repeating_the_topic() -> None:
    """"虎尾兰多久浇一次水？" of a watering table: the row naming the plant, not the row that says "watering" again."""
    text = "Salt for adults: under 5 g a day.\n\nChildren aged 4 to 6: under 3 g a day."
    sources = [source(1, "Limits", text, ["who"], topics=["salt"])]
    answer = ask("how much for children aged 4 to 6?", "en", sources, ("salt",))
    assert answer.splitlines()[1].startswith("1. Limits: Children aged 4 to 6: under 3 g a day.")
    # a unit on three topics: a span naming the asked one still counts for more than its neighbours
    three = [source(1, "Limits", text, ["who"], topics=["salt", "iodine", "pregnancy"])]
    # ("how much" is no term to find: asked so, the children's line comes first here too)
    assert ask("how many grams for children aged 4 to 6?", "en", three, ("salt",)).splitlines()[1].startswith("1. Limits: Salt")


def test_a_paragraphs_bold_label_is_said_once_before_its_quoted_sentences() -> None:
    """The label often names what its sentences state (the trial's name): said as a label, never as a sentence."""
    text = "**MRC vitamin study (1991).** It enrolled women in seven countries. Folic acid cut defects by 72%."
    answer = extractive_answer("Which women did the MRC study enrol, and what did folic acid cut?", "en",
                               [source(1, "Folic acid trials", text, ["mrc"])])
    line = answer.splitlines()[1]
    assert line.startswith("1. Folic acid trials: MRC vitamin study (1991): It enrolled women in seven countries.")
    assert line.count("MRC vitamin study") == 1 and "72%" in line and "(1991). It" not in line


@pytest.mark.parametrize(("question", "amount", "listed"), [
    ("b12 dose?", True, False),  # a reader's two words: the dose is a quantity
    ("vitamin d dosage for adults", True, False),
    ("what foods have a lot of potassium", False, True),
    ("what vegetables are high in iron?", False, True),
    ("what does b12 do?", False, False),
    ("what is ferritin?", False, False),
    ("what causes anemia", False, False),
])


def test_a_question_asks_for_a_quantity_or_a_list_in_few_words(question: str, amount: bool, listed: bool) -> None:
    focus = Lexicon().focus(question)
    assert (focus.asks_amount, focus.asks_list) == (amount, listed)


@pytest.mark.parametrize(("sentence", "quantity"), [
    ("The RDA for adults is 2.4 µg per day.", True),
    ("成人每天需要2.4微克。", True),
    ("About 40% of it is absorbed.", True),
    ("Seaweeds may contain B12 analogues that do not work in humans.", False),  # a vitamin's name, not an amount
    ("海藻中的B12类似物没有活性。", False),
    ("Vitamin D3 drops are common.", False),
])


def test_a_number_in_a_things_name_is_no_quantity(sentence: str, quantity: bool) -> None:
    [reading] = Lexicon().read(sentence, "").spans
    assert reading.quantity is quantity


def test_how_much_is_answered_by_the_amount_not_by_the_sentence_naming_the_vitamin() -> None:
    rows = [{"id": "vitamin-b12", "name_en": "Vitamin B12", "name_zh": "维生素B12", "synonyms_en": ["B12"],
             "synonyms_zh": [], "is_group": False}]
    known = Lexicon(None, Broadener.from_rows(rows).topics)
    text = ("Seaweeds such as nori may contain B12 analogues that lab assays detect. "
            "The US RDA for adults is 2.4 µg per day.")
    question = "How much vitamin B12 do adults need per day?"
    sources = [source(1, "Food sources", text, ["ods"], topics=["vitamin-b12", "vegan-diet"])]
    answer = extractive_answer(question, "en", sources, focus=(known.focus(question, ("vitamin-b12",)), known))
    assert answer.splitlines()[1].startswith("1. Food sources: The US RDA for adults is 2.4 µg per day.")


def test_when_is_answered_by_the_sentence_naming_a_time_of_day() -> None:
    """A new team's "When during the day should I wash my solar panels?" never quoted "early in the morning"."""
    text = ("Rain washes off ordinary dust from the panels. Clean panels early in the morning or in the evening, "
            "when the glass is cool. Use a soft brush and plain water on the panels.")
    answer = ask("When during the day should I clean my solar panels?", "en", [source(1, "Panel care", text, ["own"])])
    assert answer.splitlines()[1].startswith("1. Panel care: Clean panels early in the morning or in the evening")
    assert Lexicon().focus("when should i water it?").asks_time and not Lexicon().focus("what to do when it leaks").asks_time


def test_a_sentence_two_chunks_of_a_unit_share_is_quoted_once() -> None:
    """Two chunks of one unit overlap by a sentence: a reader got "这类机器按说明书用清洁片和清洁程序。" twice in a line."""
    first = Source("c1", "u1", "scene", "Cleaning", "No three-way valve means no backflushing, so these machines use "
                   "cleaning tablets as the manual says.<Cite id=\"manual\"/>", [], ["manual"], "public", "en")
    second = Source("c2", "u1", "scene", "Cleaning", "These machines use cleaning tablets as the manual says.<Cite id=\"manual\"/>"
                    " Backflush weekly with a blind basket.<Cite id=\"manual\"/>", [], ["manual"], "public", "en")
    answer = ask("how often to backflush with cleaning tablets", "en", [first, second])
    assert answer.count("use cleaning tablets as the manual says") == 1, answer


def test_how_much_asks_for_an_amount_and_is_no_word_to_find() -> None:
    """A new team's "how much is a 6 person tent for 1 day": the deposits unit, titled "Deposits: how much, and when
    you get them back", was quoted before the price row, on the word "much" (rare in the text, so weighed high)."""
    sources = [source(1, "Tent rental prices", "6-person Kingdom 6 — per day: $42; weekend: $105.", ["prices"]),
               source(2, "Deposits: how much, and when you get them back",
                      "The deposit is $200 for the 6-person tent, refunded on return.", ["agreement"])]
    question = "how much is a 6 person tent for 1 day"
    focus = Lexicon().focus(question)
    assert focus.asks_amount and not {"much", "mani"} & set(focus.terms)
    assert ask(question, "en", sources).splitlines()[1].startswith("1. Tent rental prices: 6-person Kingdom 6 — per day: $42")


def test_a_topic_one_span_of_a_source_names_is_the_sources_for_its_other_spans() -> None:
    """A park's permit unit, not tagged camping, says 露营 in two sentences: its own question "在野外露营一晚的许可证多少钱？"
    quoted those for the topic, not the one stating the fee (6美元), which does not say the word."""
    from unitrag.rag.answer.extractive import candidates

    known = lexicon()
    question = "How much iodine should a pregnant woman take?"
    focus = known.focus(question, ("iodine", "pregnancy"))
    fee = "The daily amount is 220 µg."

    def relevance_of_fee(text: str) -> float:
        quotes = candidates(focus, [source(1, "Iodine", text, ["iom"], topics=["iodine", "salt"])], known)
        return next(q.relevance for q in quotes if q.span.text.startswith(fee))

    naming = relevance_of_fee(f"Pregnant women are screened at the first visit. {fee}")
    silent = relevance_of_fee(f"Adults are screened at the first visit. {fee}")
    assert naming > silent
