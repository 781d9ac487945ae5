"""The first stage of every question: red flags and out-of-scope requests never reach retrieval.

A possible emergency gets the rule's fixed safe response and nothing else: no
retrieval, no LLM, so nothing can dilute or contradict it. An out-of-scope
request gets a refusal. Red flags are checked before out-of-scope rules, so a
question that is both ("my kid swallowed pills, can I sue?") gets the safety
message. Patterns of both languages are tried on every question, because a
Chinese question may quote English and the other way round; only the response
follows the question's language.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from .lang import normalize_question
from .types import GuardOutcome

GuardType = Literal["red_flag", "out_of_scope"]
#: The order in which rule types are checked: safety first.
CHECK_ORDER: tuple[GuardType, ...] = ("red_flag", "out_of_scope")
LANGS = ("en", "zh")


@dataclass(frozen=True)
class CompiledRule:
    """One compiled rule: its patterns of both languages and its response in each."""

    id: str
    type: GuardType
    patterns: tuple[re.Pattern[str], ...]
    responses: Mapping[str, str]

    def matches(self, normalized_question: str) -> bool:
        return any(p.search(normalized_question) for p in self.patterns)

    def response(self, lang: str) -> str:
        return self.responses.get(lang) or self.responses["en"]


class Guard:
    """Guard rules compiled once (case-insensitive), checked in ``CHECK_ORDER`` then file order."""

    def __init__(self, rules: Iterable[CompiledRule]) -> None:
        rules = list(rules)
        self.rules: tuple[CompiledRule, ...] = tuple(r for t in CHECK_ORDER for r in rules if r.type == t)

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]]) -> "Guard":
        """Build from rows of the artifact's ``guard_rules`` table; a bad rule is an error, never skipped."""
        return cls(_compile(row) for row in rows)

    def check(self, question: str, lang: str) -> GuardOutcome | None:
        """The first rule the question triggers, with its response in ``lang``; None when it may proceed."""
        text = normalize_question(question)
        if not text:
            return None
        for rule in self.rules:
            if rule.matches(text):
                return GuardOutcome(type=rule.type, rule=rule.id, response=rule.response(lang))
        return None

    def __len__(self) -> int:
        return len(self.rules)


def _compile(row: Mapping[str, Any]) -> CompiledRule:
    rule_id = row["id"]
    if row["type"] not in get_args(GuardType):
        raise ValueError(f"guard rule {rule_id!r}: unknown type {row['type']!r} (known: {', '.join(get_args(GuardType))})")
    patterns: list[re.Pattern[str]] = []
    for lang in LANGS:
        for source in row.get(f"patterns_{lang}") or ():
            try:
                patterns.append(re.compile(source, re.IGNORECASE))
            except re.error as exc:
                raise ValueError(f"guard rule {rule_id!r}: bad {lang} pattern {source!r}: {exc}") from exc
    responses = {lang: row[f"response_{lang}"] for lang in LANGS if row.get(f"response_{lang}")}
    if "en" not in responses:
        raise ValueError(f"guard rule {rule_id!r}: an English response is required (the fallback language)")
    return CompiledRule(id=rule_id, type=row["type"], patterns=tuple(patterns), responses=responses)
