"""What an LLM says is shown only when it can be: text, of an answer's length, encodable as UTF-8.

An attacker's audit: a lone surrogate in a model's answer became a 422 blaming the client, a stream cut off
without its ``done`` event and a CLI traceback; a 4 MB answer with one valid tag passed whole; a custom LLM
streaming ints had the caller's ``"".join`` crash. Each now falls back to the extractive answer with the reason.
"""

from __future__ import annotations

from typing import Any

import pytest

from unitrag.providers.llm import LLM
from unitrag.rag.answer.citations import check_citations as check
from unitrag.rag.answer.generate import MAX_ANSWER_CHARS, Generation, generate_answer, stream_answer
from unitrag.rag.types import Source

SOURCES = [Source("c1", "u1", "article", "Iodine in pregnancy", 'Pregnant women need 220 µg of iodine a day.'
                  '<Cite id="iom2001"/>', ["iodine"], ["iom2001"], "public", "en")]
QUESTION = "How much iodine does a pregnant woman need?"
TEMPLATES = {"system": "Answer from the sources.", "user": "{{ question }}\n{% for s in sources %}{{ s.text }}{% endfor %}"}
CITED = '<Cite id="iom2001"/>'


class Says(LLM):
    """An LLM implementation that answers with exactly these pieces (as a stream) or their join."""

    provider = "test"

    def __init__(self, *pieces: Any) -> None:
        super().__init__("says")
        self.pieces = pieces

    def complete(self, messages: list[dict[str, str]], *, stream: bool = False) -> Any:
        return iter(self.pieces) if stream else "".join(str(p) for p in self.pieces)


def _generated(llm: LLM) -> Generation:
    return generate_answer(QUESTION, "en", SOURCES, TEMPLATES, llm, {"iom2001"}, check)


def _streamed(llm: LLM) -> tuple[list[Any], Generation]:
    answer = stream_answer(QUESTION, "en", SOURCES, TEMPLATES, llm, {"iom2001"}, check)
    pieces = list(answer)
    assert answer.generation is not None
    return pieces, answer.generation


def _fell_back(gen: Generation, why: str) -> None:
    assert gen.extractive and "220 µg" in gen.text and gen.error_kind == "llm_error"
    assert gen.error is not None and why in gen.error
    gen.text.encode("utf-8")  # what the reader gets always encodes


@pytest.mark.parametrize("answer", ["About 220 \ud800 µg a day." + CITED, "x" * (MAX_ANSWER_CHARS + 1) + CITED])
def test_an_answer_that_cannot_be_shown_gives_the_extractive_one(answer: str) -> None:
    _fell_back(_generated(Says(answer)), "surrogate" if "\ud800" in answer else "longer than")


def test_a_well_formed_answer_is_still_used() -> None:
    gen = _generated(Says("About 220 µg a day." + CITED))
    assert not gen.extractive and gen.error is None


@pytest.mark.parametrize("bad, why", [("220 \udfff µg", "surrogate"), (7, "int, not text"), (b"bytes", "bytes, not text"),
                                      ("y" * MAX_ANSWER_CHARS, "longer than")])
def test_a_stream_stops_at_a_piece_that_cannot_be_shown_and_never_passes_it_on(bad: Any, why: str) -> None:
    pieces, gen = _streamed(Says("About ", bad, " a day." + CITED))
    assert all(isinstance(p, str) for p in pieces) and "".join(pieces).encode("utf-8")
    assert not any(isinstance(bad, str) and bad in p for p in pieces)
    _fell_back(gen, why)


def test_a_stream_of_good_pieces_is_untouched() -> None:
    pieces, gen = _streamed(Says("About ", "220 µg", " a day." + CITED))
    assert "".join(pieces) == "About 220 µg a day." + CITED and not gen.extractive and gen.error is None


def test_an_answer_cut_off_mid_tag_never_shows_it_and_falls_back_streamed_or_not() -> None:
    """An attacker's audit: "A[1] and <Ci" was accepted and shown with the half-written tag; a later one's
    '… Also dose 5 mL formalin <Cite id="who-fake"' passed the check with the tag dropped, its claim uncited. A tag cut
    off is never shown, and one that names no allowed id whole is unchecked: asked again, then the extractive answer."""
    def unchecked(gen: Generation, cut: str) -> None:
        assert gen.extractive and "220 µg" in gen.text and gen.error_kind == "llm_invalid_citations"
        assert gen.error is not None and cut in gen.error

    generated = _generated(Says(f"Pregnant women need 220 µg a day.{CITED} Also dose 5 mL formalin <Cite id=\"who-fake\""))
    unchecked(generated, "<Cite id=\"who-fake\"")
    assert "formalin" not in generated.text
    unchecked(_generated(Says(f"Pregnant women need 220 µg a day.{CITED} See also <Ci")), "<Ci")
    shown, streamed = _streamed(Says(f"Pregnant women need 220 µg a day.{CITED} See also ", "<Cite id=\"iom"))
    assert "".join(str(s) for s in shown).endswith(f"{CITED} See also ")  # the cut tag never streamed
    unchecked(streamed, "<Cite id=\"iom")


def test_an_answer_cut_off_in_a_tag_that_names_an_allowed_id_whole_ends_before_it() -> None:
    generated = _generated(Says(f"Pregnant women need 220 µg a day. <Cite id=\"iom2001\""))
    assert not generated.extractive and generated.error is None
    assert generated.text == "Pregnant women need 220 µg a day."


def test_a_half_written_link_is_never_streamed() -> None:
    """An attacker's audit: 'Change weekly [see <a href="https://evil.example' streamed the link's start as tokens, and
    the whole-answer check, reading the answer without it, passed: the client kept the tokens."""
    shown, streamed = _streamed(Says(f"About 220 µg a day.{CITED} [see ", '<a href="https://evil.example', "/x/y/z/w/v"))
    assert "evil" not in "".join(str(s) for s in shown) and "href" not in "".join(str(s) for s in shown)
    assert "evil" not in streamed.text


@pytest.mark.parametrize(("hidden", "left"), [("\x1b[2J", "[2J"), ("\u202e", ""), ("\x00", ""), ("\r", ""),
                                              ("\x07", ""), ("\u2066", "")])
def test_control_and_bidi_characters_never_reach_the_reader_streamed_or_not(hidden: str, left: str) -> None:
    """An attacker's mock LLM: "\\x1b[2J" (clears a terminal), U+202E ("gnp.live" shown as "evil.png") and NUL passed
    in an answer, where a unit body holding them is refused by ``unitrag validate``."""
    said = f"About 220 µg a day.{hidden}gnp.live{CITED}"
    generated = _generated(Says(said))
    assert not generated.extractive and generated.text == f"About 220 µg a day.{left}gnp.live{CITED}"  # the ESC is gone
    shown, streamed = _streamed(Says(said[:12], said[12:]))
    assert "".join(shown) == generated.text and streamed.text == generated.text
