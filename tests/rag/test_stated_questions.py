"""A question one span of a source states whole: a table row's code, or a span saying every word of it."""

from __future__ import annotations

from unitrag.rag.stated_questions import codes_in, states_the_question
from unitrag.rag.types import Source

TABLE = ("The screen shows a code:\n\n| code | meaning |\n|---|---|\n| E-204 | payment declined |\n"
         "| E-620 | charger offline |\n")
PROSE = "Free T4 and TSH are measured together; a low TSH with a high T4 points to an overactive thyroid."
HOURS = ("Lift opening hours:\n\n| lift | opens | closes |\n|---|---|---|\n| Pine Quad chairlift | 9:00 | 16:00 |\n"
         "| Eagle Express chairlift | 8:45 | 16:15 |\n| Summit Gondola | 8:30 | 16:00 |\n\n"
         "Harbour Market Garage charges its own parking fee of $2 an hour, and its height limit is 2.1 m.")


def source(text: str, n: int = 1) -> Source:
    return Source(f"c{n}", f"u{n}", "document", "Help", text, [], ["a"], "public", "en")


def test_codes_are_letters_and_digits_together_folded_and_found_between_chinese_characters() -> None:
    assert codes_in("E-204 on screen??") == {"e204"}
    assert codes_in("屏幕显示E-204是什么意思") == {"e204"}
    assert codes_in("is P3 open, and what about bay 12 or level B?") == {"p3"}
    assert codes_in("how much is 20 kWh") == set()


def test_a_code_in_a_rows_label_states_it_in_any_spelling() -> None:
    """A new team's EV charging help refused "E-204 on screen??" with its error-code table first."""
    assert states_the_question("E-204 on screen??", [source(TABLE)])
    assert states_the_question("what does e204 mean", [source(TABLE)])


def test_a_code_no_row_has_or_one_said_in_prose_states_nothing() -> None:
    assert not states_the_question("E-999 on screen??", [source(TABLE)])
    assert not states_the_question("What is a normal free T4 level?", [source(PROSE)])


def test_a_span_saying_every_word_of_the_question_states_it() -> None:
    """A ski resort's "what time does pine quad close" was refused with its lift-hours table first; "close" is said
    by the column "closes", "what time" only asks for the form."""
    assert states_the_question("what time does pine quad close", [source(HOURS)])
    assert states_the_question("when does the eagle express open", [source(HOURS)])
    assert states_the_question("harbour market garage height limit", [source(HOURS)])


def test_a_word_no_span_says_or_a_question_of_one_word_leaves_it_to_the_gate() -> None:
    assert not states_the_question("is there wifi on the gondola", [source(HOURS)])
    assert not states_the_question("can I bring my dog on the chairlift", [source(HOURS)])
    assert not states_the_question("gondola?", [source(HOURS)])  # one word says too little
    assert not states_the_question("payment declined, why?", [source(PROSE)])


def test_only_the_first_sources_are_read() -> None:
    others = [source(PROSE, n) for n in range(1, 4)]
    assert not states_the_question("E-204 on screen??", [*others, source(TABLE, 9)])
