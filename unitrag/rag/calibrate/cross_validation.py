"""Is a fitted gate worth keeping? Minimum sizes and an out-of-sample comparison with the default gate.

A gate fitted and scored on the same few dozen questions flatters itself: on a fresh scaffold's
3 + 3 questions every feature separates perfectly (AUC 1.0), and on 40 questions a fit can drop
a feature the default gate relies on. So ``unitrag calibrate`` keeps the default gate (the one
a knowledge base without calibration.json uses, rag.calibration_file.default_gates) unless

- the dev questions that reach the gate hold at least :data:`MIN_PER_LABEL` of each label, and
- the whole fitting procedure (choosing the candidate, then fitting it), repeated on k - 1 folds
  and scored on the k-th, gets a better pooled "not found" F1 than the default gate gets on the
  same questions (stratified k-fold, :data:`FOLDS`, a fixed shuffle: the same questions give
  the same verdict), and
- of the questions the two gates decide differently, the fit gets right more than chance would
  (a one-sided sign test below :data:`ALPHA`).

The default gate was not fitted on these questions (except on the bundled sample itself), so
its F1 on them is already out of sample. A tie keeps the default. The sign test is there because a
better F1 on a few dozen questions was no sign of a better gate: over twelve knowledge bases of
30-45 dev questions, the fits kept on F1 alone moved their test sets' F1 by +0.28, +0.07, -0.14 and
-0.23, each on one to nine questions decided differently (docs/benchmarks/quality.md, stop 59).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

MIN_PER_LABEL = 10  # answerable and unanswerable dev questions that reach the gate, each
#: The fit replaces the default gate only when the questions they decide differently favour it this surely: the fit
#: right on 5 of 5, 7 of 8 or 8 of 10 of them (a fixed, conventional level, not one fitted on any knowledge base).
ALPHA = 0.05
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
    fixed: int = 0  # questions the fit (out of sample) decides right and the default gate wrong
    broke: int = 0  # ... and the other way round
    p_value: float | None = None  # of the sign test on ``fixed`` and ``broke`` (None: no default gate to test against)

    @property
    def too_few(self) -> bool:
        return self.fitted_cv_f1 is None and self.kept == "default"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("fitted_cv_f1", "default_f1", "p_value"):
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


def disagreements(fitted_p: Sequence[float], default_p: Sequence[float], labels: Sequence[bool]) -> tuple[int, int]:
    """(questions the fit decides right and the default gate wrong, the reverse): what a comparison of the two rests on."""
    y = np.asarray(labels, bool)
    fit_right = (np.asarray(fitted_p, float) >= 0.5) == y
    default_right = (np.asarray(default_p, float) >= 0.5) == y
    return int((fit_right & ~default_right).sum()), int((default_right & ~fit_right).sum())


def sign_test(fixed: int, broke: int) -> float:
    """One-sided exact sign test: how often chance alone, each disagreement a coin toss, favours the fit this much."""
    n = fixed + broke
    return sum(math.comb(n, k) for k in range(fixed, n + 1)) / 2 ** n if n else 1.0


def judge(fitted_cv_f1: float, default_f1: float | None, n_answerable: int, n_unanswerable: int, folds: int,
          fixed: int = 0, broke: int = 0) -> Verdict:
    """Keep the fit only when its out-of-sample F1 beats the default gate's and the questions they decide differently
    favour it beyond chance (``sign_test`` < ``ALPHA``). No default gate (None): a better F1 than 0 is enough."""
    base = 0.0 if default_f1 is None or math.isnan(default_f1) else default_f1
    name = "the default gate" if default_f1 is not None else "no gate (this pipeline has no default)"
    p_value = None if default_f1 is None else sign_test(fixed, broke)
    differ = (f"; of the {fixed + broke} questions the two decide differently the fit gets {fixed} right and the "
              f"default {broke} (sign test p = {p_value:.3f})" if p_value is not None else "")
    compared = f"out of sample ({folds}-fold) the fitted gate's \"not found\" F1 is {fitted_cv_f1:.3f}"
    more = ("more labelled questions, unanswerable ones near your units above all, give a fit its chance to beat it")
    if fitted_cv_f1 > base and (p_value is None or p_value < ALPHA):
        kept, reason = "fitted", (f"kept the fitted gate: out of sample ({folds}-fold) its \"not found\" F1 is "
                                  f"{fitted_cv_f1:.3f}, better than {name}'s {base:.3f} on the same questions{differ}")
    elif fitted_cv_f1 > base:
        kept, reason = "default", (f"kept {name}: {compared} against the default's {base:.3f}, but the two decide only "
                                   f"{fixed + broke} questions differently, the fit right on {fixed} and the default on "
                                   f"{broke}: chance alone favours a fit that much 1 time in {max(2, round(1 / p_value))} "
                                   f"(sign test p = {p_value:.3f}; a fit replaces the default from p < {ALPHA}); {more}")
    else:
        kept, reason = "default", (f"kept {name}: {compared}, no better than {name}'s {base:.3f} on the same questions; "
                                   f"that is the right gate for now ({more})")
    return Verdict(kept, reason, n_answerable, n_unanswerable, fitted_cv_f1, default_f1, folds, fixed, broke, p_value)
