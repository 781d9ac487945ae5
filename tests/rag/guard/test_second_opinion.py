"""The guard's LLM second opinion without a model: strict parsing, the band, the deadline, the direction it may move."""

from __future__ import annotations

import re
import time
from typing import Any

import litellm  # noqa: F401  (imported up front: its first import takes longer than the deadline)
import pytest

from unitrag.providers.llm.litellm import LiteLLMChat
from unitrag.rag.answer.prompt import Identity
from unitrag.rag.guard.second_opinion import SecondOpinion, in_band, parse
from unitrag.rag.guard.semantic import SemanticScore


def score(rule_type: str, value: float, threshold: float) -> SemanticScore:
    return SemanticScore(rule_type, "rule-x", value, threshold, "an example", 0.9)


@pytest.mark.parametrize(("text", "match"), [
    ('{"match": true}', True), ('{"match": false}', False), (' ```json\n{"match": true}\n``` ', True),
    ('{"match": "true"}', None), ('{"match": true, "why": "x"}', None), ("yes", None), ("[true]", None), ("", None),
])
def test_only_the_strict_json_is_an_opinion(text: str, match: bool | None) -> None:
    assert parse(text).match is match


def test_band_is_below_the_red_flag_threshold_and_above_the_out_of_scope_one() -> None:
    assert in_band(score("red_flag", 0.3, 0.5)) and not in_band(score("red_flag", 0.2, 0.5))
    assert not in_band(score("red_flag", 0.6, 0.5))  # already fires: never asked to clear a red flag
    assert in_band(score("out_of_scope", 0.7, 0.6)) and not in_band(score("out_of_scope", 0.5, 0.6))
    assert not in_band(score("out_of_scope", 0.95, 0.6))


def mock(response: object) -> SecondOpinion:
    llm = LiteLLMChat("openai/gpt-4o-mini", mock_response=response, api_key="test", num_retries=0)
    return SecondOpinion(lambda: llm)


def test_llm_may_add_a_red_flag_and_clear_an_out_of_scope_refusal_only() -> None:
    assert mock('{"match": true}').decide("q", score("red_flag", 0.3, 0.5), "r")[0] is True
    assert mock('{"match": false}').decide("q", score("red_flag", 0.3, 0.5), "r")[0] is False
    assert mock('{"match": false}').decide("q", score("out_of_scope", 0.7, 0.6), "r")[0] is False
    assert mock('{"match": true}').decide("q", score("out_of_scope", 0.7, 0.6), "r")[0] is True
    assert mock('{"match": true}').decide("q", score("out_of_scope", 0.5, 0.6), "r") == (False, None)  # not asked


def test_a_slow_llm_keeps_the_local_decision_within_the_deadline() -> None:
    class Slow:
        def complete(self, messages: list[dict[str, str]]) -> str:
            time.sleep(2)
            return '{"match": true}'

    started = time.perf_counter()
    fires, opinion = SecondOpinion(lambda: Slow(), deadline_s=0.2).decide("q", score("red_flag", 0.3, 0.5), "r")
    assert fires is False and opinion is not None and "0.2 s" in (opinion.error or "")
    assert time.perf_counter() - started < 1.0


def test_no_llm_configured_or_a_broken_one_is_the_local_decision() -> None:
    assert SecondOpinion(lambda: None).decide("q", score("red_flag", 0.3, 0.5), "r") == (False, None)

    def broken() -> None:
        raise RuntimeError("no such model")

    fires, opinion = SecondOpinion(broken).decide("q", score("red_flag", 0.3, 0.5), "r")
    assert fires is False and "no such model" in (opinion.error or "")


def test_the_prompt_names_this_knowledge_base_not_the_sample(requests: Any) -> None:
    """A bicycle knowledge base's second opinion must not judge "out of scope" against nutrition."""
    llm = LiteLLMChat("openai/gpt-4o-mini", mock_response='{"match": false}', api_key="test", num_retries=0)
    service = Identity("Bike care", "Maintenance of bicycles and e-bikes.").service()
    SecondOpinion(lambda: llm, service=service).decide("q", score("out_of_scope", 0.7, 0.6), "r")
    (sent,) = requests.messages
    assert '"Bike care" (Maintenance of bicycles and e-bikes)' in sent[0]["content"]
    assert not re.search("nutrition|health|medical", sent[0]["content"] + sent[1]["content"], re.IGNORECASE)
