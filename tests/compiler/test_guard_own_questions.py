"""The knowledge base's own unit questions: negatives of the out-of-scope threshold, and reported when a rule stops one."""

from __future__ import annotations

import numpy as np

from unitrag.compiler.guard_examples import model_rows, near_misses_stopped, own_questions_flagged
from unitrag.content.guard_model import GuardRule
from unitrag.compiler.guard_fit import NONE, fit_guard, probabilities

RULES = [
    {"id": "red-a", "type": "red_flag", "patterns_en": [r"\bcatch(es)? fire\b"], "patterns_zh": [], "response_en": "Call."},
    {"id": "oos-cars", "type": "out_of_scope", "patterns_en": [], "patterns_zh": [], "response_en": "No."},
]


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v, axis=-1, keepdims=True)).astype(np.float32)


def _data(seed: int = 0) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Out-of-scope examples and negatives apart; unit questions halfway between (a bike KB that refuses cars)."""
    rng = np.random.default_rng(seed)
    cars, ordinary = 4 * np.eye(16)[0], 4 * np.eye(16)[1]
    X = _unit(np.concatenate([cars + rng.normal(size=(8, 16)), ordinary + rng.normal(size=(60, 16))]))
    own = _unit(0.8 * cars + 0.2 * ordinary + 0.5 * rng.normal(size=(5, 16)))
    return X, ["oos-cars"] * 8 + [NONE] * 60, own


def test_own_questions_raise_an_out_of_scope_threshold_that_would_refuse_them() -> None:
    X, labels, own = _data()
    alone = fit_guard(X, labels, {"oos-cars": "out_of_scope"})
    anchored = fit_guard(X, labels, {"oos-cars": "out_of_scope"}, in_scope=own)
    assert alone is not None and anchored is not None
    assert np.array_equal(alone.weights, anchored.weights)  # never fitted on: only the threshold moves
    own_mass = probabilities(own, anchored.weights, anchored.intercepts)[:, 1]
    assert (own_mass >= alone.thresholds["out_of_scope"]).any()  # the precision threshold alone refuses some
    assert anchored.thresholds["out_of_scope"] > alone.thresholds["out_of_scope"]
    assert anchored.thresholds["out_of_scope"] > own_mass.max() or anchored.thresholds["out_of_scope"] == 0.95  # the ceiling


def test_the_build_reports_own_questions_a_pattern_or_score_stops() -> None:
    X, labels, own = _data(1)
    rows = [{"rule_id": lab if lab != NONE else None, "role": "example" if lab != NONE else "near_miss",
             "lang": "en", "text": f"t{i}", "embedding": v.tolist()} for i, (v, lab) in enumerate(zip(X, labels))]
    rows += [{"rule_id": "unit-battery", "role": "unit_question", "lang": "en", "text": "Can an e-bike battery catch fire?",
              "embedding": own[0].tolist()},
             {"rule_id": "unit-chain", "role": "unit_question", "lang": "en", "text": "How often do I oil my chain?",
              "embedding": _unit(np.eye(16)[1]).tolist()}]
    flagged = own_questions_flagged(model_rows(rows, RULES))
    assert {"unit": "unit-battery", "text": "Can an e-bike battery catch fire?", "rule": "red-a", "by": "pattern",
            "pattern": r"\bcatch(es)? fire\b", "restricted": False} in flagged  # the pattern that stops it, as written
    assert not [f for f in flagged if f["unit"] == "unit-chain"]
    assert own_questions_flagged([]) == []


def test_a_near_miss_its_own_rule_s_pattern_stops_is_reported_with_the_pattern() -> None:
    shock = GuardRule.model_validate({
        "id": "red-flag-electric-shock", "type": "red_flag",
        "patterns": {"en": [r"\bstuck to\b", r"\b(being|getting)\s+(electrocuted|shocked)\b"], "zh": ["(正在|被)触电"]},
        "response": {"en": "Cut the power.", "zh": "先断电。"},
        "near_misses": {"en": ["How does an RCD stop you being electrocuted?", "Why do I get a static shock?"],
                        "zh": ["漏电保护器为什么能防触电？"]}})
    other = GuardRule.model_validate({  # another rule's pattern stopping a near-miss is no contradiction of its author
        "id": "oos-static", "type": "out_of_scope", "patterns": {"en": ["static"]}, "response": {"en": "No."}})
    assert near_misses_stopped([shock, other]) == [
        {"rule": "red-flag-electric-shock", "type": "red_flag", "text": "How does an RCD stop you being electrocuted?",
         "pattern": r"\b(being|getting)\s+(electrocuted|shocked)\b"}]


def test_a_restricted_units_questions_never_move_the_threshold_the_public_meets() -> None:
    """A security audit: two car questions added to a mechanic-only unit raised the out-of-scope threshold from 0.7 to
    0.95, so an anonymous "what oil for my scooter engine" was refused in one build and answered in the other (and
    the threshold is shown in a refusal). The guard answers every caller alike: public units' questions set it."""
    X, labels, own = _data()
    rows = [{"rule_id": lab if lab != NONE else None, "role": "example" if lab != NONE else "near_miss",
             "lang": "en", "text": f"t{i}", "embedding": v.tolist()} for i, (v, lab) in enumerate(zip(X, labels))]
    public = rows + [{"rule_id": "unit-chain", "role": "unit_question", "lang": "en", "text": "How often do I oil it?",
                      "embedding": _unit(np.eye(16)[1]).tolist()}]
    restricted = public + [{"rule_id": "unit-shop", "role": "clinician_question", "lang": "en", "text": f"car {i}?",
                            "embedding": v.tolist()} for i, v in enumerate(own)]
    threshold = {r["class"]: r["threshold"] for r in model_rows(public, RULES)}
    assert {r["class"]: r["threshold"] for r in model_rows(restricted, RULES)} == threshold
