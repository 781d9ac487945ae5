"""The semantic guard's classifier, fitted at build time on the guard rules' examples and near-misses.

A multinomial logistic regression over the question embedding: one class per rule
with examples, plus ``NONE`` (near-misses and the knowledge base's own labelled
questions) and ``EVERYDAY`` (the bundled everyday questions); neither of the last two
counts toward any rule type. It was chosen by measurement over nearest-example similarity (with and
without a margin over near-misses) and k-nearest-neighbour votes: in 5-fold
cross-validation on the sample's examples, near-misses and questions, it kept the
most emergencies for the fewest false alarms (docs/benchmarks/guard.md). Raw similarities
of one small multilingual model crowd together (every emergency looks like every
other), and a linear model learns which directions matter.

A rule type fires on the summed probability of its rules, so an emergency torn
between two red flags (chest pain or stroke?) is still one; the thresholds are fitted
here on out-of-fold probabilities: red flags for recall, out of scope for precision,
each held within its bounds (red flags, for now, at 0.5: see ``RED_FLAG_BOUNDS``).
Red-flag recall is the guard's as a whole: an example a rule's pattern stops needs no
score, so it does not drag the threshold down (which stops more ordinary questions).
Pure NumPy, deterministic: the same content and model give the same numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: Bumped when the fit changes what it makes from the same rows: the next build refits (compiler.guard_examples).
FIT_VERSION = 8
#: The class of everything no rule should stop.
NONE = "(none)"
#: The class of the bundled everyday questions (``content.background``): stopped by no rule either, but a class
#: of its own, so the knowledge base's own negatives keep their full weight in the class-balanced loss
#: (pooled into ``NONE``, 420 questions on cars and laundry made the sample's own health questions look
#: less ordinary: 2 → 5 of 110 dev questions stopped).
EVERYDAY = "(everyday)"
#: The weight, in classes, of each further bundled background set (``(everyday:<set>)``, e.g. the 60 domains' questions).
#: At a full class the domains' set lost two dev emergencies that scored just over 0.5 ("chest presure and short of
#: breth started at the gym 30 mins ago", and a goodbye told through gifts and letters); at half, one
#: (docs/benchmarks/guard.md).
BACKGROUND_WEIGHT = 0.5
FOLDS = 5
#: Out-of-fold red-flag recall the threshold is set for (a missed emergency costs far more than a false alarm),
#: counting the examples a pattern stops anyway (``caught``) as stopped.
#: A cost-weighted threshold (10 false alarms per miss) was tried and measured worse on held-out dev
#: questions (docs/benchmarks/guard.md).
RED_FLAG_RECALL = 0.98
#: Out-of-fold out-of-scope precision the threshold is set for (a refused nutrition question is a failure).
OUT_OF_SCOPE_PRECISION = 0.97
#: Bounds on the fitted thresholds: a degenerate fit (too few examples) must not stop everything or nothing.
#: Red flags are held at 0.5 (floor = ceiling), chosen on dev (benchmarks/guard/guard_fit_dev.py, docs/benchmarks/guard.md):
#: with near-misses in personal registers the fitted 98% point (kept in the metrics as ``fitted``) falls to
#: ~0.3, where a fifth of unseen questions that name a condition are stopped; at 0.5 held-out emergencies
#: stay at 0.96 (pattern or classifier) and those false alarms fall to 5-13 of 80 (0.4: 10-18, 0.45: 8-14).
RED_FLAG_BOUNDS = (0.5, 0.5)
#: Out of scope no lower than 0.7: with a handful of examples the 97% point is the one highest-scoring negative out of
#: fold, and it moves with any change to the fit (bike-care, 6 examples: 0.72, then 0.55 once the second background
#: set joined, refusing its own held-out "公路车胎压一般打多少？" at 0.60). An out-of-scope question let past the
#: guard still meets the answerability gate; an in-domain question refused gets nothing. At 0.7 no labelled
#: out-of-scope question of any example is let through (the lowest stopped by score: 0.99).
OUT_OF_SCOPE_BOUNDS = (0.7, 0.95)
L2 = 1e-5
STEPS = 500
LEARNING_RATE = 0.05


#: The class of a further bundled background set is this prefix, its name and ")".
_FURTHER_SET = "(everyday:"


def background_class(name: str) -> str:
    """The class of the bundled background set ``name`` (``content.background.BACKGROUND_FILES``): ``EVERYDAY`` for the
    everyday set, ``(everyday:<name>)`` for a further one."""
    return EVERYDAY if name == "everyday" else f"{_FURTHER_SET}{name})"


def is_background(name: str) -> bool:
    """Whether a class is a bundled background set's (``background_class``): stopped by no rule."""
    return name == EVERYDAY or name.startswith(_FURTHER_SET)


