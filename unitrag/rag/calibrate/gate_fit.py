"""Candidate gates on measured questions: fit one, score it out of sample, choose the best, cross-validate the choice.

rag.calibrate.calibration measures the labelled questions (``Sample``: the features of each question's
sources) and decides which gate to keep; this module does the numbers on those samples. A
candidate (``Spec``) is a main feature, pooled or with a Platt pair per language, plus a set of
mix features; the declared gap (``gap``) is in every candidate and may only push toward
"not found" (``toward_not_found`` in AnswerabilityGate.fit).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from itertools import combinations
from typing import Any

import numpy as np

from .cross_validation import FOLDS, kfold_probabilities, stratified_folds
from ..gate import FEATURES, MIX_FEATURES, AnswerabilityGate
from ..logistic import sigmoid

MIN_PER_CLASS = 5  # a language gets its own Platt pair only with this many questions of each label


@dataclass
class Sample:
    """One labelled question after search: its candidate features and what the gate made of it."""

    id: str
    question: str
    lang: str
    answerable: bool
    group: str  # the top source's language: the key of the gate's per-language pair
    values: dict[str, float | None]
    top_units: list[str]
    hit: bool | None = None  # answerable questions: an expected unit is among the sources
    p: float = math.nan  # p(answerable) from the fitted gate
    p_loo: float = math.nan  # ... from the gate fitted without this question

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["p"], data["p_loo"] = round(self.p, 4), round(self.p_loo, 4)
        data["values"] = {k: (None if v is None else round(v, 6)) for k, v in self.values.items()}
        return data


def auc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """Probability that an answerable question outscores an unanswerable one (ties count half)."""
    x, y = np.asarray(scores, float), np.asarray(labels, bool)
    pos, neg = x[y], x[~y]
    if not len(pos) or not len(neg):
        return math.nan
    greater = (pos[:, None] > neg[None, :]).sum()
    ties = (pos[:, None] == neg[None, :]).sum()
    return float((greater + 0.5 * ties) / (len(pos) * len(neg)))


def probabilities_of(
    gate: AnswerabilityGate, x: np.ndarray, groups: Sequence[str], mix: dict[str, np.ndarray] | None = None
) -> np.ndarray:
    x = np.asarray(x, float) + sum(w * (mix or {})[n] for n, w in gate.mix.items())
    return np.array([float(sigmoid(gate.params(g)[0] * v + gate.params(g)[1])) for v, g in zip(x, groups)])


def loo_probabilities(
    x: np.ndarray, y: np.ndarray, groups: Sequence[str] | None, mix: dict[str, np.ndarray] | None = None,
    toward_not_found: dict[str, float] | None = None,
) -> np.ndarray:
    """p(answerable) of each example from a gate fitted on all the others."""
    out = np.empty(len(x))
    g = list(groups) if groups is not None else [""] * len(x)
    for i in range(len(x)):
        keep = np.arange(len(x)) != i
        gate = fit_gate(x[keep], y[keep], [g[j] for j in np.flatnonzero(keep)] if groups is not None else None,
                    {n: v[keep] for n, v in mix.items()} if mix else None, toward_not_found)
        out[i] = probabilities_of(gate, x[i:i + 1], [g[i]], {n: v[i:i + 1] for n, v in (mix or {}).items()})[0]
    return out


def fit_gate(x: np.ndarray, y: np.ndarray, groups: Sequence[str] | None, mix: dict[str, np.ndarray] | None,
         toward_not_found: dict[str, float] | None = None) -> AnswerabilityGate:
    return AnswerabilityGate.fit(x, y, langs=groups, min_per_class=MIN_PER_CLASS, mix=mix,
                                 toward_not_found=toward_not_found)


def gate_probabilities(gate: AnswerabilityGate, samples: Sequence[Sample]) -> np.ndarray:
    """p(answerable) that ``gate`` gives each measured sample (as ``gate.probability`` would on its sources)."""
    out = []
    for s in samples:
        x = s.values.get(gate.feature)
        if x is None:
            out.append(1.0)  # the gate abstains
            continue
        a, b = gate.params(s.group)
        out.append(float(sigmoid(a * (x + sum(w * (s.values.get(n) or 0.0) for n, w in gate.mix.items())) + b)))
    return np.array(out)


def rates(p: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Accuracy, and precision / recall of the "not found" decision (p < 0.5)."""
    not_found = p < 0.5
    caught = int((not_found & ~y).sum())
    precision = caught / int(not_found.sum()) if not_found.any() else math.nan
    recall = caught / int((~y).sum()) if (~y).any() else math.nan
    return {
        "accuracy": float(((p >= 0.5) == y).mean()), "not_found_precision": precision, "not_found_recall": recall,
        "not_found_f1": 2 * precision * recall / (precision + recall) if precision + recall > 0 else math.nan,
    }


Spec = tuple[str, bool, tuple[str, ...]]  # a candidate: main feature, per-language pairs, mixed-in features
Probabilities = Callable[[np.ndarray, np.ndarray, "Sequence[str] | None", "dict[str, np.ndarray] | None"], np.ndarray]


#: Features that see only the words a question shares with its sources: blind to a question asked in another
#: language than its units (BM25 matches none of its words: the feature is 0 however well the units answer it).
WORDS_ONLY = ("sparse",)


