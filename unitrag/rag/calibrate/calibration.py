"""Fitting the answerability gate on labelled questions (content/questions.yaml).

Each question goes through ``kb.search`` exactly as ``ask`` would send it (the
guard first: a question the guard answers never reaches the gate and is left out).
Every candidate feature of the final sources is measured, pooled and with one
Platt pair per language; the variant whose leave-one-out probabilities rank the
questions best (AUC) is fitted. Leave-one-out numbers are reported beside the
in-sample ones, since a gate fitted and scored on the same few dozen questions
flatters itself; and the fit replaces the default gate only when it has enough
questions and beats the default out of sample (rag.calibrate.cross_validation). The declared gap
(``gap``) is in every candidate and may only push toward "not found".

Before that, the per-language-pair cosine corrections (rag.search.crosslingual) are fitted from
the answerable questions: for questions in language A, the median best cosine to an
answer unit in A minus the median to an answer unit in B. Each base feature is tried
with every subset of the other mix features (``topic``, ``exemplar``). Held-out test questions (those with a ``category``)
are refused: a gate must never be fitted on the set that reports it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import numpy as np

from ...content.labelled_question import LabelledQuestion
from ...content.registry import LoadedQuestion
from .cross_validation import FOLDS, Verdict, disagreements, judge, not_found_f1, too_few
from .gate_fit import (
    MIN_PER_CLASS,
    Sample,
    auc,
    choose,
    columns,
    cross_validated,
    fit_gate,
    gate_probabilities,
    language_blind,
    loo_probabilities,
    probabilities_of,
    rates,
)
from ..search.crosslingual import DEFAULT_LANG_OFFSETS, OTHER
from ..calibration_file import default_gates, gate_for, questions_digest
from ..gate import FEATURES, AnswerabilityGate, feature_value, pipeline_id
from ..types import UserContext

MIN_PER_PAIR = 5  # a language pair gets its own cosine correction only with this many questions each side
#: The default correction counts as this many questions: a pair's fitted correction is shrunk toward it,
#: n / (n + PRIOR_QUESTIONS) of the way to the knowledge base's own median gap (n: the fewer side). The gap
#: is mostly the embedder's, measured on the sample's hundreds of questions; a new knowledge base's median
#: over 6 questions moved it from 0.089 to 0.03 and pushed the right unit from 2nd to 6th (issue 24).
PRIOR_QUESTIONS = 30
GAP_LOGITS = -5.0  # how far a declared gap lowers the logit when neither the questions nor a default gate say


@dataclass
class Calibration:
    """What ``unitrag calibrate`` found: the gate it keeps, the fit it weighed, the candidates and the verdict."""

    gate: AnswerabilityGate | None  # the gate kept: the fit, or the default one (None: too few questions, no default)
    samples: list[Sample]
    candidates: list[dict[str, Any]]
    guarded: list[str] = field(default_factory=list)  # ids the guard answers before retrieval
    fitted: AnswerabilityGate | None = None  # the best candidate fitted on every question (None: too few)
    verdict: Verdict | None = None
    not_candidates: dict[str, str] = field(default_factory=dict)  # feature → why no candidate uses it

    def to_dict(self) -> dict[str, Any]:
        return {
            "gate": self.gate.to_dict() if self.gate else None,
            "thresholds": self.gate.thresholds if self.gate else None,
            "fitted": self.fitted.to_dict() if self.fitted else None,
            "verdict": self.verdict.to_dict() if self.verdict else None,
            "candidates": self.candidates, "not_candidates": self.not_candidates,
            "guarded": self.guarded, "samples": [s.to_dict() for s in self.samples],
        }


def measure(kb: Any, questions: Sequence[LabelledQuestion | LoadedQuestion]) -> tuple[list[Sample], list[str]]:
    """Search every question as ``ask`` would; the samples, and the ids the guard stops first.

    Each file's questions are searched with the answerability exemplars of the other files only
    (rag.store.exemplars): a dev question is an exemplar itself, and must not be its own neighbour.
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
    from ...content.text.lang import detect_lang

    samples, guarded = [], []
    for q in questions:
        user = user_context(q)
        stopped = kb.screen(q.question, detect_lang(q.question), None, user)  # a caution is answered: it calibrates too
        if q.guard is not None or (stopped is not None and stopped.stops):
            guarded.append(q.id)
            continue
        sources = kb.search(q.question, user=user).sources
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


