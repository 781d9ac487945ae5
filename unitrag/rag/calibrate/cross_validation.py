"""Is a fitted gate worth keeping? Minimum sizes and an out-of-sample comparison with the default gate.

A gate fitted and scored on the same few dozen questions flatters itself: on a fresh scaffold's
3 + 3 questions every feature separates perfectly (AUC 1.0), and on 40 questions a fit can drop
a feature the default gate relies on. So ``unitrag calibrate`` keeps the default gate (the one
a knowledge base without calibration.json uses, rag.calibration_file.default_gates) unless

- the dev questions that reach the gate hold at least :data:`MIN_PER_LABEL` of each label, and
- the whole fitting procedure (choosing the candidate, then fitting it), repeated on k - 1 folds
  and scored on the k-th, gets a better pooled "not found" F1 than the default gate gets on the
  same questions (stratified k-fold, :data:`FOLDS`, a fixed shuffle: the same questions give
  the same verdict).

The default gate was not fitted on these questions (except on the bundled sample itself), so
its F1 on them is already out of sample. A tie keeps the default.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

MIN_PER_LABEL = 10  # answerable and unanswerable dev questions that reach the gate, each
FOLDS = 5
SEED = 0


@dataclass(frozen=True)
class Verdict:
    """Which gate ``unitrag calibrate`` keeps, and why (``reason``: one sentence for the summary)."""

    kept: str  # "fitted" | "default" (the default may be None: no default gate for this pipeline)
    reason: str
    n_answerable: int
    n_unanswerable: int
    fitted_cv_f1: float | None = None  # pooled out-of-sample "not found" F1 of the fitting procedure
    default_f1: float | None = None  # the default gate's "not found" F1 on the same questions
    folds: int = 0

    @property
    def too_few(self) -> bool:
        return self.fitted_cv_f1 is None and self.kept == "default"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("fitted_cv_f1", "default_f1"):
            data[key] = None if data[key] is None else round(data[key], 4)
        return data


def too_few(n_answerable: int, n_unanswerable: int, has_default: bool) -> Verdict | None:
    """The verdict when either label has fewer than :data:`MIN_PER_LABEL` questions; None when there are enough."""
    if min(n_answerable, n_unanswerable) >= MIN_PER_LABEL:
        return None
    kept = "the default gate stays in use" if has_default else "the knowledge base keeps no gate (this pipeline has no default)"
    reason = (f"too few questions to fit a gate: {n_answerable} answerable and {n_unanswerable} unanswerable reach it, "
              f"at least {MIN_PER_LABEL} of each are needed; {kept}. Add labelled questions to content/eval/questions.yaml "
              "(unanswerable ones: in-domain subjects no unit covers) and run calibrate again.")
    return Verdict("default", reason, n_answerable, n_unanswerable)


def stratified_folds(labels: Sequence[bool], k: int = FOLDS, seed: int = SEED) -> np.ndarray:
    """The fold (0..k-1) of each example: each label dealt round-robin over the folds after a fixed shuffle."""
    y = np.asarray(labels, bool)
    fold = np.empty(len(y), int)
    rng = np.random.default_rng(seed)
    for label in (True, False):
        rows = rng.permutation(np.flatnonzero(y == label))
        fold[rows] = np.arange(len(rows)) % k
    return fold


def kfold_probabilities(
    x: np.ndarray, y: np.ndarray, groups: Sequence[str] | None, mix: dict[str, np.ndarray] | None,
    fit: Callable[..., Any], predict: Callable[..., np.ndarray], k: int = FOLDS,
) -> np.ndarray:
    """p(answerable) of each example from a gate fitted on the other folds (``fit``/``predict`` as in rag.calibrate.calibration)."""
    fold = stratified_folds(y, min(k, int(y.sum()), int((~y).sum())))
    out = np.empty(len(x))
    g = list(groups) if groups is not None else [""] * len(x)
    for f in np.unique(fold):
        test, train = fold == f, fold != f
        gate = fit(x[train], y[train], [g[i] for i in np.flatnonzero(train)] if groups is not None else None,
                   {n: v[train] for n, v in (mix or {}).items()} or None)
        out[test] = predict(gate, x[test], [g[i] for i in np.flatnonzero(test)],
                            {n: v[test] for n, v in (mix or {}).items()})
    return out


def not_found_f1(p: Sequence[float], labels: Sequence[bool]) -> float:
    """F1 of the "not found" decision (p < 0.5) against the unanswerable label; 0 when nothing is "not found"."""
    not_found, y = np.asarray(p, float) < 0.5, np.asarray(labels, bool)
    caught = int((not_found & ~y).sum())
    if caught == 0:
        return 0.0
    precision, recall = caught / int(not_found.sum()), caught / int((~y).sum())
    return 2 * precision * recall / (precision + recall)


def judge(fitted_cv_f1: float, default_f1: float | None, n_answerable: int, n_unanswerable: int, folds: int) -> Verdict:
    """Keep the fit only when its out-of-sample F1 beats the default gate's (None: no default gate, F1 0)."""
    base = 0.0 if default_f1 is None or math.isnan(default_f1) else default_f1
    name = "the default gate" if default_f1 is not None else "no gate (this pipeline has no default)"
    if fitted_cv_f1 > base:
        kept, reason = "fitted", (f"kept the fitted gate: out of sample ({folds}-fold) its \"not found\" F1 is "
                                  f"{fitted_cv_f1:.3f}, better than {name}'s {base:.3f} on the same questions")
    else:
        kept, reason = "default", (f"kept {name}: out of sample ({folds}-fold) the fitted gate's \"not found\" F1 is "
                                   f"{fitted_cv_f1:.3f}, no better than {name}'s {base:.3f} on the same questions; "
                                   "that is the right gate for now (more labelled questions, unanswerable ones near "
                                   "your units above all, give a fit its chance to beat it)")
    return Verdict(kept, reason, n_answerable, n_unanswerable, fitted_cv_f1, default_f1, folds)
