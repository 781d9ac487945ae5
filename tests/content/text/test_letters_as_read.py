"""A question's letters as a reader reads them: look-alikes, invisible characters, compatibility forms, spaced letters."""

from __future__ import annotations

import pytest

from unitrag.content.text.letters_as_read import digits_as_letters, letters_as_read
from unitrag.rag.arguments import question_text


@pytest.mark.parametrize(("typed", "read"), [
    ("I w\u0430nt t\u043e kill mys\u0435lf", "I want to kill myself"),
    ("hus\u200bband col\u00adlapsed", "husband collapsed"),
    ("k\u0301ill", "kill"),
    ("\uff56\uff49\uff54\uff41\uff4d\uff49\uff4e \uff24", "vitamin D"),
    ("\U0001d424\U0001d422\U0001d425\U0001d425", "kill"),
    ("\u1d0b\u026a\u029f\u029f", "kill"),
    ("I\u3164want", "I want"),
    ("c r u s h i n g  c h e s t", "crushing  chest"),
    ("my\u200bchest\u200bhurts", "my chest hurts"),  # invisible characters for spaces: the words they part
    ("I\u2060want\u200b\u200bto\ufeffdie", "I want to die"),
    ("k\u200bi\u200bl\u200bl\u200bmyself", "kill myself"),
    ("I w-a-n-t t-o k-i-l-l m-y-s-e-l-f", "I want t-o kill myself"),  # hyphens or dots between letters
    ("k.i.l.l me", "kill me"),
])
def test_a_disguised_word_reads_as_the_word(typed: str, read: str) -> None:
    assert letters_as_read(typed) == read


@pytest.mark.parametrize("plain", [
    "我的B12是180，正常吗？",  # Chinese punctuation and Latin inside Chinese: as written
    "Привет мир",  # a word wholly in another script is no disguise
    "β-carotene in carrots",
    "vitamin a b c",  # three spaced letters are letters
    "e.g. the U.S.A. or an x-ray",  # abbreviations: fewer than four letters
    "How much B12 do I need?",
])

def test_ordinary_text_is_read_as_written(plain: str) -> None:
    assert letters_as_read(plain) == plain

@pytest.mark.parametrize(("typed", "read"), [
    ("kill\u200bmyself", "killmyself"),  # one break in a text of two words: taken as inside a word
    ("my hus\u200bband is\u200bfine", "my husband isfine"),  # a text with spaces: invisible characters are in words
    ("我想了解vita\u200bmin", "我想了解vitamin"),
])
def test_invisible_characters_part_words_only_where_no_space_does(typed: str, read: str) -> None:
    assert letters_as_read(typed) == read


def test_a_digit_for_a_letter_inside_a_word_reads_as_the_letter_for_the_guard_only() -> None:
    assert digits_as_letters("I want to k1ll mys3lf, crushing pa1n, can't br3athe") == (
        "I want to kill myself, crushing pain, can't breathe")
    assert digits_as_letters("B12, D3, CoQ10, omega3, 5mg, 1.5 mg") == "B12, D3, CoQ10, omega3, 5mg, 1.5 mg"
    assert digits_as_letters("i wanna k*ll myself, thinking about su*cide, suic!de") == (
        "i wanna kill myself, thinking about suicide, suicide")
    assert digits_as_letters("*bold* text! Wow!") == "*bold* text! Wow!"  # not between two letters
    # a two-letter word's last letter as a digit (stop 53's attacker): "t0", "g0", "m3"; a vitamin's name stays
    assert digits_as_letters("I w4nt t0 d1e t0night, let m3 g0") == "I want to die tonight, let me go"
    assert digits_as_letters("K2, B6, E3 and d0se 50") == "K2, B6, E3 and dose 50"
    assert letters_as_read("HbA1c k1ll") == "HbA1c k1ll"  # retrieval and the answer read the question as written


def test_every_stage_gets_the_question_as_read() -> None:
    assert question_text("I w\u0430nt t\u043e kill mys\u0435lf", 2000) == "I want to kill myself"