@dataclass
class GuardFit:
    """The fitted classifier: weights per class, a threshold per rule type, and what cross-validation measured."""

    classes: list[str]  # NONE first, then rule ids
    weights: np.ndarray  # (dim, classes) float32
    intercepts: np.ndarray  # (classes,) float32
    thresholds: dict[str, float]  # rule type → threshold on the type's summed probability
    metrics: dict[str, Any] = field(default_factory=dict)


def fit_guard(
    vectors: np.ndarray, labels: Sequence[str], rule_types: dict[str, str], caught: Sequence[bool] | None = None,
    in_scope: np.ndarray | None = None,
) -> GuardFit | None:
    """Fit on unit-length ``vectors`` labelled with a rule id or ``NONE``; None when no rule has examples.

    ``caught``: per row, whether a rule's pattern already stops it (the red-flag threshold need not).
    ``in_scope``: vectors of the knowledge base's own unit questions, in scope by definition. Never fitted on
    (measured neutral to worse as negatives); scored by the final model, they join the negatives of the
    out-of-scope threshold, so a small knowledge base's few out-of-scope examples cannot set it where its own
    questions are refused ("what decides my tyre pressure" in a bike KB that refuses motor vehicles).
    """
    classes = [NONE] + sorted({label for label in labels if label != NONE})
    if all(c == NONE or is_background(c) for c in classes):
        return None
    y = np.array([classes.index(label) for label in labels])
    weights = np.array([BACKGROUND_WEIGHT if is_background(c) and c != EVERYDAY else 1.0 for c in classes], np.float32)
    X = np.asarray(vectors, dtype=np.float32)
    fold = _folds(len(y))
    out_of_fold = np.zeros((len(y), len(classes)), dtype=np.float32)
    for f in range(FOLDS):
        train = fold != f
        if len(set(y[train].tolist())) < len(classes):  # too few examples to leave some out: skip CV for this fold
            out_of_fold[~train] = np.nan
            continue
        W, b = _fit(X[train], y[train], weights)
        out_of_fold[~train] = probabilities(X[~train], W, b)
    W, b = _fit(X, y, weights)
    types = [rule_types.get(c, "") for c in classes]
    stopped = np.zeros(len(y), bool) if caught is None else np.asarray(caught, bool)
    own = probabilities(np.asarray(in_scope, dtype=np.float32), W, b) if in_scope is not None and len(in_scope) \
        else np.zeros((0, len(classes)), np.float32)
    thresholds, metrics = _thresholds(out_of_fold, y, types, stopped, own)
    return GuardFit(classes, W.astype(np.float32), b.astype(np.float32), thresholds, metrics)


