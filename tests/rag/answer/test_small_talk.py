"""A message that is only small talk gets a reply naming the knowledge base; any other word makes it a question."""

from __future__ import annotations

import pytest

from unitrag.config import Config
from unitrag.rag.answer.prompt import Identity
from unitrag.rag.answer.small_talk import MAX_CHARS, small_talk, small_talk_reply
from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.rag.types import UserContext

from ..test_knowledge_base import encoder, small_store  # noqa: F401  (the module's fixture)


@pytest.mark.parametrize(("message", "kind"), [
    ("hi", "greeting"), ("Hello there!!! 👋", "greeting"), ("你好", "greeting"), ("你 好 啊", "greeting"),
    ("在吗？", "greeting"), ("thanks!", "thanks"), ("Thank you so much 🙏", "thanks"), ("谢谢你", "thanks"),
    ("bye", "farewell"), ("拜拜", "farewell"), ("who are you?", "about"), ("hi, what can you do?", "about"),
    ("你能做什么？", "about"), ("help", "about"),
    # two readers' and a tea shop's: a particle, praise and "for the help" beside the thanks
    ("谢谢啦", "thanks"), ("好的谢谢呀", "thanks"), ("thanks for the help!", "thanks"), ("thanks, you're great", "thanks"),
    ("hi there, thanks for the help!", "greeting"), ("你好吗？", "greeting"), ("太棒了，谢谢", "thanks"),
])
def test_a_message_of_small_talk_only_is_recognised(message: str, kind: str) -> None:
    assert small_talk(message) == kind


@pytest.mark.parametrize("message", [
    "hi, how much salt a day?", "thanks, and what about zinc?", "high blood pressure", "help me lower my LDL",
    "谢谢，那孕妇呢？", "你好，碘盐怎么吃", "ok", "", "hey " * (MAX_CHARS // 4 + 1),
    "great", "好的", "thanks for the help with iron", "谢谢啦，铁剂怎么吃",
])
def test_any_other_word_makes_it_a_question(message: str) -> None:
    assert small_talk(message) is None


def test_the_reply_names_the_knowledge_base_in_the_answers_language_with_examples() -> None:
    identity = Identity("Bike care", "Looking after bicycles", {"zh": {"name": "自行车保养"}})
    en = small_talk_reply("greeting", "en", identity, ["How often should I oil the chain?"] * 2)
    assert en == ('Hello! I answer questions from the knowledge base "Bike care" (Looking after bicycles). '
                  'For example: "How often should I oil the chain?".')
    zh = small_talk_reply("greeting", "zh", identity, ["链条多久上一次油？"])
    assert zh.startswith("你好！我回答知识库“自行车保养”中的问题") and "“链条多久上一次油？”" in zh
    assert "For example" not in small_talk_reply("thanks", "en", identity, ["q?"])  # thanks lists nothing


@pytest.fixture(scope="module")
def kb(encoder) -> KnowledgeBase:  # noqa: F811
    kb = KnowledgeBase(small_store(encoder), encoder, Config(llm="none", name="Salt and iodine"))
    kb.store.unit_questions = [
        {"unit_id": "en-salt", "text": "How much salt can adults eat?", "lang": "en", "role": "unit_question"},
        {"unit_id": "en-b12-treat", "text": "What IM dose treats B12 deficiency?", "lang": "en", "role": "unit_question"},
        {"unit_id": "zh-iodine", "text": "孕妇每天需要多少碘？", "lang": "zh", "role": "unit_question"},
    ]
    return kb


def test_hi_is_answered_with_what_the_knowledge_base_answers_and_nothing_retrieved(kb) -> None:
    answer = kb.ask("hi!")
    assert answer.not_found and not answer.sources and not answer.citations
    assert 'knowledge base "Salt and iodine"' in answer.answer and '"How much salt can adults eat?"' in answer.answer
    assert "IM dose" not in answer.answer  # a clinician-only unit's question is never offered to the public
    assert "IM dose" in kb.ask("hi!", user=UserContext(roles=["clinician"])).answer
    assert "孕妇每天需要多少碘？" in kb.ask("你好").answer


def test_a_greeting_with_a_question_is_searched_as_usual(kb) -> None:
    assert kb.ask("hi, how much salt a day?").sources
