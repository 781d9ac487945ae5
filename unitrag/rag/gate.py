"""The answerability gate: are the ranked sources good enough to answer from, or is this "not found"?

A retrieval score is not a probability, and its scale belongs to the pipeline that
produced it: multilingual-e5 cosines sit between about 0.75 and 0.95, a
cross-encoder's logits anywhere, RRF scores near 1/60. So the gate is fitted
(``unitrag calibrate``) on labelled answerable and unanswerable questions with
Platt scaling, p = sigmoid(a·x + b) on one score ``x`` of the ranked sources, and
stored with the id of the pipeline whose scores it was fitted on
(:func:`pipeline_id`). Below p = 0.5 the question gets a "not found" answer in its
language and no LLM call; an artifact without a gate for its pipeline gets no gate.

Optional per-language parameters (``by_lang``, keyed by the top source's language)
exist because the embedder's cosines differ by language: multilingual-e5 scores an
off-topic Chinese question against Chinese passages higher than an off-topic
English one against English passages. A language without its own pair uses the
pooled ``a``, ``b``.

A gate may add other features to its main one before the sigmoid (``mix``, weights fitted
jointly by logistic regression): ``topic``, whether a top source shares a topic the question
names (in either language), separates covered from uncovered in-domain questions where a
cosine alone cannot, and means the same whatever the languages; ``gap``, whether the question
names a topic of the taxonomy that no unit carries (a subject the knowledge base declares it does
not cover), pulls the other way. A gate also carries the
per-language-pair cosine corrections (``lang_offsets``, rag.search.crosslingual) its scores were
measured with. A knowledge base whose artifact has no gate for its pipeline uses the
default one fitted on the bundled sample's dev questions (``default_calibration.json``
beside this module) and says so once.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from ..artifact.gate_feature import FEATURE_NAMES, parse_feature
from ..config import Config
from ..errors import UserError
from .logistic import fit_logistic, fit_platt, sigmoid
from .types import Source


def pipeline_id(manifest: Mapping[str, Any], config: Config) -> str:
    """What a gate's scores depend on: the artifact's embedder, the reranker, the sparse arm."""
    return f"{manifest['embedder']['id']}|reranker={config.reranker}|sparse={'on' if config.sparse else 'off'}"


# -- features: one number from the ranked (final) sources ---------------------------------


def _stage_scores(sources: Sequence[Source], stage: str) -> list[float]:
    return [s.scores[stage] for s in sources if stage in s.scores]


def _top_dense(sources: Sequence[Source]) -> float | None:
    if "dense" in sources[0].scores:
        return sources[0].scores["dense"]
    return _max(sources, "dense")  # the top source came from the sparse arm only


def _max(sources: Sequence[Source], stage: str) -> float | None:
    values = _stage_scores(sources, stage)
    return max(values) if values else None


def _dense_margin(sources: Sequence[Source]) -> float | None:
    values = sorted(_stage_scores(sources, "dense"), reverse=True)
    return values[0] - values[-1] if len(values) >= 2 else None


#: Candidate features; ``unitrag calibrate`` measures each and keeps the best (by AUC).
FEATURES: dict[str, Callable[[Sequence[Source]], float | None]] = {
    "max_dense": lambda s: _max(s, "dense"),  # the best dense cosine among the final sources (boost-proof)
    "dense": _top_dense,  # the dense cosine of the top final source
    "rerank": lambda s: _max(s, "rerank"),  # the best cross-encoder score (a reranker is configured)
    "final": lambda s: s[0].score,  # the top final score (after fusion, rerank and boosts)
    "dense_margin": _dense_margin,  # top-1 minus top-5 dense cosine among the final sources
    "sparse": lambda s: _max(s, "sparse") or 0.0,  # the best BM25 score (0 when no source matched a term)
    "topic": lambda s: _max(s, "topic"),  # 1: one of the final sources shares a topic the question names (rag.search.retrieval)
    "gap": lambda s: _max(s, "gap"),  # 1: the question names a topic of the taxonomy that no unit carries
    "exemplar": lambda s: _max(s, "exemplar"),  # best cosine to an answerable exemplar question minus to an unanswerable one
}
assert tuple(FEATURES) == FEATURE_NAMES, "unitrag.artifact.gate_feature names every feature, in this order"
#: Features a gate may add to its main one (``mix``).
MIX_FEATURES = ("topic", "gap", "exemplar")


def feature_value(feature: str, sources: Sequence[Source]) -> float | None:
    """The gate's input for these sources; None when the sources do not carry that score."""
    if feature not in FEATURES:
        raise UserError(f"unknown gate feature {feature!r} (known: {', '.join(FEATURES)})")
    if not sources:
        return None
    value = FEATURES[feature](sources)
    return None if value is None or not math.isfinite(value) else float(value)


