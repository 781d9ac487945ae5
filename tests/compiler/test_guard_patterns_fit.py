"""Red-flag recall is the guard's as a whole: examples a pattern stops need no score, so they cannot lower the threshold."""

from __future__ import annotations

import numpy as np

from unitrag.compiler.guard_examples import caught_by_patterns, guard_table_hash
from unitrag.compiler.guard_fit import NONE, RED_FLAG_BOUNDS, _recall_threshold, fit_guard

RULES = [
    {"id": "red-a", "type": "red_flag", "patterns_en": [r"\bcan'?t wake\b"], "patterns_zh": ["叫不醒"],
     "response_en": "Call 120."},
    {"id": "oos-c", "type": "out_of_scope", "patterns_en": [r"\bstocks?\b"], "patterns_zh": [], "response_en": "No."},
]


def test_examples_a_pattern_stops_do_not_pull_the_threshold_down() -> None:
    mass = np.array([0.99, 0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.05])
    assert _recall_threshold(mass, np.zeros(10, bool)) == 0.05  # 98% of 10 by score alone: all of them
    caught = np.zeros(10, bool)
    caught[-1] = True  # the weakest score belongs to an example a pattern stops anyway
    assert _recall_threshold(mass, caught) == 0.3
    assert _recall_threshold(mass, np.ones(10, bool)) == 1.0


def test_fit_counts_caught_examples_in_its_recall() -> None:
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(2, 32))
    X = np.concatenate([c + 3.0 * rng.normal(size=(40, 32)) for c in centres])  # overlapping: recall is costly
    X = (X / np.linalg.norm(X, axis=1, keepdims=True)).astype(np.float32)
    labels = [NONE] * 40 + ["red-a"] * 40
    alone = fit_guard(X, labels, {"red-a": "red_flag"})
    caught = [False] * 40 + [True] * 20 + [False] * 20
    helped = fit_guard(X, labels, {"red-a": "red_flag"}, caught)
    assert alone is not None and helped is not None
    assert helped.metrics["red_flag"]["fitted"] > alone.metrics["red_flag"]["fitted"]
    low, high = RED_FLAG_BOUNDS
    for fit in (alone, helped):  # the threshold is the fitted point held within the bounds
        assert fit.thresholds["red_flag"] == min(max(fit.metrics["red_flag"]["fitted"], low), high)
    metrics = helped.metrics["red_flag"]
    assert metrics["cv_recall_with_patterns"] > metrics["cv_recall"]


def test_caught_by_patterns_marks_only_examples_their_types_patterns_stop() -> None:
    rows = [
        {"rule_id": "red-a", "role": "example", "text": "my dad is diabetic and I can't wake him"},
        {"rule_id": "red-a", "role": "example", "text": "我妈怎么叫都叫不醒"},
        {"rule_id": "red-a", "role": "example", "text": "my dad is diabetic and very drowsy"},
        {"rule_id": None, "role": "near_miss", "text": "I can't wake up early, what breakfast is quick"},
        {"rule_id": "oos-c", "role": "example", "text": "which stocks should I buy"},
    ]
    assert caught_by_patterns(rows, RULES) == [True, True, False, False, True]


def test_a_pattern_change_refits() -> None:
    rows = [{"rule_id": None, "role": "title", "lang": "en", "text": "Iron", "content_hash": "x"}]
    edited = [dict(RULES[0], patterns_en=[r"\bunconscious\b"]), RULES[1]]
    assert guard_table_hash(rows, RULES) != guard_table_hash(rows, edited)
    assert guard_table_hash(rows, RULES) == guard_table_hash(rows, [dict(r) for r in RULES])


def test_the_build_fit_is_told_what_the_patterns_stop(monkeypatch) -> None:
    import unitrag.compiler.guard_examples as guard_examples

    seen: dict[str, object] = {}

    def fake_fit(vectors, labels, types, caught=None, in_scope=None):
        seen["caught"] = list(caught) if caught is not None else None

    monkeypatch.setattr(guard_examples, "fit_guard", fake_fit)
    rows = [{"rule_id": "red-a", "role": "example", "text": "I can't wake her", "embedding": [1.0, 0.0]},
            {"rule_id": None, "role": "near_miss", "text": "sleepy after lunch", "embedding": [0.0, 1.0]}]
    assert guard_examples.model_rows(rows, RULES) == []
    assert seen["caught"] == [True, False]
