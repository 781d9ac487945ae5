"""The LLM translation probe without a model: strict output, the deadline, the cache, and what it may change."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from unitrag.providers.llm.litellm import LiteLLMChat
from unitrag.rag.answer.prompt import Identity
from unitrag.rag.search.translate import QueryTranslator, usable

QUESTION = "is table salt with added iodine needed if I eat seaweed?"
CHINESE = "如果我吃海带，还需要吃加碘盐吗？"


@pytest.mark.parametrize(("data", "expected"), [
    ({"translation": CHINESE}, CHINESE),
    ({"translation": " 如果我吃海带，\n还需要\u200b吃加碘盐吗？ "}, "如果我吃海带， 还需要吃加碘盐吗？"),  # control and format characters go
    ({"translation": CHINESE, "note": "x"}, None),  # anything besides the one key
    ({"translation": ["如果"]}, None),
    ({"translation": "Is iodised salt needed if I eat seaweed?"}, None),  # not in the target language
    ({"translation": QUESTION}, None),
    ({"translation": "  "}, None),
    ({"translation": "海带" * 200}, None),  # far longer than any translation of the question
])
def test_only_a_translation_into_the_target_language_is_used(data: dict, expected: str | None) -> None:
    text, error = usable(data, QUESTION, "zh")
    assert text == expected
    assert (error is None) == (expected is not None)


def mocked(reply: str) -> LiteLLMChat:
    return LiteLLMChat("openai/gpt-4o-mini", mock_response=reply, api_key="test", num_retries=0)


def test_a_translation_is_held_to_the_question_length_bound() -> None:
    long_question = "iodine and seaweed " * 50  # 950 characters: four times that would pass the ratio check
    translation = "碘和海带" * 100  # 400 characters
    assert usable({"translation": translation}, long_question, "zh", max_chars=2000)[0] == translation
    assert usable({"translation": translation}, long_question, "zh", max_chars=300)[0] is None


def test_a_translation_is_asked_once_per_question_and_target() -> None:
    made = []
    llm = mocked(json.dumps({"translation": CHINESE}, ensure_ascii=False))

    def factory() -> LiteLLMChat:
        made.append(1)
        return llm

    translator = QueryTranslator(factory)
    assert translator.translate(QUESTION, "zh") == CHINESE
    assert translator.translate(QUESTION, "zh") == CHINESE
    assert len(made) == 1  # the second came from the cache


@pytest.mark.parametrize("reply", ["Sure! 如果我吃海带，还需要吃加碘盐吗？", '{"translation": 42}', "[]"])
def test_free_text_or_a_wrong_shape_is_no_translation(reply: str) -> None:
    translator = QueryTranslator(lambda: mocked(reply))
    assert translator.translate(QUESTION, "zh") is None
    assert translator.last_error


def test_a_slow_llm_is_given_up_on_at_the_deadline() -> None:
    class Slow:
        def complete(self, messages: list[dict[str, str]]) -> str:
            time.sleep(2)
            return json.dumps({"translation": CHINESE})

    started = time.perf_counter()
    translator = QueryTranslator(lambda: Slow(), deadline_s=0.2)
    assert translator.translate(QUESTION, "zh") is None
    assert "0.2 s" in (translator.last_error or "")
    assert time.perf_counter() - started < 1.0


def test_no_llm_or_a_broken_one_is_no_translation() -> None:
    assert QueryTranslator(lambda: None).translate(QUESTION, "zh") is None

    def broken() -> None:
        raise RuntimeError("no such model")

    translator = QueryTranslator(broken)
    assert translator.translate(QUESTION, "zh") is None and "no such model" in (translator.last_error or "")


def test_the_translator_is_told_which_knowledge_base_it_searches(requests: Any) -> None:
    reply = json.dumps({"translation": "链条多久上一次油？"}, ensure_ascii=False)
    service = Identity("Bike care", "Maintenance of bicycles and e-bikes.").service()
    assert QueryTranslator(lambda: mocked(reply), service=service).translate("how often should I oil the chain?", "zh")
    (sent,) = requests.messages
    assert '"Bike care"' in sent[0]["content"] and "nutrition" not in sent[0]["content"]
