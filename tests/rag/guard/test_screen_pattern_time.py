"""A guard rule's catastrophic pattern at runtime: the question is answered in time, the pattern counts as no match,
and the classifier still decides (``content.guard_rules.PATTERN_TIMEOUT_S``)."""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from unitrag.rag.guard.screen import Guard
from unitrag.rag.guard.semantic import NONE, SemanticGuard

ATTACK = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab recycling"  # what an anonymous caller of `unitrag serve` could send


def rows() -> list[dict[str, Any]]:
    return [
        {"id": "red-flag-slow", "type": "red_flag", "patterns_en": ["^(a|a)+$"], "patterns_zh": [],
         "response_en": "Call emergency services."},
        {"id": "oos-waste", "type": "out_of_scope", "patterns_en": ["^(a|a)+$", r"\brecycling\b"], "patterns_zh": [],
         "response_en": "Not about recycling."},
    ]


def test_a_catastrophic_pattern_costs_a_question_under_a_second_and_the_next_pattern_still_stops_it() -> None:
    guard = Guard.from_rows(rows())
    started = time.perf_counter()
    outcome = guard.check(ATTACK, "en")
    assert time.perf_counter() - started < 1.0
    assert outcome is not None and outcome.rule == "oos-waste"


def test_the_classifier_still_runs_when_a_pattern_runs_out_of_time() -> None:
    model = [{"class": name, "type": kind, "weights": [0.0, 0.0, 0.0], "intercept": math.log(p), "threshold": threshold,
              "metrics": None}
             for name, kind, p, threshold in ((NONE, None, 0.05, None), ("red-flag-slow", "red_flag", 0.95, 0.5))]
    examples = [{"rule_id": "red-flag-slow", "role": "example", "text": "an example", "embedding": [1.0, 0.0, 0.0]}]
    guard = Guard.from_rows(rows(), semantic=SemanticGuard(model, examples),
                            embed=lambda _q: np.array([1.0, 0.0, 0.0], np.float32))
    started = time.perf_counter()
    outcome = guard.check(ATTACK, "en")
    assert time.perf_counter() - started < 1.0
    assert outcome is not None and (outcome.rule, outcome.reason) == ("red-flag-slow", "similarity")
