"""A question naming a table row by its code: which codes, and which rows."""

from __future__ import annotations

from unitrag.rag.row_questions import codes_in, names_a_row
from unitrag.rag.types import Source

TABLE = ("The screen shows a code:\n\n| code | meaning |\n|---|---|\n| E-204 | payment declined |\n"
         "| E-620 | charger offline |\n")
PROSE = "Free T4 and TSH are measured together; a low TSH with a high T4 points to an overactive thyroid."


def source(text: str, n: int = 1) -> Source:
    return Source(f"c{n}", f"u{n}", "document", "Codes", text, [], ["a"], "public", "en")


def test_codes_are_letters_and_digits_together_folded_and_found_between_chinese_characters() -> None:
    assert codes_in("E-204 on screen??") == {"e204"}
    assert codes_in("屏幕显示E-204是什么意思") == {"e204"}
    assert codes_in("is P3 open, and what about bay 12 or level B?") == {"p3"}
    assert codes_in("how much is 20 kWh") == set()


def test_a_code_in_a_rows_label_names_it_in_any_spelling() -> None:
    assert names_a_row("E-204 on screen??", [source(TABLE)])
    assert names_a_row("what does e204 mean", [source(TABLE)])


def test_a_code_no_row_has_or_one_said_in_prose_names_nothing() -> None:
    assert not names_a_row("E-999 on screen??", [source(TABLE)])
    assert not names_a_row("What is a normal free T4 level?", [source(PROSE)])
    assert not names_a_row("payment declined, why?", [source(TABLE)])  # no code asked


def test_only_the_first_sources_are_read() -> None:
    others = [source(PROSE, n) for n in range(1, 4)]
    assert not names_a_row("E-204 on screen??", [*others, source(TABLE, 9)])


HOURS = ("Lift opening hours:\n\n| lift | opens | closes |\n|---|---|---|\n| Pine Quad chairlift | 9:00 | 16:00 |\n"
         "| Eagle Express chairlift | 8:45 | 16:15 |\n| Summit Gondola | 8:30 | 16:00 |\n")


def test_a_row_the_question_names_and_says_every_word_of_answers_it() -> None:
    """A ski resort's "what time does pine quad close" was refused with its lift-hours table first."""
    assert names_a_row("what time does pine quad close", [source(HOURS)])
    assert names_a_row("when does the eagle express open", [source(HOURS)])


def test_a_word_the_named_row_does_not_say_or_a_name_two_rows_share_leaves_it_to_the_gate() -> None:
    assert not names_a_row("is there wifi on the gondola", [source(HOURS)])  # the gondola's row says no wifi
    assert not names_a_row("can I bring my dog on the chairlift", [source(HOURS)])  # two chairlifts, and no dog
    assert not names_a_row("what time does the chairlift close", [source(HOURS)])  # names no one row
