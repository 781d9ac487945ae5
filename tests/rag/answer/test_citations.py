"""The faithfulness check on generated answers: valid, invalid, missing and loosely written citations."""

from __future__ import annotations

import pytest

import unitrag
from unitrag.rag.answer.citations import (
    LONG_ANSWER_CJK_CHARS,
    LONG_ANSWER_WORDS,
    Reference,
    check_citations,
    cited_ids,
    is_long,
    number_citations,
    strip_citations,
)
from unitrag.rag.types import FaithfulnessReport, ResolvedCitation

WHITELIST = ["nih-b12", "who-iodine", "dga-2020"]


def test_public_export():
    assert unitrag.check_citations is check_citations
    assert "check_citations" in unitrag.__all__ and unitrag.__version__


def test_all_valid_en():
    answer = 'Vegans need a B12 source <Cite id="nih-b12"/>. Iodised salt covers iodine <Cite id="who-iodine"/>.'
    assert check_citations(answer, WHITELIST) == FaithfulnessReport(
        valid_ids=["nih-b12", "who-iodine"], invalid_ids=[], score=1.0, uncited_long_answer=False
    )


def test_all_invalid_zh():
    answer = '孕妇每天需要230微克碘<Cite id="made-up-2021"/>。严重缺乏会导致甲状腺肿<Cite id="other-paper"/>。'
    report = check_citations(answer, WHITELIST)
    assert report.valid_ids == [] and report.invalid_ids == ["made-up-2021", "other-paper"]
    assert report.score == 0.0 and not report.uncited_long_answer


def test_mixed_score_counts_tags_and_ids_are_unique_in_order():
    answer = (
        'A <Cite id="dga-2020"/> B <Cite id="fake-1"/> C <Cite id="nih-b12"/> '
        'D <Cite id="dga-2020"/> E <Cite id="fake-2"/> F <Cite id="dga-2020"/> G <Cite id="fake-1"/>'
    )
    report = check_citations(answer, WHITELIST)
    assert report.valid_ids == ["dga-2020", "nih-b12"]
    assert report.invalid_ids == ["fake-1", "fake-2"]
    assert report.score == pytest.approx(4 / 7)  # tags, not ids: unique ids would give 2 / 4


def test_duplicates_of_one_valid_id():
    answer = '维生素B12主要来自动物性食物<Cite id="nih-b12"/>，素食者需要补充<Cite id="nih-b12"/>。'
    report = check_citations(answer, WHITELIST)
    assert (report.valid_ids, report.invalid_ids, report.score) == (["nih-b12"], [], 1.0)


@pytest.mark.parametrize(
    "tag",
    [
        '<Cite id="nih-b12"/>', "<Cite id='nih-b12' />", '<cite id="nih-b12"/>', '<CITE ID="nih-b12"/>',
        '<Cite  id = "nih-b12"  / >', '< Cite id="nih-b12">', '<Cite id="nih-b12"></Cite>', '<Cite id=" nih-b12 "/>',
        '<Cite\nid="nih-b12"/>',
    ],
)
def test_tag_variants_are_recognised(tag):
    answer = f"Vegans need a reliable B12 source{tag}, and a fake one <Cite id='nope'/>."
    report = check_citations(answer, WHITELIST)
    assert (report.valid_ids, report.invalid_ids, report.score) == (["nih-b12"], ["nope"], 0.5)
    assert cited_ids(answer) == ["nih-b12", "nope"]


def test_mismatched_quotes_and_other_tags_are_invalid_citations():
    answer = """See <Cite id="nih-b12'/> and <Citation id="who-iodine"/> and <Cite ref="dga-2020"/>."""
    assert cited_ids(answer) == []  # no well-formed tag, so no id...
    report = check_citations(answer, WHITELIST)  # ...but three things that look like citations
    assert report.invalid_ids == ["<Cite id=\"nih-b12'/>", '<Citation id="who-iodine"/>', '<Cite ref="dga-2020"/>']
    assert report.score == 0.0


def test_empty_id_is_invalid():
    report = check_citations('Salt matters <Cite id=""/>.', WHITELIST)
    assert report.invalid_ids == [""] and report.score == 0.0


def _words(n: int) -> str:
    return " ".join(["word"] * n)


