"""A misspelled emergency word is read as the guard's examples write it, for the patterns and the framing."""

from __future__ import annotations

from unitrag.rag.guard.screen import Guard
from unitrag.rag.search.spelling import Speller

EXAMPLES = ["crushing chest pressure and I can't catch my breath", "he collapsed and is not breathing"]
RULE = {"id": "rf-chest", "type": "red_flag", "patterns_en": [r"\bchest pressure\b.*\bbreath\b"], "patterns_zh": [],
        "response_en": "Call an ambulance.", "response_zh": "打120。"}
TYPED = "chest presure and short of breth started at the gym 30 mins ago"


def _no_chunk_carries(stem: str) -> int:
    return 0


def test_a_word_one_edit_from_an_example_word_is_read_as_it() -> None:
    speller = Speller.from_examples(EXAMPLES, _no_chunk_carries)
    assert speller.correct(TYPED) == "chest pressure and short of breath started at the gym 30 mins ago"
    assert speller.correct("he colapsed at dinner") == "he collapsed at dinner"


def test_common_words_and_words_the_chunks_carry_are_left_alone() -> None:
    speller = Speller.from_examples(EXAMPLES, lambda stem: 3 if stem == "presur" else 0)
    assert speller.correct("the presure gauge") == "the presure gauge"  # the knowledge base knows it
    assert Speller.from_examples(["he is bleeding"], _no_chunk_carries).correct("my bleeping phone") == "my bleeping phone"


def test_the_pattern_stops_the_misspelled_emergency_only_when_the_guard_spells() -> None:
    speller = Speller.from_examples(EXAMPLES, _no_chunk_carries)
    assert Guard.from_rows([RULE]).check(TYPED, "en") is None
    outcome = Guard.from_rows([RULE], spell=speller.correct).check(TYPED, "en")
    assert outcome is not None and outcome.type == "red_flag" and outcome.reason == "pattern"


def test_a_pattern_written_for_the_misspelling_still_matches_it() -> None:
    rule = {**RULE, "patterns_en": [r"\bpresure\b"]}
    outcome = Guard.from_rows([rule], spell=Speller.from_examples(EXAMPLES, _no_chunk_carries).correct).check(TYPED, "en")
    assert outcome is not None and outcome.rule == "rf-chest"
