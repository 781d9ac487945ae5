"""Bundled everyday questions join the guard's negatives, except those the knowledge base's own rules claim."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from unitrag.compiler.guard_examples import background_class, background_claimed, guard_example_rows, model_rows
from unitrag.compiler.guard_fit import BACKGROUND_WEIGHT, EVERYDAY, NONE, fit_guard, probabilities
from unitrag.content.background import background_sets, everyday_questions
from unitrag.content.guard_model import GuardTexts
from unitrag.content.validate import validate_content

CONTENT = Path(__file__).resolve().parents[2] / "content"
RULES = [
    {"id": "red-a", "type": "red_flag", "patterns_en": [r"\bcan'?t wake\b"], "patterns_zh": [], "response_en": "Call."},
    {"id": "oos-cars", "type": "out_of_scope", "patterns_en": [r"\bgearbox\b"], "patterns_zh": [], "response_en": "No."},
]


def _row(role: str, text: str, vector: list[float], rule_id: str | None = None) -> dict:
    v = np.asarray(vector, dtype=np.float32)
    return {"rule_id": rule_id, "role": role, "lang": "en", "text": text, "embedding": (v / np.linalg.norm(v)).tolist()}


def test_each_bundled_set_is_bilingual_and_no_question_is_in_two() -> None:
    assert set(background_sets()) == {"everyday", "domains", "symptoms"}
    for questions in background_sets().values():
        langs = [lang for lang, _ in questions]
        assert langs.count("en") >= 150 and langs.count("zh") >= 150
    texts = [text.casefold() for _, text in everyday_questions()]
    assert len(set(texts)) == len(texts) and all(texts)


def test_background_joins_the_rows_only_when_some_rule_has_examples() -> None:
    content = validate_content(CONTENT, 200_000)
    rows = guard_example_rows(content)
    background = [r for r in rows if background_class(r["role"])]
    assert len(background) == len(everyday_questions())
    assert {background_class(r["role"]) for r in background} == {EVERYDAY, "(everyday:domains)", "(everyday:symptoms)"}
    assert all(r["rule_id"] is None for r in background)
    bare = [rule.model_copy(update={"examples": GuardTexts(), "near_misses": GuardTexts()}) for rule in content.guard_rules]
    assert not [r for r in guard_example_rows(replace(content, guard_rules=bare)) if background_class(r["role"])]


def test_a_question_nearest_an_out_of_scope_example_or_matched_by_a_pattern_is_claimed() -> None:
    rows = [
        _row("example", "my chest hurts", [1, 0, 0, 0], "red-a"),
        _row("example", "how do I service my car", [0, 1, 0, 0], "oos-cars"),
        _row("background", "my phone battery died", [0.9, 0.1, 0.4, 0]),  # nearest a red flag: stays a negative
        _row("background", "rotate the tyres on my car", [0.1, 0.9, 0.4, 0]),  # nearest out of scope: claimed
        _row("background", "what does a gearbox do", [0, 0, 0, 1]),  # far from every example, but the pattern claims it
        _row("near_miss", "how do I service my car", [0, 1, 0, 0]),  # only background rows are ever claimed
    ]
    assert background_claimed(rows, RULES) == [False, False, False, True, True, False]
    assert background_claimed([r for r in rows if r["role"] != "example"], RULES) == [False] * 4


def test_claimed_background_is_left_out_of_the_fit() -> None:
    rng = np.random.default_rng(0)
    rows = [_row("example", f"e{i}", rng.normal(size=8) + 4 * np.eye(8)[0], "red-a") for i in range(10)]
    rows += [_row("example", f"o{i}", rng.normal(size=8) + 4 * np.eye(8)[1], "oos-cars") for i in range(10)]
    rows += [_row("near_miss", f"n{i}", rng.normal(size=8) + 4 * np.eye(8)[2]) for i in range(10)]
    kept = model_rows(rows, RULES)
    car_like = [_row("background", f"b{i}", rng.normal(size=8) + 4 * np.eye(8)[1]) for i in range(10)]
    with_claimed = model_rows(rows + car_like, RULES)
    # every background row is nearest a car example: none joins the negatives, so the fit is the same
    assert [r["weights"] for r in with_claimed] == [r["weights"] for r in kept]
    ordinary = [_row("background", f"c{i}", rng.normal(size=8) + 4 * np.eye(8)[3]) for i in range(10)]
    fitted = {r["class"]: r for r in model_rows(rows + ordinary, RULES)}
    assert set(fitted) == {r["class"] for r in kept} | {EVERYDAY}  # a class of its own, stopped by no rule
    assert fitted[EVERYDAY]["type"] is None and fitted[EVERYDAY]["threshold"] is None


def test_everyday_questions_do_not_dilute_the_knowledge_bases_own_negatives() -> None:
    """Pooled into NONE, the bundled everyday rows would shrink each own negative's weight in the class-balanced loss."""
    rng = np.random.default_rng(1)
    centres = rng.normal(size=(3, 16))
    X = np.concatenate([c + 2.5 * rng.normal(size=(30, 16)) for c in centres])
    X = (X / np.linalg.norm(X, axis=1, keepdims=True)).astype(np.float32)
    labels = ["red-a"] * 30 + [NONE] * 30 + [EVERYDAY] * 30
    fit = fit_guard(X, labels, {"red-a": "red_flag"})
    assert fit is not None and fit.classes == [NONE, EVERYDAY, "red-a"]
    p = probabilities(X[30:60], fit.weights, fit.intercepts)
    assert (p[:, 2] < 0.5).mean() >= 0.9  # the own negatives stay unstopped
    assert fit.metrics["red_flag"]["negatives"] == 60  # both count as what no rule should stop
    assert fit_guard(X[60:], [EVERYDAY] * 30, {}) is None  # no rule, no classifier


def test_a_further_background_set_is_a_class_of_its_own_that_weighs_less_and_stops_nothing(monkeypatch) -> None:
    """At a full class each, two background sets pull borderline emergencies under the threshold: the second weighs
    ``BACKGROUND_WEIGHT`` of a class, so a question between an emergency and it leans less its way."""
    from unitrag.compiler import guard_fit

    rng = np.random.default_rng(2)
    centres = rng.normal(size=(4, 16))
    X = np.concatenate([c + 2.5 * rng.normal(size=(30, 16)) for c in centres])
    X = (X / np.linalg.norm(X, axis=1, keepdims=True)).astype(np.float32)
    domains = background_class("background:domains")
    labels = ["red-a"] * 30 + [EVERYDAY] * 30 + [domains] * 30 + [NONE] * 30
    between = ((X[:30].mean(0) + X[60:].mean(0)) / 2)[None, :]

    def red_at_midpoint() -> float:
        fit = fit_guard(X, labels, {"red-a": "red_flag"})
        assert fit is not None and fit.classes == [NONE, EVERYDAY, domains, "red-a"]
        assert fit.metrics["red_flag"]["negatives"] == 90  # both sets count as what no rule should stop
        return float(probabilities(between, fit.weights, fit.intercepts)[0, 3])

    assert 0 < BACKGROUND_WEIGHT < 1
    weighted = red_at_midpoint()
    monkeypatch.setattr(guard_fit, "BACKGROUND_WEIGHT", 1.0)
    assert weighted > red_at_midpoint() + 0.01