def test_no_citation_short_answer_en_and_zh():
    for answer in ["I could not find that in the sources.", "资料中没有找到相关信息。", ""]:
        assert check_citations(answer, WHITELIST) == FaithfulnessReport([], [], 1.0, False)


def test_no_citation_long_answer_en_and_zh():
    en = "Vitamin D helps the body absorb calcium. " * 9  # 63 words
    zh = "维生素D帮助身体吸收钙质，对骨骼健康很重要。" * 7  # 133 CJK characters
    for answer in (en, zh):
        report = check_citations(answer, WHITELIST)
        assert report == FaithfulnessReport([], [], 0.0, True)


def test_a_long_answer_with_citations_is_not_flagged():
    answer = "Vitamin D helps the body absorb calcium. " * 12 + '<Cite id="fake"/>'
    report = check_citations(answer, WHITELIST)
    assert not report.uncited_long_answer and report.score == 0.0 and report.invalid_ids == ["fake"]


def test_long_threshold_boundaries():
    assert LONG_ANSWER_WORDS == 60 and LONG_ANSWER_CJK_CHARS == 120
    assert not is_long(_words(LONG_ANSWER_WORDS)) and is_long(_words(LONG_ANSWER_WORDS + 1))
    assert not is_long("钙" * LONG_ANSWER_CJK_CHARS) and is_long("钙" * (LONG_ANSWER_CJK_CHARS + 1))
    # mixed: half the words and half the characters are exactly at the limit, one more is over
    assert not is_long(_words(30) + "钙" * 60) and is_long(_words(31) + "钙" * 60)
    # punctuation, digits inside CJK text and the tags themselves do not make an answer long
    assert not is_long("，。！" * 200 + '<Cite id="a-very-long-citation-identifier-that-is-not-text"/>' * 70)


def test_cited_ids_unique_in_order():
    answer = '<Cite id="b"/> x <Cite id="a"/> y <cite id=\'b\'/>'
    assert cited_ids(answer) == ["b", "a"]
    assert cited_ids("no tags here") == []


def test_strip_given_ids_keeps_the_others():
    answer = 'Iron is in meat <Cite id="fake"/>, and B12 too <Cite id="nih-b12"/>.\n铁<Cite id=\'fake\' />很重要。'
    assert strip_citations(answer, ["fake"]) == 'Iron is in meat, and B12 too <Cite id="nih-b12"/>.\n铁很重要。'


def test_strip_all_tags():
    answer = 'Iron is in meat <Cite id="a"/><Cite id="b"/>. B12 <cite id="c"></cite> too.'
    assert strip_citations(answer) == "Iron is in meat. B12 too."
    assert strip_citations(answer, []) == answer


def test_strip_invalid_after_check_leaves_only_valid_citations():
    answer = 'A <Cite id="nih-b12"/> B <Cite id="fake"/>.'
    report = check_citations(answer, WHITELIST)
    shown = strip_citations(answer, report.invalid_ids)
    assert shown == 'A <Cite id="nih-b12"/> B.'
    assert check_citations(shown, WHITELIST).score == 1.0


# -- issue 9: anything that looks like a citation and is not exactly a whitelisted id is invalid --

BYPASSES = [
    '<Cite id="made-up" page="1"/>',  # another attribute after the id
    '<Cite page="1" id="made-up"/>',  # ... or before it
    "<Cite id=made-up/>",  # unquoted
    "&lt;Cite id=&quot;made-up&quot;/&gt;",  # HTML-escaped
    "&amp;lt;Cite id=&amp;quot;made-up&amp;quot;/&amp;gt;",  # escaped twice
    "＜Cite id=\"made-up\"／＞",  # full-width brackets
    "＜Ｃｉｔｅ　ｉｄ＝＂made-up＂／＞",  # all full-width
    "<Ci\u200bte id=\"made-up\"/>",  # a zero-width space in the name
    "<Cite id=\u201cmade-up\u201d/>",  # curly quotes
    "<\u0421ite id=\"made-up\"/>",  # a Cyrillic capital Es for the C
    "\\<Cite id=\"made-up\"/\\>",  # Markdown-escaped
    "<cite>made-up</cite>",  # HTML's cite element
    '<Cite id="made-up">WHO</Cite>',  # a tag wrapping text
    "[Cite id=made-up]",  # square brackets
    "[cite: made-up]",
    "{cite id=\"made-up\"}",
    '<Citation id="made-up"/>',  # another tag name starting with "cit"
    '<Cite ref="made-up"/>',  # no id attribute
    '<Cite id="nih-b12\'/>',  # mismatched quotes
    "<Cite/>",  # no id at all
    '<Cite id="made-up"',  # never closed
    'Cite id="made-up"/>',  # the bracket lost
    "&#60;Cite id=&#34;made-up&#34;/&#62;",  # numeric character references
    "%3CCite id=%22made-up%22/%3E",  # percent-encoded
    "\\u003cCite id=\\u0022made-up\\u0022/\\u003e",  # JSON-escaped
    '<x:cite id="made-up"/>',  # an XML prefix
    "<\U0001d402ite id=\"made-up\"/>",  # a mathematical bold C
]


