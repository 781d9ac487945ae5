"""A labelled question (eval/*.yaml): which units answer it, or that none does, or what the guard does with it; what
`unitrag eval` scores and `unitrag calibrate` fits on."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictBool, ValidationInfo, field_validator, model_validator

from ..access import ROLE_PATTERN
from .models import AnswerFact, Lang, Slug, Strict


class QuestionUser(Strict):
    """Who asks: the user context the app would pass (see ``unitrag.rag.types.UserContext``)."""

    roles: list[Annotated[str, Field(pattern=ROLE_PATTERN)]] = Field(
        default_factory=list, description="The knowledge base's restricted role (restricted_role): may read its restricted units.")
    current_topic: Slug | None = Field(default=None, description="The topic the user is looking at (boosted).")
    triggered_rules: list[Slug] = Field(default_factory=list, description="Rules the user's report triggered (boosted).")
    recent_scenes: list[Slug] = Field(default_factory=list, description="Scenes the user read recently (boosted).")


class LabelledQuestion(Strict):
    """One labelled question (eval/questions.yaml): which units answer it, or that none does, or that a guard stops it.

    Exactly one of ``expected_units``, ``unanswerable: true`` and ``guard``.
    """

    id: Slug
    question: str = Field(min_length=1)
    lang: Lang
    expected_units: list[Slug] = Field(
        default_factory=list,
        description="Ids of units that answer the question (any one is enough; all of them count for recall).",
    )
    unanswerable: bool = Field(default=False, description="No unit answers it: the right answer is \"not found\".")
    guard: Literal["red_flag", "out_of_scope", "caution", "pass"] | None = Field(
        default=None, description="The guard outcome expected before any retrieval (guard.yaml); pass: a look-alike the "
                                  "guard must let through, scored for the guard only; caution: a look-alike answered "
                                  "with its rule's safety note (answered at all counts as right; the note is reported).")
    guard_rule: Slug | None = Field(
        default=None, description="With guard: red_flag | out_of_scope, the rule expected to fire; with guard: pass or "
                                  "caution, the rule the question looks like (per-rule near-miss figures).")
    answer_facts: list[AnswerFact] = Field(
        default_factory=list,
        description="With expected_units: the facts a correct answer states, each a list of accepted spellings "
                    "(any one is enough), e.g. [[\"1,000 mg\", \"1000毫克\"], [\"with food\", \"随餐\"]]; a bare string is a "
                    "fact with one spelling. Matched after case, whitespace, thousands separators and unit spellings "
                    "(µg/mcg/微克, mg/毫克, g/克, °C/℃) are folded; a number never matches part of a longer one. "
                    "`unitrag eval` reports the share of answers that state every fact.",
    )
    phrasing: str | None = Field(default=None, alias="register",
                                 description="How the question is written (first person, typo, ...): reporting only.")
    user: QuestionUser | None = Field(default=None, description="The user context to ask with (default: anonymous).")
    starter: StrictBool = Field(
        default=False, description="true on the example questions `unitrag init` writes about its starter units and rules: "
                                   "once those are removed the question is left out with a note, not an error.")
    category: Literal[
        "cross_en_zh", "cross_zh_en", "same_lang", "unanswerable_in_domain", "unanswerable_near_miss",
        "unanswerable_off_domain", "restricted", "user_context",
    ] | None = Field(default=None, description="Held-out test questions only (eval/questions_test.yaml): what the "
                                                "question tests, for per-category figures. Calibration refuses them.")

    @field_validator("answer_facts")
    @classmethod
    def _facts_need_an_answer(cls, facts: list[list[str]], info: ValidationInfo) -> list[list[str]]:
        if facts and (info.data.get("unanswerable") or info.data.get("guard") is not None):
            raise ValueError("answer_facts need expected_units: an unanswerable or guard question has no answer "
                             "to state facts; remove answer_facts or label the units that answer it")
        return facts

    @model_validator(mode="after")
    def _one_label(self) -> "LabelledQuestion":
        labels = [name for name, set_ in (("expected_units", bool(self.expected_units)),
                                          ("unanswerable: true", self.unanswerable), ("guard", self.guard is not None)) if set_]
        if len(labels) != 1:
            found = " and ".join(labels) if labels else "none of them"
            raise ValueError(f"give exactly one of expected_units, unanswerable: true, guard (found {found})")
        if self.guard_rule is not None and self.guard is None:
            raise ValueError("guard_rule needs guard: red_flag, out_of_scope, caution or pass")
        return self

    @property
    def answerable(self) -> bool:
        return bool(self.expected_units)
