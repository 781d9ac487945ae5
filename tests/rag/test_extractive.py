"""The extractive answer: lead line, top sources' first sentences, citations from the sources only."""

from __future__ import annotations

import re

import pytest

from unitrag.rag.citations import check_citations
from unitrag.rag.extractive import LEAD, NOTHING, extractive_answer, snippet, split_sentences
from unitrag.rag.types import Source

CITE = re.compile(r'<Cite id="([^"]+)"/>')


def source(n: int, title: str, text: str, ids: list[str], lang: str = "en") -> Source:
    return Source(f"c{n}", f"u{n}", "article", title, text, [], ids, "public", lang)


def cited(answer: str) -> list[str]:
    return CITE.findall(answer)


def test_chinese_sentences_split_on_chinese_punctuation() -> None:
    text = "孕妇每天需要碘。这比普通成人多！真的吗？“是的。”最后一句没有句号"
    assert split_sentences(text) == ["孕妇每天需要碘。", "这比普通成人多！", "真的吗？", "“是的。”", "最后一句没有句号"]


def test_english_sentences_keep_abbreviations_and_decimals_whole() -> None:
    text = "Take 2.5 mg daily, e.g. with food. Dr. Smith agrees! Is it safe? Yes."
    assert split_sentences(text) == ["Take 2.5 mg daily, e.g. with food.", "Dr. Smith agrees!", "Is it safe?", "Yes."]


def test_a_citation_after_the_full_stop_belongs_to_the_sentence_before() -> None:
    assert split_sentences('First fact.<Cite id="a"/> Second fact. <Cite id="b"/>') == [
        'First fact.<Cite id="a"/>',
        'Second fact.<Cite id="b"/>',
    ]
    assert split_sentences('第一句。<Cite id="a"/>第二句。') == ['第一句。<Cite id="a"/>', "第二句。"]


def test_snippet_drops_headings_markdown_and_tags_and_reports_inline_ids() -> None:
    text = '# Iodine\n\n- **Adults** need [150 µg](http://x) a day.<Cite id="iom"/>\n- Seaweed <b>is</b> rich. More.'
    shown, ids = snippet(text, "en")
    assert shown == "Adults need 150 µg a day. Seaweed is rich."
    assert ids == ["iom"]


def test_a_long_first_sentence_stands_alone_and_is_shortened() -> None:
    long = "Iodine " + "is essential for thyroid hormones and growth " * 20 + "in children. Second sentence."
    shown, _ = snippet(long, "en")
    assert shown.endswith("…") and "Second sentence" not in shown and len(shown) <= 401


def test_chinese_answer_has_lead_titles_first_sentences_and_source_ids() -> None:
    sources = [
        source(1, "孕期碘需求", '## 孕期碘需求\n孕妇每天需要 230 微克碘<Cite id="who2020"/>。这比普通成人多。第三句不该出现。', ["who2020", "cn2022"], "zh"),
        source(2, "加碘盐", "加碘盐是碘的主要来源。", ["cn2022"], "zh"),
    ]
    answer = extractive_answer("孕妇每天需要多少碘？", "zh", sources)
    lines = answer.splitlines()
    assert lines[0] == LEAD["zh"] == "根据知识库资料："
    assert lines[1] == '1. 孕期碘需求：孕妇每天需要 230 微克碘。这比普通成人多。<Cite id="who2020"/>'
    assert lines[2] == '2. 加碘盐：加碘盐是碘的主要来源。<Cite id="cn2022"/>'
    assert "第三句" not in answer


def test_english_answer_cites_all_source_ids_when_the_sentences_cite_none() -> None:
    sources = [source(1, "Iodised salt", "Iodised salt is the main source. It is cheap. It is everywhere.", ["who2014", "iom2001"])]
    answer = extractive_answer("Where does iodine come from?", "en", sources)
    assert answer.splitlines() == [
        LEAD["en"],
        '1. Iodised salt: Iodised salt is the main source. It is cheap.<Cite id="who2014"/><Cite id="iom2001"/>',
    ]


def test_only_the_top_three_sources_and_only_their_ids() -> None:
    sources = [source(n, f"Title {n}", f"Fact number {n}.", [f"id{n}"]) for n in range(1, 6)]
    answer = extractive_answer("q?", "en", sources)
    assert cited(answer) == ["id1", "id2", "id3"]
    assert "Title 4" not in answer


def test_an_inline_id_that_is_not_the_sources_own_is_never_cited() -> None:
    sources = [source(1, "T", 'A claim.<Cite id="stray"/>', ["own"])]
    assert cited(extractive_answer("q?", "en", sources)) == ["own"]