@pytest.mark.parametrize("tag", BYPASSES)
def test_a_citation_spelled_any_other_way_is_invalid(tag):
    report = check_citations(f"Adults need 2.4 µg of B12 a day {tag}.", WHITELIST)
    assert report.invalid_ids and report.score < 1.0, report
    assert report.valid_ids == []


@pytest.mark.parametrize("tag", ['<Cite id="nih-b12" page="1"/>', "<Cite id=nih-b12/>", "＜Cite id=\"nih-b12\"／＞"])
def test_a_whitelisted_id_in_a_malformed_tag_is_reported_as_the_tag(tag):
    """The id alone would read as allowed; the tag is what is wrong, so the tag is what is named."""
    report = check_citations(f"B12 {tag} and <Cite id='who-iodine'/>.", WHITELIST)
    assert report.valid_ids == ["who-iodine"] and report.invalid_ids == [tag] and report.score == 0.5


def test_malformed_tags_are_stripped_and_do_not_make_an_answer_long():
    answer = 'B12 <Cite page="1" id="x"/>. Iodine &lt;Cite id=&quot;y&quot;/&gt;. Folate ＜Cite id="z"／＞.'
    assert strip_citations(answer) == "B12. Iodine. Folate."
    assert not is_long("word " * 10 + '<Cite id="x" page="1"/>' * 50)


def test_prose_that_mentions_citing_is_not_a_citation():
    text = ("Please cite the WHO report (cite it in full). Citation guidelines "
            "say how to cite: author, year. 《引用》 and <city> are not tags either.")
    assert check_citations(text, WHITELIST) == FaithfulnessReport([], [], 1.0, False)
    # a link is a reference no id checks (stop 49: a fabricated URL passed), even to a real fact sheet
    linked = check_citations(f"{text} [The NIH fact sheet](https://ods.od.nih.gov) says more.", WHITELIST)
    assert linked.invalid_ids == ["https://ods.od.nih.gov"]


# -- issue 19: numbered markers for reading -------------------------------------------------------

NIH = ResolvedCitation("nih-b12", "Vitamin B12 fact sheet", ["NIH ODS"], 2024, url="https://ods.od.nih.gov/b12")
WHO = ResolvedCitation("who-iodine", "Iodine in pregnancy", ["WHO"], 2007, doi="10.1000/who")


def test_tags_become_numbers_in_order_of_first_appearance():
    answer = ('From the knowledge base:\n1. B12: Take it.<Cite id="who-iodine"/><Cite id="nih-b12"/>\n'
              '2. More: Again <Cite id="nih-b12"/>.')
    text, refs = number_citations(answer, [NIH, WHO])
    assert text == "From the knowledge base:\n1. B12: Take it.[1][2]\n2. More: Again[2]."
    assert refs == [Reference(1, WHO), Reference(2, NIH)]
    assert [r.link for r in refs] == ["https://doi.org/10.1000/who", "https://ods.od.nih.gov/b12"]
    assert refs[0].to_dict()["number"] == 1 and refs[0].to_dict()["link"] == "https://doi.org/10.1000/who"


def test_tags_of_unresolved_or_malformed_citations_are_dropped_not_numbered():
    answer = 'A <Cite id="nih-b12"/>. B <Cite id="fake"/>. C &lt;Cite id=&quot;x&quot;/&gt;. 碘<Cite id="gone"/>。'
    text, refs = number_citations(answer, [NIH])
    assert text == "A[1]. B. C. 碘。"
    assert refs == [Reference(1, NIH)]


