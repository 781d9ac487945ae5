"""A sign happening now inside a longer question is scored on its own sentence (``sentences``)."""

from __future__ import annotations

import pytest

from unitrag.content.text.lang import normalize_question
from unitrag.rag.guard.framing import read_framing
from unitrag.rag.guard.sentences import RUN_ON_CHARS, MAX_SENTENCES, acute_sentences, split_sentences


def chosen(question: str) -> list[str]:
    return acute_sentences(question, lambda: read_framing(normalize_question(question)))


def test_sentences_split_at_full_stops_of_both_scripts_but_not_inside_a_number() -> None:
    assert split_sentences("我爸想少吃盐。刚才他突然说不出话了，现在还这样。低钠盐能吃吗？") == [
        "我爸想少吃盐。", "刚才他突然说不出话了，现在还这样。", "低钠盐能吃吗？"]
    assert split_sentences("I take 1.5 mg daily. Right now I can't breathe!\nIs it the pills?") == [
        "I take 1.5 mg daily.", "Right now I can't breathe!", "Is it the pills?"]


def test_a_clause_after_a_semicolon_or_a_comma_bringing_in_a_situation_is_a_sentence() -> None:
    """An attacker's: the emergency between two diet questions, joined by semicolons or ", given", passed the guard."""
    assert split_sentences("我想多吃蔬菜；胸口像压了块大石头，一直冒冷汗；麦片有哪些？") == [
        "我想多吃蔬菜", "胸口像压了块大石头，一直冒冷汗", "麦片有哪些？"]
    assert "given my wife has a squeezing pain behind her breastbone and she is cold and clammy?" in chosen(
        "Which cereals are lowest in sugar, given my wife has a squeezing pain behind her breastbone and she is cold and clammy?")
    assert split_sentences("Oats, rice and beans, please") == ["Oats, rice and beans, please"]  # a list is one clause


@pytest.mark.parametrize("question", [
    "how to reduce sugar, but I'd kill for a donut right now",  # a contrast, a figure of speech: a second attacker's
    "what is a heart-healthy diet, given my dad had chest pain and was hospitalized last week",  # no sign told now
    "how much iron should I take, although I used to feel dizzy and short of breath when anemic",
    "每次感冒嘴唇都起泡，怎么预防",  # the habit is in the other clause (a held-out ordinary question)
])
def test_a_commas_clause_that_tells_no_sign_now_is_not_scored_alone(question: str) -> None:
    assert chosen(question) == []


def test_the_sentence_telling_a_sign_now_is_chosen_and_the_cooking_ones_are_not() -> None:
    question = ("I'm meal-prepping salmon and oats for my cholesterol. Right now I've got a heavy squeezing pain in my "
                "chest that is spreading down my left arm and I'm sweating buckets. Should I bake or pan-fry the salmon?")
    assert chosen(question) == [("Right now I've got a heavy squeezing pain in my chest that is spreading down my "
                                 "left arm and I'm sweating buckets.")]


@pytest.mark.parametrize("question", [
    "my chest is tight and I'm sweating right now",  # one sentence: the whole question's score is that sentence's
    "I'm meal-prepping salmon. This morning I felt a bit tired. Bake or pan-fry?",  # a time word, no sign
    # the sign's sentence is framed as past on its own: a recovery story, not an emergency now
    "Two years ago my dad went grey and clammy and had a heart attack. He is well now. What breakfast suits him?",
])
def test_nothing_is_scored_alone_without_a_sign_told_now_in_a_question_of_several_sentences(question: str) -> None:
    assert chosen(question) == []


def test_a_figure_of_speech_sentence_is_not_scored_alone() -> None:
    question = "This exam is literally killing me today lol. I've stopped eating and I keep saying goodbye to everyone."
    assert chosen(question) == ["I've stopped eating and I keep saying goodbye to everyone."]


def test_at_most_a_few_sentences_are_embedded() -> None:
    question = " ".join(f"Right now my dad is sweating, {i}." for i in range(MAX_SENTENCES + 3))
    assert len(chosen(question)) == MAX_SENTENCES


@pytest.mark.parametrize(("question", "expected"), [
    # a knowledge base outside health: no bodily sign cue, but the question says it is happening now
    ("the socket behind my bed is smoking right now. why?", ["the socket behind my bed is smoking right now."]),
    ("I'm planning a weekend of shelving. The extension lead under my desk is sparking as we speak. Which drill bits?",
     ["The extension lead under my desk is sparking as we speak."]),
    ("周末想装个书架。厨房的插座正在冒烟。用什么膨胀螺丝好？", ["厨房的插座正在冒烟。"]),
])
def test_a_sentence_saying_something_happens_now_is_scored_alone_in_any_domain(question: str, expected: list[str]) -> None:
    assert chosen(question) == expected


@pytest.mark.parametrize("question", ["我正在减肥。晚饭吃什么好？", "我正在学营养学。维生素D怎么补？"])
def test_a_plan_or_a_study_going_on_now_brings_no_sentence_to_score_alone(question: str) -> None:
    assert chosen(question) == []


def test_a_run_on_is_read_as_its_start_and_the_stretch_around_each_now() -> None:
    run_on = "I need advice about my diet and whether I should take a multivitamin " * 17 + "I have crushing chest pain right now"
    pieces = split_sentences(run_on)
    assert len(pieces) == 2 and all(len(p) <= RUN_ON_CHARS for p in pieces)
    assert pieces[1].endswith("I have crushing chest pain right now") and not pieces[1].startswith(" ")
    assert split_sentences("Short one. Right now I have pain.") == ["Short one.", "Right now I have pain."]
