"""What a streamed answer shows: an allowed tag as written, never another tag or a numbered marker,
however the pieces cut it."""

from __future__ import annotations

import pytest

from unitrag.rag.answer.stream_filter import HOLD_CHARS, CitationStreamFilter


def shown(pieces: list[str], allowed: frozenset[str] = frozenset({"iom2001"})) -> tuple[list[str], str]:
    held = CitationStreamFilter(set(allowed))
    out = [held.feed(piece) for piece in pieces]
    out.append(held.finish())
    return out, "".join(out)


def every_cut(text: str) -> list[list[str]]:
    """The text in one piece, a character at a time, and cut in two everywhere."""
    return [[text], list(text), *([text[:i], text[i:]] for i in range(1, len(text)))]


@pytest.mark.parametrize(("answer", "expected"), [
    ('Take 220 µg.<Cite id="iom2001"/> Done.', 'Take 220 µg.<Cite id="iom2001"/> Done.'),
    ('Take 220 µg.<Cite id="made-up-2099"/> Done.', "Take 220 µg. Done."),
    ('Take 220 µg [1]. Also [^2] and [1, 3].', "Take 220 µg . Also  and ."),
    ("每天 230 微克【1】，见［2］。", "每天 230 微克，见。"),
    ("Take 220 µg.&lt;Cite id=&quot;x&quot;/&gt; Done.", "Take 220 µg. Done."),
    ('Take 220 µg.＜Cite id="x"／＞ Done.', "Take 220 µg. Done."),
    ("Take 220 µg. <cite>x</cite> Done.", "Take 220 µg.  Done."),
    ("Under <5 mg for R&D, [see below] or {x}.", "Under <5 mg for R&D, [see below] or {x}."),
    # a tag's first half cut by an allowed tag (an attacker's LLM): stripping "iom2001" once would show "secret"
    ('Safe <Ci<Cite id="iom2001"/>te id="secret"/> ok', 'Safe <Cite id="iom2001"/>te id="secret"/> ok'),
    ('Safe <<Cite id="iom2001"/>Cite id="secret"/> ok', 'Safe <Cite id="iom2001"/>Cite id="secret"/> ok'),
    ("x << y and 2<<3", "x << y and 2<<3"),
])
def test_only_allowed_tags_reach_the_reader_however_the_pieces_are_cut(answer: str, expected: str) -> None:
    for pieces in every_cut(answer):
        assert shown(pieces)[1] == expected, pieces


def test_text_without_a_possible_citation_streams_as_it_comes() -> None:
    out, _ = shown(["Iodine needs ", "rise in pregnancy."])
    assert out[:2] == ["Iodine needs ", "rise in pregnancy."]


def test_an_allowed_tag_is_shown_as_soon_as_it_closes() -> None:
    out, _ = shown(["Take 220 µg.", '<Cite id="iom2001"/>', " Done."])
    assert out[1] == '<Cite id="iom2001"/>'


def test_what_starts_no_citation_is_held_only_briefly() -> None:
    held = CitationStreamFilter(set())
    assert held.feed("Under <5 mg") == "Under "
    assert held.feed(" of sodium a day for adults.") .startswith("<5 mg")


def test_an_unclosed_tag_is_judged_at_the_latest_after_the_hold() -> None:
    held = CitationStreamFilter({"a"})
    text = held.feed('x <Cite id="made-up" ' + "y" * (HOLD_CHARS + 10))
    assert "made-up" not in text + held.finish()


@pytest.mark.parametrize(("answer", "expected"), [
    ('A.<Cite id="iom2001"/> And <Ci', 'A.<Cite id="iom2001"/> And'),  # cut off mid-tag
    ('A.<Cite id="iom2001"', "A."),
    ("A, see [3", "A, see"),
    ("A, see [3, 4", "A, see"),  # a list of markers cut off (complete, it is refused as a marker)
    ("A, see [3–", "A, see"),
    ("每天两次，详见【3", "每天两次，详见"),
    ("A [[3", "A"),
    ("Under <5 mg.", "Under <5 mg."),  # no tag: kept
])
def test_an_unfinished_tag_or_marker_the_answer_ends_on_is_dropped(answer: str, expected: str) -> None:
    from unitrag.rag.answer.stream_filter import without_dangling

    assert without_dangling(answer) == expected
    for pieces in every_cut(answer):
        assert shown(pieces)[1].rstrip() == expected, pieces
