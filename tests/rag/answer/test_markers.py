"""Reference markers and lists the model invented, in every form a reader follows as a reference.

An audit found superscripts (``µg[1]²``, ``⁽²⁾``, ``<sup>2</sup>``, ``^2``), circled numbers, "(ref. 2)",
"(Source 2)", "（来源2）", a bare "(2)." and a "References:" list of the model's own passing as valid
answers, streamed and shown. Each is now invalid in the whole-answer check, never streamed, and
gives the extractive answer; units, powers, enumerations and years are not refused.
"""

from __future__ import annotations

from typing import Any

import pytest

from unitrag.providers.llm import LLM
from unitrag.rag.answer.citations import check_citations, number_citations
from unitrag.rag.answer.generate import Generation, generate_answer, stream_answer
from unitrag.rag.answer.markers import invented_markers, without_invented
from unitrag.rag.answer.stream_filter import CitationStreamFilter
from unitrag.rag.types import ResolvedCitation, Source

T = '<Cite id="a"/>'

#: (answer, the invented marker or list as reported): each from the audit, in English and Chinese.
REFUSED = [
    (f"Adults need 2.4 µg{T}².", "²"),
    (f"Adults need 2.4 µg{T}¹˒².", "¹˒²"),
    (f"Adults need 2.4 µg{T}⁽²⁾.", "⁽²⁾"),
    (f"Adults need 2.4 µg{T}<sup>2</sup>.", "<sup>2</sup>"),
    (f"Adults need 2.4 µg{T}<SUP>2, 3</SUP>.", "<SUP>2, 3</SUP>"),
    (f"Adults need 2.4 µg{T}^2.", "^2"),
    (f"Adults need 2.4 µg{T}^{{2}}.", "^{2}"),
    (f"Adults need 2.4 µg{T} ②.", "②"),
    (f"Adults need 2.4 µg{T} (ref. 2).", "(ref. 2)"),
    (f"Adults need 2.4 µg{T} (refs 2, 3).", "(refs 2, 3)"),
    (f"Adults need 2.4 µg{T} (Source 2).", "(Source 2)"),
    (f"Adults need 2.4 µg{T} (see reference 3).", "(see reference 3)"),
    (f"Adults need 2.4 µg{T} (2).", "(2)"),
    (f"Adults need 2.4 µg (2, 3).{T}", "(2, 3)"),
    (f"Adults need 2.4 µg².{T}", "²"),
    (f"Vitamin B12 is essential¹.{T}", "¹"),
    (f"B12 was studied in 2015².{T}", "²"),
    (f"It is Wernicke’s².{T}", "²"),
    (f"As shown in Source 2, adults need 2.4 µg.{T}", "Source 2"),
    (f"See ref. 4 for adults.{T}", "ref. 4"),
    (f"成人每天需要2.4微克{T}（来源2）。", "（来源2）"),
    (f"成人每天需要2.4微克{T}（参考文献3）。", "（参考文献3）"),
    (f"成人每天需要2.4微克{T}（见文献2、3）。", "（见文献2、3）"),
    (f"成人每天需要2.4微克{T}〔2〕。", "〔2〕"),
    (f"成人每天需要2.4微克{T}②。", "②"),
    (f"成人每天需要2.4微克{T}（2）。", "（2）"),
    (f"成人每天需要2.4微克²。{T}", "²"),
    (f"资料2指出成人每天需要2.4微克。{T}", "资料2"),
    # a second audit's bypasses: attributes, HTML entities, named footnotes, 参考 alone, daggers
    (f'Adults need 2.4 µg a day<sup class="x">2</sup>.{T}', '<sup class="x">2</sup>'),
    (f"Adults need 2.4 µg a day&sup2;.{T}", "&sup2;"),
    (f"Adults need 2.4 µg a day&#178;.{T}", "&#178;"),
    (f"Adults need 2.4 µg a day&#xB2;.{T}", "&#xB2;"),
    (f"Adults need 2.4 µg a day[^note].{T}", "[^note]"),
    (f"Adults need 2.4 µg a day†.{T}", "†"),
    (f"成人每天约需2.4微克（参考2）。{T}", "（参考2）"),
]

