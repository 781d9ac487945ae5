"""Guard rules as compiled patterns: what a rule of guard.yaml matches, and what it answers with.

The runtime's guard checks questions against these; the build's guard fit asks the same
question of its examples (an example a pattern already stops needs no score), so the
pattern semantics live here, below both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from ..languages import LANGS
from .text.han_script import to_simplified

GuardType = Literal["red_flag", "out_of_scope"]
#: The order in which rule types are checked: safety first.
CHECK_ORDER: tuple[GuardType, ...] = ("red_flag", "out_of_scope")


@dataclass(frozen=True)
class CompiledRule:
    """One compiled rule: its patterns of both languages, its response in each and its caution note (if any)."""

    id: str
    type: GuardType
    patterns: tuple[re.Pattern[str], ...]
    responses: Mapping[str, str]
    cautions: Mapping[str, str] = field(default_factory=dict)
    #: A red flag by similarity alone, with no sign and nothing happening now: "stop" stops it, "caution" answers it with
    #: the note, "unsure" answers it with the note while the score is under ``rag.guard.screen.BARE_STOP``
    similar_without_sign: str = "stop"

    def matches(self, normalized_question: str) -> bool:
        return any(p.search(normalized_question) for p in self.patterns)

    def response(self, lang: str) -> str:
        return self.responses.get(lang) or self.responses["en"]

    def caution(self, lang: str) -> str | None:
        return self.cautions.get(lang) or self.cautions.get("en")


def compile_rule(row: Mapping[str, Any]) -> CompiledRule:
    """A guard rule's row (guard.yaml as the artifact stores it) compiled; a bad pattern or a missing English text is a ValueError naming the rule."""
    rule_id = row["id"]
    if row["type"] not in get_args(GuardType):
        raise ValueError(f"guard rule {rule_id!r}: unknown type {row['type']!r} (known: {', '.join(get_args(GuardType))})")
    patterns: list[re.Pattern[str]] = []
    for lang in LANGS:
        for source in row.get(f"patterns_{lang}") or ():
            try:
                patterns.append(re.compile(to_simplified(source), re.IGNORECASE))  # matched against folded questions
            except re.error as exc:
                raise ValueError(f"guard rule {rule_id!r}: bad {lang} pattern {source!r}: {exc}") from exc
    responses = {lang: row[f"response_{lang}"] for lang in LANGS if row.get(f"response_{lang}")}
    if "en" not in responses:
        raise ValueError(f"guard rule {rule_id!r}: an English response is required (the fallback language)")
    cautions = {lang: row[f"caution_{lang}"] for lang in LANGS if row.get(f"caution_{lang}")}  # absent before schema 8
    if cautions and "en" not in cautions:
        raise ValueError(f"guard rule {rule_id!r}: a caution note needs its English text (the fallback language)")
    similar_without_sign = row.get("similar_without_sign") or "stop"  # absent before schema 9: as it was built
    if similar_without_sign not in ("stop", "unsure", "caution") or similar_without_sign == "caution" and not cautions:
        raise ValueError(f"guard rule {rule_id!r}: similar_without_sign {similar_without_sign!r} is not stop, unsure, "
                         "or caution with a caution note")
    return CompiledRule(id=rule_id, type=row["type"], patterns=tuple(patterns), responses=responses, cautions=cautions,
                        similar_without_sign=similar_without_sign)


def first_match(rules: Iterable[CompiledRule], folded_question: str, rule_type: str) -> CompiledRule | None:
    """The first rule of ``rule_type`` whose patterns match the (normalised) question: what the runtime stops
    on, and what the build's guard fit counts as already stopped."""
    return next((rule for rule in rules if rule.type == rule_type and rule.matches(folded_question)), None)
