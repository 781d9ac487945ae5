"""The edge's text checks: questions that say nothing, and text UTF-8 cannot carry, are refused before any work."""

from __future__ import annotations

import json

import pytest

from unitrag.errors import InvalidArgument, UserError
from unitrag.rag.arguments import (
    PADDING_RUN, DuplicateKey, choice, json_once, names, optional_name, question_text, result_count, says_something, shown,
    switch,
)
from unitrag.rag.types import UserContext

#: What the hostile trial got confident extractive answers for (issue 22, item 11), and relatives.
NON_QUESTIONS = [
    "\x00", "\u202e", "😀" * 2000, "(" * 1000 + "a" * 1000, "?!", "\u200b\u200b", "\x07 \x1b",
    "👍🏽‍", "□■▲", "aaaa", "ZzZz", "哈哈哈", "a\u200ba\u200ba", "e\u0301e\u0301e\u0301", "ｗｗｗ",
    "(" + "ab" * 500, "hahaha!", "121212",
    "\u3164\u3164", "\uffa0 \u115f", "\u180b\ufe0f\U000e0100",  # default-ignorable letters and selectors: they draw nothing
]
#: Short real questions, and ordinary ones with emoji, marks or control characters in them.
REAL_QUESTIONS = [
    "B12?", "碘", "VD", "C", "多少钾？", "Is 1000 mg too much?", "I love salt 😋 is that bad?", "café au lait?",
    "zzz... why am I so tired after lunch?", "嗯嗯", "孕妇补碘吗", "2000 kcal?", "abab", "cocoa?",
]


@pytest.mark.parametrize("question", NON_QUESTIONS)
def test_a_question_without_a_word_is_empty(question):
    with pytest.raises(InvalidArgument, match=r"^question: empty .*ask in words"):
        question_text(question, 5000)


@pytest.mark.parametrize("question", REAL_QUESTIONS)
def test_short_and_decorated_real_questions_pass(question):
    assert question_text(question, 5000) == question and says_something(question)


@pytest.mark.parametrize("question, searched", [
    ("what" + "?" * 1000, "what???"),  # was answered from an unrelated unit; "what???" is "not found"
    ("(" * 1000 + "salt", "(((salt"),
    ("😀" * 2000 + " salt?", "😀😀😀 salt?"),
    ("salt!!!! and sugar....", "salt!!! and sugar..."),
])
def test_padding_is_cut_to_a_short_run(question, searched):
    assert question_text(question, 5000) == searched and PADDING_RUN == 3


@pytest.mark.parametrize("question", ["salt \ud800 per day", "ok \udfff", "\ud83d"])
def test_a_lone_surrogate_in_the_question_is_refused_with_where_it_is(question):
    with pytest.raises(InvalidArgument) as raised:
        question_text(question, 5000)
    message = str(raised.value)
    assert message.startswith("question: not valid Unicode text: a lone surrogate U+D") and "at character" in message
    message.encode("utf-8")  # the message itself can be printed, logged and sent


def test_a_byte_that_was_not_utf8_is_named_as_one():
    """A command line of invalid UTF-8 reaches Python as U+DC80-U+DCFF stand-ins: the shell user is told of the byte."""
    raw = b"\xed\xa0\x80\xe5\x80\x9f\xe4\xb9\xa6".decode("utf-8", "surrogateescape")
    with pytest.raises(InvalidArgument) as raised:
        question_text(raw, 5000)
    assert str(raised.value).startswith("question: not UTF-8: byte 0xED at character 1 is not UTF-8 text")


def test_a_surrogate_pair_is_one_character_and_fine():
    assert question_text("salt 😀 per day", 100) == "salt 😀 per day"


def test_lone_surrogates_in_names_and_ids_are_refused():
    with pytest.raises(InvalidArgument, match=r"^topics: not valid Unicode text.*U\+D800"):
        names(["sodium", "x\ud800"], "topics")
    with pytest.raises(InvalidArgument, match=r"^current_topic: not UTF-8: byte 0x80.*lone surrogate U\+DC80"):
        optional_name("\udc80", "current_topic")
    for field in ("triggered_rules", "recent_scenes"):
        with pytest.raises(UserError, match=rf"^{field}: not valid Unicode text"):
            UserContext(**{field: ["en-b12-testing\ud800"]})
    with pytest.raises(UserError, match=r"^roles: not valid Unicode text"):
        UserContext.from_dict({"roles": ["clinician\udfff"]})