# -- the gate -----------------------------------------------------------------------------


@dataclass(frozen=True)
class AnswerabilityGate:
    """p(answerable) = sigmoid(a·x + b) on ``feature`` of the ranked sources; answerable when p ≥ 0.5."""

    pipeline_id: str
    a: float
    b: float
    feature: str = "max_dense"
    by_lang: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    mix: Mapping[str, float] = field(default_factory=dict)  # feature → weight added to ``feature`` before a·x + b
    lang_offsets: Mapping[str, float] | None = None  # "en>zh" → cosine correction the scores were measured with
    questions_digest: str | None = None  # of the labelled questions it was fitted on (questions_digest())
    n_answerable: int = 0
    n_unanswerable: int = 0
    fitted_at: str | None = None
    metrics: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in (self.feature, *self.mix):
            if name not in FEATURES:
                raise UserError(f"unknown gate feature {name!r} (known: {', '.join(FEATURES)})")

    def value(self, sources: Sequence[Source]) -> float | None:
        """The gate's input x: the main feature plus the weighted ``mix`` (a missing mix feature counts 0)."""
        x = feature_value(self.feature, sources)
        if x is None:
            return None
        return x + sum(w * (feature_value(name, sources) or 0.0) for name, w in self.mix.items())

    def params(self, lang: str | None = None) -> tuple[float, float]:
        return tuple(self.by_lang.get(lang, (self.a, self.b))) if lang else (self.a, self.b)  # type: ignore[return-value]

    def probability(self, sources: Sequence[Source], lang: str | None = None) -> float:
        """p(answerable); ``lang`` picks the per-language pair (default: the top source's language).

        No sources: 0. Sources without the gate's score (a stage that did not run): 1,
        the gate abstains and the prompt's own "say not found" rule stays the safety net.
        """
        if not sources:
            return 0.0
        x = self.value(sources)
        if x is None:
            return 1.0
        a, b = self.params(lang or sources[0].lang)
        return float(sigmoid(a * x + b))

    def answerable(self, sources: Sequence[Source], lang: str | None = None) -> bool:
        return self.probability(sources, lang) >= 0.5

    @property
    def threshold(self) -> float | None:
        """The raw feature value where p = 0.5 (pooled parameters); None for a flat gate."""
        return _threshold(self.a, self.b)

    @property
    def thresholds(self) -> dict[str, float | None]:
        """The p = 0.5 point per language with its own parameters, and ``"*"`` for the pooled pair."""
        return {"*": self.threshold, **{lang: _threshold(a, b) for lang, (a, b) in sorted(self.by_lang.items())}}

    @property
    def formula(self) -> str:
        """The decision rule in one line: its input, and where p = 0.5 (per language where it has its own)."""
        mixed = "".join(f" {'-' if w < 0 else '+'} {abs(w):.4f}·{name}" for name, w in self.mix.items())
        pooled, *by_lang = [(k, v) for k, v in self.thresholds.items() if v is not None] or [("*", math.nan)]
        own = f" ({', '.join(f'{k} {v:.4f}' for k, v in by_lang)})" if by_lang else ""
        return f"{self.feature}{mixed} ≥ {pooled[1]:.4f}{own}"

    def reading(self, sources: Sequence[Source], lang: str | None = None) -> dict[str, Any]:
        """What it read of ``sources`` and decided: why a question was answered "not found", for its author (the
        same sources' scores are in the answer; this is the sum the gate made of them)."""
        x = self.value(sources) if sources else None
        return {"rule": self.formula, "input": None if x is None else round(x, 4),
                "p_answerable": round(self.probability(sources, lang), 4)}

    @classmethod
    def fit(
        cls, features: Sequence[float], labels: Sequence[bool], *, pipeline_id: str = "", feature: str = "max_dense",
        langs: Sequence[str] | None = None, min_per_class: int = 5, metrics: Mapping[str, Any] | None = None,
        mix: Mapping[str, Sequence[float]] | None = None, toward_not_found: Mapping[str, float] | None = None,
        **extra: Any,
    ) -> AnswerabilityGate:
        """Platt-fit the pooled pair, and one pair per language in ``langs`` with ``min_per_class`` of each label.

        ``mix`` (feature → values): fitted jointly with ``features`` by logistic regression; the
        gate's input becomes features + Σ (w_mix / w_main) · mix, so thresholds stay in the main
        feature's units. ``toward_not_found`` (mix feature → logits): features that may only lower
        p (a declared gap); when the fit gives one no negative weight (the questions never show it,
        or show it the wrong way), the rest is fitted without it and it is added back at exactly that
        many logits: never dropped, never pushing toward "answerable".
        ``extra``: stored fields (``lang_offsets``, ``questions_digest``).
        """
        base = np.asarray(features, float)
        weights = _mix_weights(base, labels, mix or {})
        fixed = {n: logits for n, logits in (toward_not_found or {}).items() if n in (mix or {}) and weights.get(n, 0.0) >= 0}
        if fixed:
            weights = _mix_weights(base, labels, {n: v for n, v in (mix or {}).items() if n not in fixed})
        features = base + sum((w * np.asarray((mix or {})[n], float) for n, w in weights.items()), np.zeros(len(base)))
        a, b = fit_platt(features, labels)
        for name, logits in fixed.items():  # a, b are fitted without it; it adds exactly ``logits`` when present
            weights[name] = logits / a if a > 0 else 0.0
            features = features + weights[name] * np.asarray((mix or {})[name], float)
        by_lang: dict[str, tuple[float, float]] = {}
        if langs is not None:
            x, y, g = np.asarray(features, float), np.asarray(labels, bool), np.asarray(langs, dtype=object)
            for lang in sorted(set(g.tolist())):
                m = g == lang
                if min(int(y[m].sum()), int((~y[m]).sum())) >= min_per_class:
                    by_lang[lang] = fit_platt(x[m], y[m])
        labels_arr = np.asarray(labels, bool)
        return cls(
            pipeline_id=pipeline_id, a=a, b=b, feature=feature, by_lang=by_lang, mix=weights, **extra,
            n_answerable=int(labels_arr.sum()), n_unanswerable=int((~labels_arr).sum()),
            fitted_at=datetime.now(UTC).isoformat(timespec="seconds"), metrics=dict(metrics or {}),
        )

    # -- storage: calibration.json entries and rows of the artifact's calibration table ----

    def to_dict(self) -> dict[str, Any]:
        return {
            "pipeline_id": self.pipeline_id, "feature": self.feature_spec, "a": self.a, "b": self.b,
            "threshold": self.threshold,
            "by_lang": {lang: {"a": a, "b": b, "threshold": _threshold(a, b)} for lang, (a, b) in sorted(self.by_lang.items())},
            "n_answerable": self.n_answerable, "n_unanswerable": self.n_unanswerable, "fitted_at": self.fitted_at,
            # the artifact's calibration table has no columns of their own for these: they ride in metrics
            "metrics": {**self.metrics, "lang_offsets": None if self.lang_offsets is None else dict(self.lang_offsets),
                        "questions_digest": self.questions_digest},
        }

    @property
    def feature_spec(self) -> str:
        """The gate's input as stored: ``max_dense``, or with its mix, ``max_dense + 0.0475*topic``."""
        return " + ".join([self.feature, *(f"{w!r}*{name}" for name, w in self.mix.items())])

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> AnswerabilityGate:
        """From a calibration.json entry or a calibration table row (whose JSON columns are strings)."""
        by_lang, metrics = (json.loads(v) if isinstance(v, str) else (v or {}) for v in (row.get("by_lang"), row.get("metrics")))
        try:
            feature, mix = parse_feature(str(row["feature"]))
        except ValueError as exc:
            raise UserError(f"calibration gate {row.get('pipeline_id')!r}: {exc}") from None
        offsets, digest = metrics.pop("lang_offsets", None), metrics.pop("questions_digest", None)
        return cls(
            pipeline_id=row["pipeline_id"], a=float(row["a"]), b=float(row["b"]), feature=feature,
            by_lang={lang: (float(p["a"]), float(p["b"])) for lang, p in by_lang.items()},
            mix=mix, lang_offsets={k: float(v) for k, v in offsets.items()} if offsets is not None else None,
            questions_digest=digest,
            n_answerable=int(row.get("n_answerable") or 0), n_unanswerable=int(row.get("n_unanswerable") or 0),
            fitted_at=row.get("fitted_at"), metrics=metrics,
        )


def _mix_weights(features: np.ndarray, labels: Sequence[bool], mix: Mapping[str, Sequence[float]]) -> dict[str, float]:
    """Each mix feature's weight relative to the main one (joint logistic fit); none when the main weight is not positive."""
    if not mix:
        return {}
    names = list(mix)
    w, _ = fit_logistic(np.column_stack([features, *(mix[n] for n in names)]), labels)
    return {n: float(wi / w[0]) for n, wi in zip(names, w[1:])} if w[0] > 0 else {}


def _threshold(a: float, b: float) -> float | None:
    return -b / a if a != 0 else None
