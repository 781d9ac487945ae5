"""A guard rule as its author writes it in guard.yaml: patterns, the safe response or refusal, its examples and
near-misses, a caution note; what the build compiles (``guard_rules``) and fits the classifier on."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictBool, model_validator

from .models import InOurLanguages, Slug, Strict


class GuardPatterns(Strict):
    en: list[str] = Field(default_factory=list)
    zh: list[str] = Field(default_factory=list)


class GuardResponse(InOurLanguages):
    """A rule's text in each of the knowledge base's languages (unitrag.toml: languages); a language it does not
    declare may be left out (a question in it gets the other language's text)."""


class GuardTexts(Strict):
    """Short questions in each language (``zh`` entries must contain Chinese, ``en`` entries Latin letters)."""

    en: list[str] = Field(default_factory=list)
    zh: list[str] = Field(default_factory=list)

    def items(self) -> list[tuple[str, str]]:
        """(lang, text) pairs, English first, in file order."""
        return [("en", t) for t in self.en] + [("zh", t) for t in self.zh]


class GuardRule(Strict):
    """A red flag (fixed safe answer) or an out-of-scope pattern (refusal)."""

    id: Slug
    type: Literal["red_flag", "out_of_scope"]
    patterns: GuardPatterns
    response: GuardResponse = Field(
        description="The fixed safe answer (red flag) or the refusal (out of scope), in each of the knowledge base's "
                    "languages (unitrag.toml: languages = [\"zh\"] needs zh only); a question in another language gets "
                    "one it has.")
    examples: GuardTexts = Field(
        default_factory=GuardTexts,
        description="Questions this rule must stop, in lay words (embedded at build: a question close to them is stopped "
                    "even when no pattern matches). A red-flag rule with examples needs at least 6 in each of the "
                    "knowledge base's languages (unitrag.toml).")
    near_misses: GuardTexts = Field(
        default_factory=GuardTexts,
        description="Benign questions with the same vocabulary that must pass (hard negatives for the fitted threshold).")
    caution: GuardResponse | None = Field(
        default=None,
        description="Red flags only: a short safety line (in each of the knowledge base's languages) added to the "
                    "normal answer when the rule fires on a question whose framing is clearly not acute (past, "
                    "hypothetical, general, study, prevention). "
                    "Without it such a question is answered with no note.")
    similar_without_sign: Literal["stop", "unsure", "caution"] = Field(
        default="unsure",
        description="Red flags with a caution note only: what a question gets when only the classifier's similarity "
                    "fires (no pattern) and it tells no sign and nothing happening now (a recent time word alone, yesterday or "
                    "最近, is not now here). unsure (the default): the "
                    "normal answer with the caution note while the classifier is unsure (its score under 0.8), the "
                    "safe response from there. stop: always the safe response. caution: always the note, for a rule "
                    "whose topic ordinary questions share (low mood and stress eating look like the suicide rule's "
                    "examples).")
    exempt_restricted_role: StrictBool = Field(  # a grant: "yes" or 1 is an error, never read as true
        default=False,
        description="Whether a caller with the knowledge base's restricted role (restricted_role in unitrag.toml: staff, "
                    "clinician) is exempt from this rule and answered from the units, the restricted ones included: the "
                    "staff's own incident procedure for the emergency the rule stops for the public, a clinician's "
                    "prescription question. Every other caller is still stopped.")

    @model_validator(mode="after")
    def _caution_on_red_flags(self) -> "GuardRule":
        if self.caution is not None and self.type != "red_flag":
            raise ValueError("caution is for red_flag rules (an out-of-scope request is refused, never answered with a note)")
        if self.similar_without_sign == "caution" and self.caution is None:
            raise ValueError("similar_without_sign: caution needs the rule's caution note (the line shown with the answer)")
        return self