def test_a_citation_the_text_does_not_mark_still_gets_a_number():
    text, refs = number_citations("Short answer.", [NIH])
    assert (text, refs) == ("Short answer.", [Reference(1, NIH)])


# -- issue 22: invisible characters and look-alikes ------------------------------------------------

DISGUISED = [
    '<C\ufe0fite id="fake-2099"/>',  # a variation selector
    '<C\U000e0100ite id="fake-2099"/>', '<C\u180bite id="fake-2099"/>', '<C\u3164ite id="fake-2099"/>',
    '<C\u206aite id="fake-2099"/>', '<C\U0001d173ite id="fake-2099"/>', '<C\u2800ite id="fake-2099"/>',
    '<\u1d04\u026a\u1d1b\u1d07 id="fake-2099"/>', '<\u13dfite id="fake-2099"/>', '<Ci\u0301te id="fake-2099"/>',
    '<C\u0131te id="nih-b12"/>',  # a dotless i: an allowed id in a tag that is not <Cite>
]


@pytest.mark.parametrize("tag", DISGUISED)
def test_a_disguised_tag_is_an_invalid_citation(tag):
    report = check_citations(f"x {tag}", WHITELIST)
    assert report.valid_ids == [] and len(report.invalid_ids) == 1 and report.score == 0.0
    assert check_citations(f'B12 <Cite id="nih-b12"/>. x {tag}.', WHITELIST).score == 0.5


@pytest.mark.parametrize("tag", DISGUISED)
def test_a_disguised_tag_is_dropped_from_the_displayed_answer(tag):
    text, refs = number_citations(f'Take B12 <Cite id="nih-b12"/>. Iodine too {tag}.', [NIH])
    assert (text, refs) == ("Take B12[1]. Iodine too.", [Reference(1, NIH)])
    assert strip_citations(f"Iodine too {tag}.") == "Iodine too."


def test_the_report_names_the_invisible_character():
    assert check_citations('x <C\ufe0fite id="fake-2099"/>', WHITELIST).invalid_ids == ['<C[U+FE0F]ite id="fake-2099"/>']


@pytest.mark.parametrize("whitelist", ["a,b", b"a", 5, None])
def test_a_whitelist_that_is_no_collection_of_ids_is_refused_not_read_as_characters(whitelist):
    from unitrag.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="whitelist"):
        check_citations('<Cite id="a"/>', whitelist)


def test_the_answer_and_the_citations_must_be_what_they_say():
    from unitrag.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="answer: expected a string"):
        check_citations(None, {"a"})  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="citations: expected ResolvedCitation"):
        number_citations('<Cite id="a"/>', "abc")  # type: ignore[arg-type]


# -- numbered markers: number_citations makes exactly these, so one the model wrote would read as checked -------


@pytest.mark.parametrize("marker", ["[1]", "[12]", "[^1]", "[1, 2]", "[2–4]", "［1］", "【1】", "〔3〕"])
def test_a_numbered_marker_the_model_wrote_is_invalid(marker: str) -> None:
    report = check_citations(f"B12 cures everything {marker}.", ["a"])
    assert report.invalid_ids == [marker] and report.score == 0.0
    report = check_citations(f'Take B12 {marker} daily.<Cite id="a"/>', ["a"])
    assert (report.valid_ids, report.invalid_ids, report.score) == (["a"], [marker], 0.5)


def test_brackets_without_a_number_are_not_markers() -> None:
    assert check_citations("Steps [see below] and {x} and 10 [mg] or (1).", ["a"]).invalid_ids == []


def test_numbering_drops_the_markers_the_text_wrote_itself() -> None:
    text, references = number_citations('B12 cures cancer [1]. Take B12 <Cite id="nih-b12"/>.', [NIH])
    assert text == "B12 cures cancer. Take B12[1]." and [r.number for r in references] == [1]


@pytest.mark.parametrize("told", [
    "B12 is absorbed by passive diffusion [Smith et al., 2021].",
    "口服B12吸收率约1-2%（张三等，中华医学杂志，2021）。",
    "Only 1-2% is absorbed. Source: https://pubmed.ncbi.nlm.nih.gov/31234567/",
    'See doi:10.1056/NEJMoa2034577 <Cite id="nih-b12"/>',
    'Only 1-2% is absorbed (see "Oral B12 megadoses", Lancet 2019).',
    "Adults need 2.4 µg a day (WHO, 2012).",
])
def test_a_reference_told_in_words_is_no_faithful_citation(told: str) -> None:
    """An attacker's mock LLM had each of these pass with score 1.0: no id checks a link, a DOI or "Smith et al."."""
    report = check_citations(told, WHITELIST)
    assert report.invalid_ids and report.score < 1.0
    assert check_citations(told, WHITELIST, told=False).invalid_ids == []  # the units' own words, quoted


