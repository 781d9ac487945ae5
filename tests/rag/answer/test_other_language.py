"""A question in a script neither answered language uses is told which languages to ask in; nothing is retrieved."""

from __future__ import annotations

import pytest

from unitrag.config import Config
from unitrag.rag.answer.other_language import other_language_reply
from unitrag.rag.answer.prompt import Identity
from unitrag.rag.knowledge_base import KnowledgeBase

from ..test_knowledge_base import encoder, small_store  # noqa: F401  (the module's fixture)


def test_the_reply_names_every_answered_language_in_each_of_them() -> None:
    identity = Identity("Bike care", "", {"zh": {"name": "自行车保养"}})
    assert other_language_reply(("en", "zh"), identity) == (
        'The knowledge base "Bike care" answers questions in English or Chinese: please ask in one of them.\n'
        "知识库“自行车保养”只回答用英文或中文提出的问题，请用英文或中文提问。")
    assert other_language_reply(("zh",), identity) == "知识库“自行车保养”只回答用中文提出的问题，请用中文提问。"
    assert other_language_reply(("en",), identity) == (
        'The knowledge base "Bike care" answers questions in English only: please ask in English.')


@pytest.fixture(scope="module")
def kb(encoder) -> KnowledgeBase:  # noqa: F811
    return KnowledgeBase(small_store(encoder), encoder, Config(llm="none", name="Salt and iodine"))


@pytest.mark.parametrize("question", ["ビタミンDは一日どれくらい必要ですか", "성인은 소금을 하루에 얼마나 먹어도 되나요?",
                                      "Сколько соли можно есть в день?"])
def test_a_japanese_korean_or_russian_question_is_asked_again_not_answered(kb, question: str) -> None:
    answer = kb.ask(question)
    assert answer.not_found and not answer.sources and not answer.citations
    assert answer.answer.startswith('The knowledge base "Salt and iodine" answers questions in English or Chinese')
    assert "请用英文或中文提问" in answer.answer


@pytest.mark.parametrize("question", ["how many µg of iodine a day", "血圧の薬と塩", "is β-carotene salt-free?"])
def test_a_question_with_a_few_letters_of_another_script_is_searched_as_usual(kb, question: str) -> None:
    assert kb.ask(question).sources
