"""An optional second opinion from the configured LLM on questions the classifier is unsure of.

Never the only line of defence and never needed offline: it is asked only when an LLM
is configured and a score falls in the uncertain band next to its threshold, and it
may only move the decision the cheap way for that type. Below the red-flag threshold
it may add a red flag (a missed emergency costs far more than a false alarm); just
above the out-of-scope threshold it may clear a refusal (a refused question the knowledge
base covers is the failure there). The prompt names the knowledge base (``Identity.service``):
what is out of scope, and what an emergency is, belong to its domain. Any failure (no key, an error, output that is not the strict
JSON asked for, no answer within ``deadline_s``) keeps the local decision.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .semantic import SemanticScore
from ..answer.prompt import UNNAMED
from ...providers.llm.json_reply import ask_json, json_object

#: Red flags: scores from this share of the threshold up to it are asked about.
RED_FLAG_BAND = 0.5
#: Out of scope: scores from the threshold up to this share of the way to 1 are asked about.
OUT_OF_SCOPE_BAND = 0.5
DEADLINE_S = 4.0

SYSTEM = (
    "You check messages sent to {service} before it answers. Decide whether the message "
    "belongs to the category described below. Reply with one JSON object and nothing else: "
    '{{"match": true}} or {{"match": false}}.'
)
CATEGORY = {
    "red_flag": "A possible emergency happening now (a danger to someone's health or safety), of this kind. "
                "The service would reply: {response}",
    "out_of_scope": "A request the service must refuse because it is not about what the service covers. "
                    "The service would reply: {response}",
}


@dataclass(frozen=True)
class Opinion:
    """What the LLM said about one question (``None``: it gave no usable answer, the local decision stood)."""

    match: bool | None
    error: str | None = None


def in_band(score: SemanticScore) -> bool:
    """Whether ``score`` is close enough to its threshold for a second opinion to be worth a call."""
    if score.type == "red_flag":
        return score.threshold * RED_FLAG_BAND <= score.score < score.threshold
    return score.threshold <= score.score < score.threshold + (1 - score.threshold) * OUT_OF_SCOPE_BAND


class SecondOpinion:
    """Asks ``llm()`` (a ``providers.llm.LLM`` or None) within ``deadline_s``; see the module docstring."""

    def __init__(self, llm: Callable[[], Any], deadline_s: float = DEADLINE_S, service: str = UNNAMED.service()) -> None:
        self._llm = llm
        self.service = service
        self.deadline_s = deadline_s

    def decide(self, question: str, score: SemanticScore, response_en: str) -> tuple[bool, Opinion | None]:
        """The decision for ``score`` (fires or not) and the opinion behind it (None: not asked)."""
        local = score.fires
        if not in_band(score):
            return local, None
        try:
            llm = self._llm()
        except Exception as exc:  # a misconfigured LLM must not break the guard
            return local, Opinion(None, f"{type(exc).__name__}: {exc}")
        if llm is None:
            return local, None
        opinion = self._ask(llm, question, score.type, response_en)
        if opinion.match is None:
            return local, opinion
        if score.type == "red_flag":
            return local or opinion.match, opinion
        return local and opinion.match, opinion

    def _ask(self, llm: Any, question: str, rule_type: str, response_en: str) -> Opinion:
        messages = [
            {"role": "system", "content": SYSTEM.format(service=self.service)},
            {"role": "user", "content": f"Category: {CATEGORY[rule_type].format(response=response_en)}\n\nMessage: {question}"},
        ]
        data, error = ask_json(llm, messages, self.deadline_s)
        return Opinion(None, error) if data is None else opinion_of(data)


def parse(text: Any) -> Opinion:
    """Strict: exactly ``{"match": true|false}`` (whitespace and a ```json fence allowed), else no opinion."""
    data, error = json_object(text)
    return Opinion(None, error) if data is None else opinion_of(data)


def opinion_of(data: dict[str, Any]) -> Opinion:
    if set(data) != {"match"} or not isinstance(data["match"], bool):
        return Opinion(None, f"not {{\"match\": true|false}}: {str(data)[:60]!r}")
    return Opinion(data["match"])