def fit_lang_offsets(
    kb: Any, questions: Sequence[LabelledQuestion], prior: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Per (question language > unit language) pair: how much lower the best answer cosine runs across languages.

    ``prior``: the corrections the knowledge base ran with before (the default gate's; else
    ``DEFAULT_LANG_OFFSETS``). A pair without ``MIN_PER_PAIR`` questions on each side keeps its prior; with
    more, the median gap is shrunk toward it by ``PRIOR_QUESTIONS`` (``shrunk``).
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
    offsets = {**DEFAULT_LANG_OFFSETS, **(prior or {})}
    for lang, other in OTHER.items():
        same, cross = best.get(f"{lang}>{lang}", []), best.get(f"{lang}>{other}", [])
        n, pair = min(len(same), len(cross)), f"{lang}>{other}"
        if n >= MIN_PER_PAIR:
            offsets[pair] = shrunk(max(0.0, float(np.median(same) - np.median(cross))), offsets.get(pair, 0.0), n)
    return offsets


def shrunk(fitted: float, default: float, n: int) -> float:
    """``fitted`` from ``n`` questions, pulled toward ``default`` as if it had been measured on ``PRIOR_QUESTIONS``."""
    return round((n * fitted + PRIOR_QUESTIONS * default) / (n + PRIOR_QUESTIONS), 4)


def run_calibration(kb: Any, questions: Sequence[LabelledQuestion | LoadedQuestion]) -> Calibration:
    """Fit the cross-language corrections, measure every candidate, fit the best, and keep it only if it beats the default.

    The default gate (the one used without calibration.json) stays when the questions are too few
    or the fit is no better out of sample (rag.calibrate.cross_validation). ``kb.retriever.crosslingual`` keeps
    the corrections of the gate kept.
    """
    plain = [item.question if isinstance(item, LoadedQuestion) else item for item in questions]
    held_out = [q.id for q in plain if q.category is not None]
    if held_out:
        raise ValueError(f"{len(held_out)} held-out test question(s) (with a category, e.g. {held_out[0]}): "
                         "a gate is never fitted on the test set")
    pipeline = pipeline_id(kb.store.manifest, kb.config)
    default = gate_for(default_gates(), pipeline)
    crosslingual = getattr(getattr(kb, "retriever", None), "crosslingual", None)
    offsets = None
    if crosslingual is not None:
        offsets = fit_lang_offsets(kb, plain, default.lang_offsets if default is not None else None)
        crosslingual.offsets = dict(offsets)
    samples, guarded = measure(kb, questions)
    y_all = np.array([s.answerable for s in samples], bool)
    n_yes, n_no = int(y_all.sum()), int((~y_all).sum())
    scarce = too_few(n_yes, n_no, default is not None)
    if scarce is not None:
        _use_offsets(crosslingual, default)
        return Calibration(default, samples, [], guarded, verdict=scarce)
    toward = {"gap": default.a * default.mix["gap"] if default is not None and "gap" in default.mix else GAP_LOGITS}
    excluded = language_blind(set(kb.store.lang.tolist()))
    candidates, best, not_candidates = choose(samples, partial(loo_probabilities, toward_not_found=toward), toward,
                                              excluded)
    if best is None:
        raise ValueError("no candidate feature separates answerable from unanswerable questions")
    feature, per_lang, mixed = best
    for row in candidates:
        row["chosen"] = (row["feature"], row["per_lang"], tuple(row["mix"])) == best
    x, mix = columns(samples, feature, mixed)
    groups = [s.group for s in samples]
    p_loo = loo_probabilities(x, y_all, groups if per_lang else None, mix, toward)
    draft = fit_gate(x, y_all, groups if per_lang else None, mix, toward)
    p = probabilities_of(draft, x, groups, mix)
    for s, pi, qi in zip(samples, p, p_loo):
        s.p, s.p_loo = float(pi), float(qi)
    hits = [s.hit for s in samples if s.hit is not None]
    p_cv = cross_validated(samples, toward, excluded)
    p_default = _default_probabilities(kb, questions, samples, default, offsets)
    fixed, broke = disagreements(p_cv, p_default, y_all) if p_default is not None else (0, 0)
    verdict = judge(not_found_f1(p_cv, y_all), None if p_default is None else not_found_f1(p_default, y_all),
                    n_yes, n_no, min(FOLDS, n_yes, n_no), fixed, broke)
    metrics = {
        "auc": round(auc(x, y_all), 4), "auc_of_p": round(auc(p, y_all), 4), "loo_auc": round(auc(p_loo, y_all), 4),
        **{k: round(v, 4) for k, v in rates(p, y_all).items()},
        **{f"loo_{k}": round(v, 4) for k, v in rates(p_loo, y_all).items()},
        "expected_unit_found": round(sum(hits) / len(hits), 4) if hits else None,
        "questions": len(samples), "guarded": len(guarded), "verdict": verdict.to_dict(),
    }
    fitted = AnswerabilityGate.fit(
        x, y_all, pipeline_id=pipeline, feature=feature, langs=groups if per_lang else None,
        min_per_class=MIN_PER_CLASS, metrics=metrics, mix=mix, toward_not_found=toward,
        lang_offsets=offsets, questions_digest=questions_digest(plain),
    )
    kept = fitted
    if verdict.kept == "default":
        kept = None if default is None else replace(
            default, questions_digest=questions_digest(plain),
            metrics={"kept": "default", "questions": len(samples), "guarded": len(guarded), "verdict": verdict.to_dict()})
        _use_offsets(crosslingual, default)
    return Calibration(kept, samples, candidates, guarded, fitted, verdict, not_candidates)


def _default_probabilities(kb: Any, questions: Sequence[LabelledQuestion | LoadedQuestion], samples: list[Sample],
                           default: AnswerabilityGate | None, offsets: dict[str, float] | None) -> np.ndarray | None:
    """The default gate's p(answerable) of each of ``samples``, measured with its own cross-language corrections
    (searched again only when they differ from the fitted ones the ``samples`` were measured with)."""
    if default is None:
        return None
    crosslingual = getattr(getattr(kb, "retriever", None), "crosslingual", None)
    if crosslingual is not None and default.lang_offsets is not None and dict(default.lang_offsets) != offsets:
        crosslingual.offsets = dict(default.lang_offsets)
        try:
            again, _ = measure(kb, questions)
        finally:
            crosslingual.offsets = dict(offsets or {})
        if [s.id for s in again] != [s.id for s in samples]:
            raise AssertionError("the default gate's questions must be the fitted gate's: the guard reads no offsets")
        samples = again
    return np.asarray(gate_probabilities(default, samples), float)


def _use_offsets(crosslingual: Any, gate: AnswerabilityGate | None) -> None:
    if crosslingual is not None and gate is not None and gate.lang_offsets is not None:
        crosslingual.offsets = dict(gate.lang_offsets)


def calibrate(kb: Any, questions: Sequence[LabelledQuestion | LoadedQuestion]) -> AnswerabilityGate | None:
    """The gate ``unitrag calibrate`` keeps for ``kb``'s pipeline; its ``metrics`` say how well it does and why."""
    return run_calibration(kb, questions).gate
