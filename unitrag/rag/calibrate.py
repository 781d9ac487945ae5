"""Fitting the answerability gate on labelled questions (content/questions.yaml).

Each question goes through ``kb.search`` exactly as ``ask`` would send it (the
guard first: a question the guard answers never reaches the gate and is left out).
Every candidate feature of the final sources is measured, pooled and with one
Platt pair per language; the variant whose leave-one-out probabilities rank the
questions best (AUC) becomes the gate. Leave-one-out numbers are reported beside
the in-sample ones, since a gate fitted and scored on the same few dozen questions
flatters itself.

Before that, the per-language-pair cosine corrections (rag.crosslingual) are fitted from
the answerable questions: for questions in language A, the median best cosine to an
answer unit in A minus the median to an answer unit in B. Each base feature is tried
alone and with ``topic`` mixed in. Held-out test questions (those with a ``category``)
are refused: a gate must never be fitted on the set that reports it.
"""

from __future__ import annotations

import math
from contextlib import nullcontext
from collections.abc import Sequence
from itertools import combinations
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..content.models import LabelledQuestion
from ..content.registry import LoadedQuestion
from .crosslingual import DEFAULT_LANG_OFFSETS, OTHER
from .gate import FEATURES, MIX_FEATURES, AnswerabilityGate, feature_value, pipeline_id, questions_digest, sigmoid
from .types import UserContext

MIN_PER_CLASS = 5  # a language gets its own Platt pair only with this many questions of each label
MIN_PER_PAIR = 5  # a language pair gets its own cosine correction only with this many questions each side


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


@dataclass
class Calibration:
    gate: AnswerabilityGate
    samples: list[Sample]
    candidates: list[dict[str, Any]]
    guarded: list[str] = field(default_factory=list)  # ids the guard answers before retrieval

    def to_dict(self) -> dict[str, Any]:
        return {
            "gate": self.gate.to_dict(), "thresholds": self.gate.thresholds, "candidates": self.candidates,
            "guarded": self.guarded, "samples": [s.to_dict() for s in self.samples],
        }


def measure(kb: Any, questions: Sequence[LabelledQuestion | LoadedQuestion]) -> tuple[list[Sample], list[str]]:
    """Search every question as ``ask`` would; the samples, and the ids the guard stops first.

    Each file's questions are searched with the answerability exemplars of the other files only
    (rag.exemplars): a dev question is an exemplar itself, and must not be its own neighbour.
    """
    samples, guarded = [], []
    retriever = getattr(kb, "retriever", None)
    for texts, batch in by_file(questions):
        with retriever.exemplars_without(texts) if retriever is not None else nullcontext():
            found, stopped = _measure_batch(kb, batch)
        samples += found
        guarded += stopped
    return samples, guarded


def by_file(questions: Sequence[LabelledQuestion | LoadedQuestion]) -> list[tuple[list[str], list[LabelledQuestion]]]:
    """The questions grouped by the file they come from (one group when none says), with each group's texts."""
    groups: dict[str, list[LabelledQuestion]] = {}
    for item in questions:
        path = item.path if isinstance(item, LoadedQuestion) else ""
        groups.setdefault(str(path), []).append(item.question if isinstance(item, LoadedQuestion) else item)
    return [([q.question for q in batch], batch) for batch in groups.values()]


def _measure_batch(kb: Any, questions: Sequence[LabelledQuestion]) -> tuple[list[Sample], list[str]]:
    from .lang import detect_lang

    samples, guarded = [], []
    for q in questions:
        if q.guard is not None or kb.guard.check(q.question, detect_lang(q.question)) is not None:
            guarded.append(q.id)
            continue
        sources = kb.search(q.question, user=user_context(q)).sources
        if not sources:
            continue
        found = {s.unit_id for s in sources} | {s.story_id for s in sources if s.story_id}
        samples.append(Sample(
            id=q.id, question=q.question, lang=q.lang, answerable=q.answerable, group=sources[0].lang,
            values={name: feature_value(name, sources) for name in FEATURES}, top_units=[s.unit_id for s in sources],
            hit=bool(found.intersection(q.expected_units)) if q.answerable else None,
        ))
    return samples, guarded


def user_context(q: LabelledQuestion) -> UserContext:
    """The context a labelled question is asked with (anonymous when it names none)."""
    return UserContext.from_dict(q.user.model_dump()) if q.user is not None else UserContext()