def probabilities(X: np.ndarray, W: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Softmax of ``X @ W + b``, row by row (also what the runtime computes, for one row)."""
    z = X @ W + b
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _folds(n: int) -> np.ndarray:
    """A fixed, interleaved assignment: every fold gets some of every class written in order."""
    return np.arange(n) % FOLDS


def _fit(X: np.ndarray, y: np.ndarray, class_weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Class-balanced softmax regression with a small L2 penalty, by full-batch Adam; ``class_weights``: per class."""
    n, d = X.shape
    k = len(class_weights)
    counts = np.bincount(y, minlength=k).astype(np.float32)
    w = (1.0 / counts[y]) / k  # every class weighs the same in the loss (a further background set: less)
    w = w * class_weights[y]
    Y = np.eye(k, dtype=np.float32)[y]
    W, b = np.zeros((d, k), np.float32), np.zeros(k, np.float32)
    mW, vW, mb, vb = np.zeros_like(W), np.zeros_like(W), np.zeros_like(b), np.zeros_like(b)
    for t in range(1, STEPS + 1):
        G = (probabilities(X, W, b) - Y) * w[:, None]
        for param, grad, m, v in ((W, X.T @ G + L2 * W, mW, vW), (b, G.sum(0), mb, vb)):
            m *= 0.9
            m += 0.1 * grad
            v *= 0.999
            v += 0.001 * grad * grad
            param -= LEARNING_RATE * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return W, b


def _thresholds(
    oof: np.ndarray, y: np.ndarray, types: list[str], caught: np.ndarray, in_scope: np.ndarray,
) -> tuple[dict[str, float], dict[str, Any]]:
    """Per type: red flags at ``RED_FLAG_RECALL`` out of fold, out of scope at ``OUT_OF_SCOPE_PRECISION`` (its
    negatives also the ``in_scope`` rows' probabilities)."""
    judged = ~np.isnan(oof).any(axis=1)
    label_type = np.array([types[c] for c in y])
    negative = (label_type == "") & judged  # NONE and EVERYDAY
    thresholds: dict[str, float] = {}
    metrics: dict[str, Any] = {"folds": FOLDS, "rows": int(len(y)), "judged": int(judged.sum())}
    for rule_type, (low, high) in (("red_flag", RED_FLAG_BOUNDS), ("out_of_scope", OUT_OF_SCOPE_BOUNDS)):
        columns = [i for i, t in enumerate(types) if t == rule_type]
        positive = (label_type == rule_type) & judged
        if not columns or not positive.any():
            continue
        mass = oof[:, columns].sum(axis=1)
        if rule_type == "red_flag":
            chosen = _recall_threshold(mass[positive], caught[positive])
        else:
            chosen = _precise_threshold(mass[positive], np.concatenate([mass[negative], in_scope[:, columns].sum(axis=1)]))
        threshold = float(min(max(chosen, low), high))
        thresholds[rule_type] = threshold
        predicted_rule = np.array(columns)[oof[:, columns].argmax(axis=1)]
        hits = positive & (mass >= threshold)
        metrics[rule_type] = {
            "threshold": round(threshold, 4), "fitted": round(chosen, 4), "examples": int(positive.sum()),
            "cv_recall": round(float(hits.sum() / positive.sum()), 4),
            "cv_rule_accuracy": round(float((hits & (predicted_rule == y)).sum() / positive.sum()), 4),
            "cv_false_alarms": int((negative & (mass >= threshold)).sum()), "negatives": int(negative.sum()),
        }
        if rule_type == "red_flag":
            stopped = hits | (positive & caught)
            metrics[rule_type]["cv_recall_with_patterns"] = round(float(stopped.sum() / positive.sum()), 4)
    return thresholds, metrics


def _recall_threshold(mass: np.ndarray, caught: np.ndarray) -> float:
    """The highest threshold at which patterns and scores together stop ``RED_FLAG_RECALL`` of the examples."""
    needed = int(np.ceil(RED_FLAG_RECALL * len(mass))) - int(caught.sum())
    if needed <= 0:
        return 1.0
    ranked = np.sort(mass[~caught])[::-1]
    return float(ranked[needed - 1])


def _precise_threshold(positive: np.ndarray, negative: np.ndarray) -> float:
    """The lowest threshold whose precision (positives over all stopped) reaches ``OUT_OF_SCOPE_PRECISION``."""
    for candidate in np.sort(np.concatenate([positive, negative])):
        tp, fp = (positive >= candidate).sum(), (negative >= candidate).sum()
        if tp and tp / (tp + fp) >= OUT_OF_SCOPE_PRECISION:
            return float(candidate)
    return 1.0