def language_blind(unit_langs: Iterable[str | None]) -> dict[str, str]:
    """The features no gate may rest on where units are in two or more languages (``WORDS_ONLY``), each with why:
    fitted on dev questions that are mostly asked in their units' language, such a gate says "not found" to
    every question asked in the other one."""
    langs = sorted({lang for lang in unit_langs if lang})
    if len(langs) < 2:
        return {}
    return {name: f"its units are in {' and '.join(langs)}, and BM25 matches no word of a question asked in another "
                  "language than its units: a gate on it would say \"not found\" to every cross-language question"
            for name in WORDS_ONLY}


def choose(
    samples: Sequence[Sample], probabilities: Probabilities, toward: dict[str, float],
    excluded: Mapping[str, str] | None = None,
) -> tuple[list[dict[str, Any]], Spec | None, dict[str, str]]:
    """Every candidate's row, the best (by AUC of its out-of-sample probabilities), and why the others are none.

    A mix feature in ``toward`` (the declared gap) is in every candidate: it may only push toward
    "not found" (rag.gate), and it is never left out. ``excluded``: features that may not be the main one, with
    why (``language_blind``).
    """
    y = np.array([s.answerable for s in samples], bool)
    not_candidates = {**(excluded or {}),
                      **{name: why for name in FEATURES if (why := not_measured(name, samples))}}
    mixes = [m for m in MIX_FEATURES if m not in not_candidates]
    forced = tuple(m for m in mixes if m in toward)
    optional = [m for m in mixes if m not in forced]
    rows: list[dict[str, Any]] = []
    best: tuple[tuple[float, float], Spec] | None = None
    for feature in FEATURES:
        if feature in MIX_FEATURES or feature in not_candidates:
            continue  # a mix-only feature, or one this pipeline does not produce (e.g. no reranker)
        x = np.array([s.values[feature] for s in samples], float)
        if x.std() == 0.0:
            not_candidates[feature] = "it has the same value for every question"
            continue
        raw = auc(x, y)
        by_lang_raw = {
            lang: round(auc(x[m], y[m]), 4)
            for lang in sorted({s.lang for s in samples}) for m in [np.array([s.lang == lang for s in samples])]
        }
        for mixed in (forced + c for n in range(len(optional) + 1) for c in combinations(optional, n)):
            _, mix = columns(samples, feature, mixed)
            for per_lang in (False, True):
                p_out = probabilities(x, y, [s.group for s in samples] if per_lang else None, mix)
                loo, f1 = round(auc(p_out, y), 4), round(rates(p_out, y)["not_found_f1"], 4)
                rows.append({"feature": feature, "mix": list(mixed), "per_lang": per_lang, "auc": round(raw, 4),
                             "auc_by_lang": by_lang_raw, "loo_auc": loo, "loo_not_found_f1": f1})
                rank = (loo, 0.0 if math.isnan(f1) else f1)  # equal AUCs: the better "not found" F1
                if raw > 0.5 and (best is None or rank > best[0]):
                    best = (rank, (feature, per_lang, mixed))
    return rows, (best[1] if best else None), not_candidates


def cross_validated(samples: Sequence[Sample], toward: dict[str, float],
                    excluded: Mapping[str, str] | None = None) -> np.ndarray:
    """p(answerable) of each sample from the whole procedure (choose, then fit) run on the other folds.

    Inside a fold the candidates are ranked by k-fold rather than leave-one-out probabilities (the
    same criterion, at a fraction of the cost). A fold where nothing separates answers everything.
    """
    y = np.array([s.answerable for s in samples], bool)
    fold = stratified_folds(y, min(FOLDS, int(y.sum()), int((~y).sum())))
    inner = partial(kfold_probabilities, fit=partial(fit_gate, toward_not_found=toward), predict=probabilities_of)
    out = np.ones(len(samples))
    for f in np.unique(fold):
        train = [s for s, fo in zip(samples, fold) if fo != f]
        test = [s for s, fo in zip(samples, fold) if fo == f]
        _, best, _ = choose(train, inner, toward, excluded)
        if best is None:
            continue
        feature, per_lang, mixed = best
        x, mix = columns(train, feature, mixed)
        gate = fit_gate(x, y[fold != f], [s.group for s in train] if per_lang else None, mix, toward)
        x_test, mix_test = columns(test, feature, mixed)
        out[fold == f] = probabilities_of(gate, x_test, [s.group for s in test], mix_test)
    return out


def columns(samples: Sequence[Sample], feature: str, mixed: Sequence[str]) -> tuple[np.ndarray, dict[str, np.ndarray] | None]:
    x = np.array([s.values[feature] for s in samples], float)
    return x, {m: np.array([s.values[m] for s in samples], float) for m in mixed} or None


def not_measured(feature: str, samples: Sequence[Sample]) -> str | None:
    """Why ``feature`` cannot be a candidate on these samples (it is missing for some); None when it is measured."""
    missing = sum(s.values[feature] is None for s in samples)
    if not missing:
        return None
    why = {
        "rerank": "this pipeline has no cross-encoder reranker",
        "exemplar": "each dev file is scored against the exemplar questions of the other files only (a question is "
                    "never its own neighbour), and they hold no unanswerable question: split the dev questions over "
                    "two or more files (e.g. eval/questions.yaml and eval/questions2.yaml) to use it",
        "topic": "the knowledge base has no topic taxonomy", "gap": "the knowledge base has no topic taxonomy",
    }.get(feature, "this pipeline does not produce it")
    return f"no value for {missing} of {len(samples)} questions: {why}"