@pytest.mark.parametrize(("question", "kept"), [
    ("How\x1b[31m long for V60\u202e?", "How long for V60?"),  # a terminal colour escape and a right-to-left override
    ("B12\x07 dose\x9b?", "B12 dose?"),  # C0 and C1 controls
    ("salt\x00 per day", "salt per day"),
    ("first line\r\nsecond line\twith a tab", "first line\nsecond line\twith a tab"),
    ("\u2067碘\u2069缺乏", "碘缺乏"),  # bidi isolates
    ("👩🏽‍⚕️ 维生素D", "👩🏽‍⚕️ 维生素D"),  # zero-width joiners inside an emoji stay
])
def test_control_characters_never_pass_into_the_question(question: str, kept: str) -> None:
    assert question_text(question, 5000) == kept


# -- a value whose repr raises (audit F7 f) ---------------------------------------------------------


class UnprintableValue:
    """A caller's object whose ``__repr__`` raises: the message about it must not."""

    def __repr__(self) -> str:
        raise RuntimeError("the caller's own repr failed")


@pytest.mark.parametrize("call, argument", [
    (lambda: question_text(UnprintableValue(), 5000), "question"),
    (lambda: names([UnprintableValue()], "roles"), "roles"),
    (lambda: names({UnprintableValue(), UnprintableValue()}, "topics"), "topics"),  # a set is sorted by repr first
    (lambda: names(UnprintableValue(), "kinds"), "kinds"),
    (lambda: optional_name(UnprintableValue(), "current_topic"), "current_topic"),
    (lambda: result_count(UnprintableValue()), "k"),
    (lambda: choice(UnprintableValue(), "lang", ("zh", "en")), "lang"),
    (lambda: switch(UnprintableValue(), "sparse"), "sparse"),
])
def test_a_value_whose_repr_raises_is_an_invalid_argument_naming_the_parameter(call, argument):
    with pytest.raises(InvalidArgument, match=rf"^{argument}: .*<UnprintableValue object whose repr\(\) failed>"):
        call()


def test_opening_a_value_whose_repr_raises_is_an_invalid_argument():
    from unitrag.rag.knowledge_base import KnowledgeBase

    with pytest.raises(InvalidArgument, match=r"^knowledge base: expected an artifact path.*UnprintableValue"):
        KnowledgeBase.open(UnprintableValue())  # type: ignore[arg-type]


def test_a_whole_number_too_long_for_repr_is_shown_by_its_size():
    with pytest.raises(InvalidArgument, match=r"^k: expected a whole number from 1 to 100, got <a whole number of "
                                              r"about 5,000 digits>"):
        result_count(10 ** 5000)  # repr() of it raises ValueError (Python's 4,300-digit limit)
    assert shown(10 ** 30) == repr(10 ** 30)


# -- JSON read once (audit F7 a): the --user-context file and the HTTP body share it -----------------


@pytest.mark.parametrize("text, key", [
    ('{"roles": [], "roles": ["clinician"]}', "roles"),
    ('{"user": {"current_topic": "salt", "current_topic": "iron"}}', "current_topic"),
    ('[{"a": 1, "a": 1}]', "a"),  # the same value twice is refused as well: which one counts is never a guess
])
def test_a_json_key_given_twice_is_a_duplicate_key_naming_it(text, key):
    with pytest.raises(DuplicateKey) as raised:
        json_once(text)
    assert str(raised.value) == f"holds the key {key!r} more than once" and raised.value.key == key
    assert isinstance(raised.value, InvalidArgument) and isinstance(raised.value, ValueError)


def test_json_once_reads_what_json_reads_otherwise():
    text = '{"roles": ["clinician"], "user": {"roles": []}, "list": [{"roles": 1}, {"roles": 2}]}'
    assert json_once(text) == json.loads(text)
    with pytest.raises(ValueError):
        json_once('{"roles": ')


def test_a_word_said_again_and_again_is_cut_to_three() -> None:
    """An attacker's 300 "hi" in front of "my chest hurts" diluted its embedding until the guard let it pass."""
    assert question_text("hi " * 300 + "my chest hurts", 2000) == "hi hi hi my chest hurts"
    assert question_text("你好" * 100 + "我胸口疼", 2000) == "你好你好你好我胸口疼"
    assert question_text("very very good tea, 谢谢谢谢", 2000) == "very very good tea, 谢谢谢谢"  # a few repeats are speech