def auc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """Probability that an answerable question outscores an unanswerable one (ties count half)."""
    x, y = np.asarray(scores, float), np.asarray(labels, bool)
    pos, neg = x[y], x[~y]
    if not len(pos) or not len(neg):
        return math.nan
    greater = (pos[:, None] > neg[None, :]).sum()
    ties = (pos[:, None] == neg[None, :]).sum()
    return float((greater + 0.5 * ties) / (len(pos) * len(neg)))


def _probabilities(
    gate: AnswerabilityGate, x: np.ndarray, groups: Sequence[str], mix: dict[str, np.ndarray] | None = None
) -> np.ndarray:
    x = np.asarray(x, float) + sum(w * (mix or {})[n] for n, w in gate.mix.items())
    return np.array([float(sigmoid(gate.params(g)[0] * v + gate.params(g)[1])) for v, g in zip(x, groups)])


def loo_probabilities(
    x: np.ndarray, y: np.ndarray, groups: Sequence[str] | None, mix: dict[str, np.ndarray] | None = None
) -> np.ndarray:
    """p(answerable) of each example from a gate fitted on all the others."""
    out = np.empty(len(x))
    g = list(groups) if groups is not None else [""] * len(x)
    for i in range(len(x)):
        keep = np.arange(len(x)) != i
        gate = AnswerabilityGate.fit(
            x[keep], y[keep], langs=[g[j] for j in np.flatnonzero(keep)] if groups is not None else None,
            min_per_class=MIN_PER_CLASS, mix={n: v[keep] for n, v in mix.items()} if mix else None,
        )
        out[i] = _probabilities(gate, x[i:i + 1], [g[i]], {n: v[i:i + 1] for n, v in (mix or {}).items()})[0]
    return out


def fit_lang_offsets(kb: Any, questions: Sequence[LabelledQuestion]) -> dict[str, float]:
    """Per (question language > unit language) pair: how much lower the best answer cosine runs across languages.

    A pair without ``MIN_PER_PAIR`` questions on each side keeps its default.
    """
    store = kb.store
    unit_ids = store.columns["unit_id"]
    story_ids = store.columns["story_id"]
    rows_of: dict[str, list[int]] = {}
    for i in range(len(store)):
        for uid in {unit_ids[i], story_ids[i]} - {None}:
            rows_of.setdefault(uid, []).append(i)
    best: dict[str, list[float]] = {}
    for q in questions:
        rows = sorted({r for u in q.expected_units for r in rows_of.get(u, ())})
        langs = {str(store.lang[r]) for r in rows}
        if not q.answerable or q.guard is not None or len(langs) != 1:
            continue
        cosine = float((store.vectors[rows] @ kb.encoder.encode(q.question)).max())
        best.setdefault(f"{q.lang}>{langs.pop()}", []).append(cosine)
    offsets = dict(DEFAULT_LANG_OFFSETS)
    for lang, other in OTHER.items():
        same, cross = best.get(f"{lang}>{lang}", []), best.get(f"{lang}>{other}", [])
        if min(len(same), len(cross)) >= MIN_PER_PAIR:
            offsets[f"{lang}>{other}"] = round(max(0.0, float(np.median(same) - np.median(cross))), 4)
    return offsets