REFERENCE_LISTS = [
    f"Adults need 2.4 µg{T}.\n\nReferences:\n1. Minisola S. et al. BMJ 2015.\n2. Wang 2018 Cochrane.",
    f"Adults need 2.4 µg{T}.\n\n## References\n\n- Minisola S. et al. BMJ 2015.\n- Wang 2018 Cochrane.",
    f"Adults need 2.4 µg{T}.\n\n**Sources:**\n1. Minisola S. et al. BMJ 2015.",
    f"Adults need 2.4 µg{T}.\n\nSources: Minisola S. et al. BMJ 2015.",
    f"Adults need 2.4 µg{T}.\n\nBibliography\nMinisola S. Vitamin B12.",
    f"Adults need 2.4 µg.{T} References: Minisola, Wang.",
    f"成人每天需要2.4微克{T}。\n\n参考文献：\n1. 中国营养学会. 中国居民膳食指南. 2022.",
    f"成人每天需要2.4微克{T}。\n\n### 参考文献\n[1] 王某. 维生素B12.",
    f"成人每天需要2.4微克{T}。\n\n来源：《中国居民膳食指南（2022）》",
    f"成人每天需要2.4微克{T}。\n\n**来源**\n1. 中国营养学会，2022。",
]

#: Legitimate text that looks a little like a marker: units and powers, enumerations, years, subscripts.
ACCEPTED = [
    f"Keep BMI below 24 kg/m²{T}.",
    f"A plate of 2 m² and a cube of 3 cm³.{T}",
    f"It grows as x^2, not 10^6; 10² cells, 10⁻³ mol, Ca²⁺ and Fe²⁺, SO₄²⁻, R² = 0.9.{T}",
    f"Adults need 2.4 µg a day{T} (1) eat more fiber (2) drink water.",
    f"Two tips: (1) eat more fiber, (2) drink water.{T}",
    f"(1) Eat more fiber.\n(2) Drink water.{T}",
    f"Choose (1) or (2).{T}",
    f"Take it 2 (two) times a day{T}.",
    f"A trial by Smith (2015) found it{T}. It was published in 2015 (2015).",
    f"CO₂, H₂O, B₁₂, 37 °C and omega-3.{T}",
    f"Up to 2,000 mg (2,000).{T}",
    f"Sources of vitamin B12 include meat and fish.{T}",
    f"Sources:\n- meat\n- fish and eggs{T}\n\nEat some every day.",
    f"Reference: 2–10 nmol/L.{T}",
    f"Eat oily fish sources 2–3 times a week.{T}",
    f"Source 1 is about iodine.{T}",
    f"References: {T}",
    "（1）多吃蔬菜（2）多喝水。" + T,
    "① 多吃蔬菜；② 多喝水。" + T,
    "请见①和②。" + T,
    "然后按步骤②。" + T,
    f"超重（BMI≥24 kg/m²）者每天减少400–500千卡{T}。",
    f"食物来源：肉、鱼、蛋。{T}",
    f"来源：动物性食物。{T}",
    f"参考2型糖尿病的诊疗建议{T}，每年复查。",
    f"2015年（2015）的研究显示{T}，来源于动物。",
    f"A room of 20 m&sup2; and CO<sub>2</sub> in the air.{T}",
    f"可以参考3个方面{T}。",
]


@pytest.mark.parametrize(("answer", "marker"), REFUSED)
def test_an_invented_marker_is_invalid(answer: str, marker: str) -> None:
    report = check_citations(answer, ["a"])
    assert report.invalid_ids == [marker] and report.valid_ids == ["a"] and report.score == 0.5


@pytest.mark.parametrize("answer", REFERENCE_LISTS)
def test_an_invented_reference_list_is_invalid(answer: str) -> None:
    report = check_citations(answer, ["a"])
    assert report.valid_ids == ["a"] and report.score < 1.0
    listed = report.invalid_ids[-1]  # after the "[1]" of an entry, itself invalid
    assert any(word in listed for word in ("Minisola", "膳食指南", "王某", "中国营养学会"))