@pytest.mark.parametrize("plain", [
    'The trial (2015) showed a benefit <Cite id="nih-b12"/>.',
    'Since the 2019 update (as of 2021) the label says 2.4 µg <Cite id="nih-b12"/>.',
    '降压药（2022年版指南）要按时吃 <Cite id="nih-b12"/>。',
    'Eat 5 portions (about 400 g) a day <Cite id="nih-b12"/>.',
])
def test_a_year_or_a_quantity_in_brackets_is_no_reference(plain: str) -> None:
    assert check_citations(plain, WHITELIST).invalid_ids == []


@pytest.mark.parametrize("linked", [
    'Raise the temperature [<Cite id="nih-b12"/>](javascript:alert(1)).',
    'Raise the temperature [see this <Cite id="nih-b12"/>](javascript:alert(document.cookie))',
    'Raise the temperature <Cite id="nih-b12"/> [click]( JAVASCRIPT:alert(1))',
    'Raise the temperature [<Cite id="nih-b12"/>](vbscript:msgbox(1)).',
    'Raise the temperature [<Cite id="nih-b12"/>](jav&#x61;script:alert(1)).',
    'Raise the temperature [<Cite id="nih-b12"/>](data:text/html,hi) or [here](//evil.example).',
    'Raise the temperature <Cite id="nih-b12"/>.\n\n[more]: javascript:alert(1)',
    'Raise the temperature <Cite id="nih-b12"/> <javascript:alert(1)>',
    'Raise the temperature <a href=" javascript:alert(1)"><Cite id="nih-b12"/></a>',
])
def test_a_link_to_anything_but_a_path_of_the_site_is_no_faithful_answer(linked: str) -> None:
    """An attacker's mock LLM wrapped a checked marker in ``(javascript:alert(1))``: it passed the check, and an app
    rendering the answer as Markdown showed a [1] that runs script."""
    report = check_citations(linked, WHITELIST)
    assert report.invalid_ids and report.score < 1.0


def test_a_link_to_a_path_of_the_site_is_no_reference_and_is_numbered_away() -> None:
    wrapped = 'Absorbed by diffusion [<Cite id="nih-b12"/>](/v1/units/en-b12-absorption).'
    assert check_citations(wrapped, WHITELIST).invalid_ids == []
    assert number_citations(wrapped, [NIH])[0] == "Absorbed by diffusion [1]."


@pytest.mark.parametrize("wrapped", [
    'Absorbed by diffusion. [<Cite id="nih-b12"/>](https://evil.example/fake-study)',
    'Absorbed by diffusion. <a href="https://evil.example/fake-study"><Cite id="nih-b12"/></a>',
    'Absorbed by diffusion. [<Cite id="nih-b12"/>](javascript:alert(1))',
])
def test_a_checked_marker_is_numbered_without_the_link_around_it(wrapped: str) -> None:
    text, references = number_citations(wrapped, [NIH])
    assert text == "Absorbed by diffusion. [1]" and "evil" not in text and references[0].link == NIH.url


def test_a_tag_that_removing_another_would_form_is_invalid():
    """An attacker's LLM answered 'Safe <Ci<Cite id="xss-cite"/>te id="secret-cite"/>': the check read one allowed tag
    and passed it, and a reader stripping checked tags once got a tag of a restricted citation."""
    report = check_citations('Safe <Ci<Cite id="xss-cite"/>te id="secret-cite"/>', ["xss-cite"])
    assert report.valid_ids == ["xss-cite"] and report.invalid_ids == ['<Cite id="secret-cite"/>'] and report.score < 1
    formed = check_citations('Safe <Ci<Cite id="a"/>te id="a"/>', ["a"])  # even an allowed id: it is a disguise
    assert formed.invalid_ids == ['<Cite id="a"/>']
    assert check_citations('Safe <Cite id="a"/> and <Cite id="b"/>.', ["a", "b"]).invalid_ids == []