def _rates(p: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Accuracy, and precision / recall of the "not found" decision (p < 0.5)."""
    not_found = p < 0.5
    caught = int((not_found & ~y).sum())
    precision = caught / int(not_found.sum()) if not_found.any() else math.nan
    recall = caught / int((~y).sum()) if (~y).any() else math.nan
    return {
        "accuracy": float(((p >= 0.5) == y).mean()), "not_found_precision": precision, "not_found_recall": recall,
        "not_found_f1": 2 * precision * recall / (precision + recall) if precision + recall > 0 else math.nan,
    }


def run_calibration(kb: Any, questions: Sequence[LabelledQuestion | LoadedQuestion]) -> Calibration:
    """Fit the cross-language corrections, measure every candidate, fit the best as the gate of ``kb``'s pipeline.

    ``kb.retriever.crosslingual`` keeps the fitted corrections (the gate's scores were measured with them).
    """
    plain = [item.question if isinstance(item, LoadedQuestion) else item for item in questions]
    held_out = [q.id for q in plain if q.category is not None]
    if held_out:
        raise ValueError(f"{len(held_out)} held-out test question(s) (with a category, e.g. {held_out[0]}): "
                         "a gate is never fitted on the test set")
    offsets = None
    if getattr(getattr(kb, "retriever", None), "crosslingual", None) is not None:
        offsets = fit_lang_offsets(kb, plain)
        kb.retriever.crosslingual.offsets = dict(offsets)
    samples, guarded = measure(kb, questions)
    y_all = np.array([s.answerable for s in samples], bool)
    if min(int(y_all.sum()), int((~y_all).sum())) < 2:  # leave-one-out must keep one of each
        raise ValueError("calibration needs at least 2 answerable and 2 unanswerable questions that reach the gate")
    candidates: list[dict[str, Any]] = []
    best: tuple[float, str, bool] | None = None
    mixes = [m for m in MIX_FEATURES if all(s.values[m] is not None for s in samples)]
    for feature in FEATURES:
        if feature in MIX_FEATURES or any(s.values[feature] is None for s in samples):
            continue  # a mix-only feature, or one this pipeline does not produce (e.g. no reranker)
        x = np.array([s.values[feature] for s in samples], float)
        if x.std() == 0.0:
            continue
        raw = auc(x, y_all)
        by_lang_raw = {
            lang: round(auc(x[m], y_all[m]), 4)
            for lang in sorted({s.lang for s in samples}) for m in [np.array([s.lang == lang for s in samples])]
        }
        for mixed in (c for n in range(len(mixes) + 1) for c in combinations(mixes, n)):
            mix = {m: np.array([s.values[m] for s in samples], float) for m in mixed} or None
            for per_lang in (False, True):
                groups = [s.group for s in samples] if per_lang else None
                p_loo = loo_probabilities(x, y_all, groups, mix)
                loo = auc(p_loo, y_all)
                candidates.append({"feature": feature, "mix": list(mixed), "per_lang": per_lang, "auc": round(raw, 4),
                                   "auc_by_lang": by_lang_raw, "loo_auc": round(loo, 4),
                                   "loo_not_found_f1": round(_rates(p_loo, y_all)["not_found_f1"], 4)})
                if raw > 0.5 and (best is None or loo > best[0]):
                    best = (loo, feature, per_lang, mixed)
    if best is None:
        raise ValueError("no candidate feature separates answerable from unanswerable questions")
    _, feature, per_lang, mixed = best
    x = np.array([s.values[feature] for s in samples], float)
    mix = {m: np.array([s.values[m] for s in samples], float) for m in mixed} or None
    groups = [s.group for s in samples]
    p_loo = loo_probabilities(x, y_all, groups if per_lang else None, mix)
    draft = AnswerabilityGate.fit(x, y_all, feature=feature, langs=groups if per_lang else None,
                                  min_per_class=MIN_PER_CLASS, mix=mix)
    p = _probabilities(draft, x, groups, mix)
    for s, pi, qi in zip(samples, p, p_loo):
        s.p, s.p_loo = float(pi), float(qi)
    hits = [s.hit for s in samples if s.hit is not None]
    metrics = {
        "auc": round(auc(x, y_all), 4), "auc_of_p": round(auc(p, y_all), 4), "loo_auc": round(auc(p_loo, y_all), 4),
        **{k: round(v, 4) for k, v in _rates(p, y_all).items()},
        **{f"loo_{k}": round(v, 4) for k, v in _rates(p_loo, y_all).items()},
        "expected_unit_found": round(sum(hits) / len(hits), 4) if hits else None,
        "questions": len(samples), "guarded": len(guarded),
    }
    gate = AnswerabilityGate.fit(
        x, y_all, pipeline_id=pipeline_id(kb.store.manifest, kb.config), feature=feature,
        langs=groups if per_lang else None, min_per_class=MIN_PER_CLASS, metrics=metrics, mix=mix,
        lang_offsets=offsets, questions_digest=questions_digest(plain),
    )
    return Calibration(gate, samples, candidates, guarded)


def calibrate(kb: Any, questions: Sequence[LabelledQuestion | LoadedQuestion]) -> AnswerabilityGate:
    """The gate for ``kb``'s pipeline, fitted on ``questions``; its ``metrics`` say how well it does."""
    return run_calibration(kb, questions).gate