@pytest.mark.parametrize("answer", ACCEPTED)
def test_look_alikes_are_not_markers(answer: str) -> None:
    report = check_citations(answer, ["a"])
    assert (report.invalid_ids, report.score) == ([], 1.0), invented_markers(answer)


def test_a_citation_list_of_allowed_tags_only_is_no_invented_list() -> None:
    for answer in (f"Adults need 2.4 µg.\n\nReferences:\n1. {T}\n2. {T}", f"成人每天需要2.4微克。\n\n参考文献：{T}"):
        assert check_citations(answer, ["a"]).invalid_ids == []


def test_numbering_drops_invented_markers_and_lists() -> None:
    cited = ResolvedCitation("a", "A book", ["Author"], 2020)
    text, refs = number_citations(f"Adults need 2.4 µg{T}². Take it (ref. 2).\n\nReferences:\n1. Smith 2015.", [cited])
    assert text == "Adults need 2.4 µg[1]. Take it." and [r.number for r in refs] == [1]
    assert without_invented("Keep BMI below 24 kg/m² (1) eat less.") == "Keep BMI below 24 kg/m² (1) eat less."


# -- streaming: an invented marker or list never reaches the reader ----------------------------------------------


def shown(pieces: list[str]) -> str:
    held = CitationStreamFilter({"a"})
    return "".join([*(held.feed(piece) for piece in pieces), held.finish()])


def cuts(text: str) -> list[list[str]]:
    """The text in one piece, a character at a time, and cut in two everywhere."""
    return [[text], list(text), *([text[:i], text[i:]] for i in range(1, len(text)))]


@pytest.mark.parametrize(("answer", "marker"), REFUSED)
def test_a_stream_never_shows_an_invented_marker(answer: str, marker: str) -> None:
    expected = answer.replace(marker, "")
    for pieces in cuts(answer):
        assert shown(pieces) == expected, pieces


@pytest.mark.parametrize("answer", REFERENCE_LISTS)
def test_a_stream_never_shows_an_invented_reference_list(answer: str) -> None:
    for pieces in cuts(answer):
        out = shown(pieces)
        assert out.startswith(answer[:8]) and not any(w in out for w in ("Minisola", "膳食指南", "王某", "营养学会")), pieces


def test_a_reference_list_heading_holds_what_follows_until_the_answer_ends() -> None:
    held = CitationStreamFilter({"a"})
    assert held.feed("Adults need 2.4 µg.\n") == "Adults need 2.4 µg.\n"
    assert held.feed("References:\n") == ""
    assert held.feed("1. Minisola S. et al. BMJ 2015.\n") == ""
    assert held.finish() == "\n"  # the line's end after the list
    held = CitationStreamFilter({"a"})
    assert held.feed("Sources:\n- meat\n") == ""
    assert held.feed("- fish\n\nEat some.") == ""
    assert held.finish() == "Sources:\n- meat\n- fish\n\nEat some."


@pytest.mark.parametrize("answer", ACCEPTED)
def test_a_stream_shows_look_alikes_as_written(answer: str) -> None:
    for pieces in cuts(answer):
        assert shown(pieces) == answer, pieces


def test_text_is_held_only_while_it_could_still_be_a_marker() -> None:
    held = CitationStreamFilter({"a"})
    assert held.feed("It needs 2 m") == "It needs 2 m"
    assert held.feed("² of sun") == "² of sun"  # after a unit: a power
    assert held.feed(" and (1") == " and (1"  # after "and": an enumeration's own
    assert held.feed(") or sun (2") == ") or sun "
    assert held.feed(") rest") == "(2) rest"  # not the end of a sentence
    assert held.feed(" (2") == " "
    assert held.feed(").") == ""  # a marker, unless a digit or superscript comes within LOOKAHEAD_CHARS
    assert held.feed(" Fish is a sou") == ". Fish is a "
    assert held.feed("rce of B12") == "source of B12"
    assert held.finish() == ""


