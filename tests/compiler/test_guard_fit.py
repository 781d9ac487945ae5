"""The guard classifier's fit on synthetic vectors: it separates what it should, thresholds follow their targets."""

from __future__ import annotations

import numpy as np

from unitrag.compiler.guard_fit import NONE, OUT_OF_SCOPE_BOUNDS, RED_FLAG_BOUNDS, fit_guard, probabilities


def clusters(seed: int = 0, per: int = 30, dim: int = 32, spread: float = 0.35) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(4, dim))
    labels = [NONE, "red-a", "red-b", "oos-c"]
    X = np.concatenate([c + spread * rng.normal(size=(per, dim)) for c in centres])
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X.astype(np.float32), [label for label in labels for _ in range(per)]


TYPES = {"red-a": "red_flag", "red-b": "red_flag", "oos-c": "out_of_scope"}


def test_fit_separates_the_rules_and_thresholds_stay_in_bounds() -> None:
    X, labels = clusters()
    fit = fit_guard(X, labels, TYPES)
    assert fit is not None and fit.classes == [NONE, "oos-c", "red-a", "red-b"]
    predicted = [fit.classes[i] for i in probabilities(X, fit.weights, fit.intercepts).argmax(axis=1)]
    assert np.mean([p == label for p, label in zip(predicted, labels)]) > 0.95
    assert RED_FLAG_BOUNDS[0] <= fit.thresholds["red_flag"] <= RED_FLAG_BOUNDS[1]
    assert OUT_OF_SCOPE_BOUNDS[0] <= fit.thresholds["out_of_scope"] <= OUT_OF_SCOPE_BOUNDS[1]
    assert fit.metrics["red_flag"]["cv_recall"] >= 0.95 and fit.metrics["red_flag"]["examples"] == 60


def test_fit_is_deterministic() -> None:
    X, labels = clusters()
    a, b = fit_guard(X, labels, TYPES), fit_guard(X, labels, TYPES)
    assert a is not None and b is not None
    assert np.array_equal(a.weights, b.weights) and a.thresholds == b.thresholds


def test_no_rule_with_examples_means_no_classifier() -> None:
    X, _ = clusters()
    assert fit_guard(X, [NONE] * len(X), TYPES) is None


def test_overlapping_rules_lower_the_red_flag_threshold_to_keep_recall() -> None:
    X, labels = clusters(spread=1.5)  # the clusters overlap: recall needs a lower threshold
    fit = fit_guard(X, labels, TYPES)
    assert fit is not None and fit.metrics["red_flag"]["cv_recall"] >= 0.9


def test_a_few_out_of_scope_examples_never_set_the_threshold_under_its_floor() -> None:
    """With 6 examples the 97%-precision point is the one highest negative out of fold: 0.6 here, held at 0.7."""
    from unitrag.compiler.guard_fit import _thresholds

    positives, negatives = np.full(6, 0.6), np.linspace(0.05, 0.5, 40)
    scores = np.concatenate([negatives, positives])
    oof = np.column_stack([1 - scores, scores]).astype(np.float32)
    y = np.array([0] * 40 + [1] * 6)
    thresholds, metrics = _thresholds(oof, y, ["", "out_of_scope"], np.zeros(46, bool), np.zeros((0, 2), np.float32))
    assert metrics["out_of_scope"]["fitted"] == 0.6
    assert thresholds["out_of_scope"] == OUT_OF_SCOPE_BOUNDS[0] == 0.7