def test_the_whitelist_narrows_the_ids() -> None:
    sources = [source(1, "T", "A claim.", ["kept", "dropped"])]
    assert cited(extractive_answer("q?", "en", sources, allowed={"kept", "elsewhere"})) == ["kept"]


def test_empty_and_duplicate_sources_are_skipped() -> None:
    sources = [
        source(1, "Empty", "# Only a heading\n", ["x"]),
        source(2, "Real", "Something useful.", ["y"]),
        source(2, "Real", "Something useful.", ["y"]),
    ]
    answer = extractive_answer("q?", "en", sources)
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
    answer = extractive_answer("q?", "en", [no_text, no_ids, good])
    assert answer.splitlines()[1:] == ['1. Good: Good text.<Cite id="b"/>']


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_extractive_answer_passes_the_faithfulness_check(lang: str) -> None:
    sources = [
        source(n, f"T{n}", (f"第{n}条资料的第一句话很长，" * 8 + "。第二句。") if lang == "zh" else (f"Source {n} says a rather long thing " * 8 + ". Two."), [f"id{n}"])
        for n in range(1, 5)
    ]
    whitelist = {cid for s in sources for cid in s.citation_ids}
    report = check_citations(extractive_answer("q?", lang, sources), whitelist)
    assert report.invalid_ids == [] and report.valid_ids == ["id1", "id2", "id3"]
    assert report.score == 1.0 and not report.uncited_long_answer


def test_the_sentence_matching_the_question_is_chosen_not_just_the_first():
    from unitrag.rag.extractive import snippet

    text = ("Salt has been traded for millennia. Caravans carried it across deserts. "
            "Adults should eat less than 5 g of salt a day. Most of it comes from processed food.")
    shown, _ = snippet(text, "en", "How much salt should adults eat a day?")
    assert shown.startswith("Adults should eat less than 5 g of salt a day.")
    first, _ = snippet(text, "en")
    assert first.startswith("Salt has been traded")


def test_chinese_question_picks_the_matching_chinese_sentence():
    from unitrag.rag.extractive import snippet

    text = "碘是甲状腺激素的原料。成人每天推荐摄入碘120微克，孕妇为230微克。食盐加碘是主要来源。"
    shown, _ = snippet(text, "zh", "孕妇每天需要多少碘？")
    assert shown.startswith("成人每天推荐摄入碘120微克")


# -- issue 19: what the terminal showed ------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        'Kidney impairment raises MMA on its own\n<Cite id="s"/>. Second point.',
        'Kidney impairment raises MMA on its own <Cite id="s"/>. Second point.',
        'Kidney impairment raises MMA on its own <Cite id="s"/><Cite id="t"/>. Second point.',
    ],
)
def test_no_stray_space_is_left_where_a_tag_was(text: str) -> None:
    shown, ids = snippet(text, "en")
    assert shown == "Kidney impairment raises MMA on its own. Second point."
    assert " ." not in extractive_answer("q?", "en", [source(1, "T", text, ["s", "t"])])


@pytest.mark.parametrize(
    ("text", "question", "heading"),
    [
        ("Intro line.\n\n**Targets for adults:**\nAdults need less than 2 g of sodium a day.", "sodium targets for adults",
         "Targets for adults"),
        ("**Homocysteine**\n\nIt rises in B12 deficiency but is less specific.", "homocysteine B12", "Homocysteine"),
        ("叶酸怕热。\n\n**怎样吃才能多保留叶酸？**\n蔬菜先洗后切，急火快炒。", "怎样吃才能多保留叶酸", "怎样吃"),
        ("铁剂有副作用。\n\n**安全性。**\n静脉铁偶见过敏反应。", "静脉铁的安全性", "安全性"),
    ],
)
def test_a_bold_heading_is_not_taken_for_a_sentence(text: str, question: str, heading: str) -> None:
    shown, _ = snippet(text, "zh" if "铁" in text or "叶酸" in text else "en", question)
    assert shown and heading not in shown


def test_a_bold_sentence_is_still_a_sentence() -> None:
    text = "**Do not stop treatment without asking the doctor who prescribed it.**\nOther advice."
    assert snippet(text, "en")[0].startswith("Do not stop treatment")


def test_only_canonical_tags_of_the_sources_own_ids_reach_the_answer() -> None:
    text = 'A fact.&lt;Cite id=&quot;own&quot;/&gt; Another <Cite id="own" page="2"/> fact. ＜Cite id="x"／＞'
    answer = extractive_answer("q?", "en", [source(1, "T", text, ["own"])])
    report = check_citations(answer, {"own"})
    assert (report.valid_ids, report.invalid_ids) == (["own"], [])
    assert "&lt;" not in answer and "page=" not in answer and "＜" not in answer