# -- end to end: the extractive answer replaces it, retried or streamed -----------------------------------------------

SOURCES = [Source("c1", "u1", "article", "Vitamin B12", 'Adults need 2.4 µg of vitamin B12 a day.<Cite id="a"/>',
                  ["b12"], ["a"], "public", "en"),
           Source("c2", "u2", "article", "维生素B12", '成人每天需要2.4微克维生素B12。<Cite id="a"/>', ["b12"], ["a"], "public", "zh")]
TEMPLATES = {"system": "Answer from the sources.", "user": "{{ question }}\n{% for s in sources %}{{ s.text }}{% endfor %}"}


class Says(LLM):
    """An LLM that answers with these texts, one a call (the last again), streamed in pieces of three characters."""

    provider = "test"

    def __init__(self, *answers: str) -> None:
        super().__init__("says")
        self.answers = list(answers)

    def complete(self, messages: list[dict[str, str]], *, stream: bool = False) -> Any:
        text = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        return iter([text[i:i + 3] for i in range(0, len(text), 3)]) if stream else text


def _generated(llm: LLM, lang: str) -> Generation:
    question = "How much B12?" if lang == "en" else "每天需要多少B12？"
    return generate_answer(question, lang, [s for s in SOURCES if s.lang == lang], TEMPLATES, llm, {"a"}, check_citations)


def _streamed(llm: LLM, lang: str) -> tuple[str, Generation]:
    question = "How much B12?" if lang == "en" else "每天需要多少B12？"
    answer = stream_answer(question, lang, [s for s in SOURCES if s.lang == lang], TEMPLATES, llm, {"a"}, check_citations)
    text = "".join(answer)
    assert answer.generation is not None
    return text, answer.generation


@pytest.mark.parametrize(("answer", "lang"), [*((a, "zh" if "微克" in a else "en") for a, _ in REFUSED if "2.4" in a),
                                              *((a, "zh" if "微克" in a else "en") for a in REFERENCE_LISTS)])
def test_an_answer_with_an_invented_marker_or_list_gives_the_extractive_one(answer: str, lang: str) -> None:
    gen = _generated(Says(answer), lang)
    assert gen.extractive and gen.attempts == 2 and gen.error_kind == "llm_invalid_citations"
    good = "Adults need 2.4 µg a day." + T if lang == "en" else "成人每天需要2.4微克。" + T
    gen = _generated(Says(answer, good), lang)
    assert (gen.extractive, gen.attempts, gen.text, gen.error_kind) == (False, 2, good, None)
    streamed, gen = _streamed(Says(answer), lang)
    assert gen.extractive and gen.error_kind == "llm_invalid_citations"
    for invented in check_citations(answer, ["a"]).invalid_ids:
        assert invented not in streamed
    assert not any(word in streamed for word in ("Minisola", "膳食指南", "王某", "营养学会"))


@pytest.mark.parametrize("answer", [a for a in ACCEPTED if "\n" not in a][:6] + ["（1）多吃蔬菜（2）多喝水。" + T])
def test_an_answer_with_look_alikes_is_used(answer: str) -> None:
    lang = "zh" if "多喝水" in answer else "en"
    gen = _generated(Says(answer), lang)
    assert (gen.extractive, gen.attempts, gen.error_kind) == (False, 1, None)
    streamed, gen = _streamed(Says(answer), lang)
    assert (streamed, gen.extractive, gen.error_kind) == (answer, False, None)


def test_a_title_opening_with_a_number_after_ziliao_is_no_invented_marker() -> None:
    """A new team's metro: "以下内容来自英文资料：1-Day and 3-Day Passes" lost "资料：1" in the CLI and in the HTTP
    ``numbered.text``, read as an invented "资料 1" marker."""

    answer = "根据知识库资料：\n1. 以下内容来自英文资料：1-Day and 3-Day Passes: a 1-day pass is 20 yuan."
    assert number_citations(answer, [])[0] == answer
    assert number_citations("每天400微克（资料1）。", [])[0] == "每天400微克。"  # a marker the text invented still goes
