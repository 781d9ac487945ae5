"""A misspelled topic word is read as the knowledge base's own; real words, known words and Chinese never are."""

from __future__ import annotations

import pytest

from unitrag.rag.search.spelling import COMMON, Speller, edit_kind, english_count

TOPICS = [
    {"name_en": "Cholesterol", "name_zh": "胆固醇", "synonyms_en": ["LDL cholesterol", "blood lipids"], "synonyms_zh": []},
    {"name_en": "Iron", "name_zh": "铁", "synonyms_en": ["iron deficiency", "ferritin"], "synonyms_zh": ["PSI"]},
    {"name_en": "Chain", "name_zh": "链条", "synonyms_en": ["chain wear"], "synonyms_zh": []},
    {"name_en": "Tyres", "name_zh": "轮胎", "synonyms_en": ["tires", "tyre pressure"], "synonyms_zh": []},
    {"name_en": "Pregnancy", "name_zh": "怀孕", "synonyms_en": ["pregnant"], "synonyms_zh": []},
]
#: Chunk counts of a few stemmed terms, as a BM25 index holds them ("eggs" → "egg").
CHUNK_TERMS = {"egg": 3, "chain": 5, "cholesterol": 4, "iron": 6, "bad": 1, "worn": 2}


@pytest.fixture(scope="module")
def speller() -> Speller:
    return Speller.from_topics(TOPICS, lambda stem: CHUNK_TERMS.get(stem, 0))


@pytest.mark.parametrize(("asked", "read"), [
    ("is colesterol in eggs bad for me", "is cholesterol in eggs bad for me"),  # a dropped letter
    ("foods high in iorn?", "foods high in iron?"),  # two letters swapped: corrected at 4 letters
    ("how do i know when my chian is worn", "how do i know when my chain is worn"),  # a rare word in English
    ("Im pregant, what now", "Im pregnant, what now"),
    ("Colesterol 6.2 mmol/L", "Cholesterol 6.2 mmol/L"),  # the capital is kept
    ("is ferritn low at 12", "is ferritin low at 12"),  # a synonym's word, not only a name
])
def test_a_misspelled_topic_word_is_read_as_the_topics_word(speller: Speller, asked: str, read: str) -> None:
    assert speller.correct(asked) == read


@pytest.mark.parametrize("question", [
    "I am so tired after riding",  # "tired" is one letter from "tires", and a common English word
    "my chair squeaks",  # "chair" is one letter from "chain"
    "dont want my ferritin low",  # a contraction without its apostrophe; a topic word
    "胆固醇高吃鸡蛋吗",  # Chinese is left as it is
    "b12 levels",  # digits: never a typo of a word
    "xyzzy plugh",  # nothing one edit away
])
def test_known_common_and_foreign_words_stay_as_typed(speller: Speller, question: str) -> None:
    assert speller.correct(question) == question


def test_a_word_the_chunks_hold_is_never_corrected() -> None:
    speller = Speller.from_topics(TOPICS, lambda stem: {"iorn": 1}.get(stem, 0))  # a brand, say, in the units
    assert speller.correct("iorn tablets") == "iorn tablets"


def test_the_english_list_protects_common_words_and_not_typos() -> None:
    assert english_count("tired") >= COMMON and english_count("chair") >= COMMON
    assert english_count("colesterol") < COMMON and english_count("chian") < COMMON


def test_edit_kind_marks_swaps_and_one_edit_only() -> None:
    assert edit_kind("iorn", "iron") is True and edit_kind("iorn", "corn") is False and edit_kind("iorn", "ion") is False
    assert edit_kind("iorn", "irons") is None and edit_kind("iorn", "iorn") is None and edit_kind("chian", "chain") is True
    assert edit_kind("presure", "pressure") is False and edit_kind("colesterol", "cholesterol") is False
    assert edit_kind("abcd", "badc") is None and edit_kind("abcd", "abdx") is None
