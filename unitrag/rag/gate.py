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

import contextlib
import hashlib
import json
import logging
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..artifact.gate_feature import FEATURE_NAMES, parse_feature
from ..config import Config
from ..errors import UserError
from .types import Source

log = logging.getLogger(__name__)
#: Gates fitted on the bundled sample's dev questions, for knowledge bases not calibrated on their own.
DEFAULT_CALIBRATION = Path(__file__).with_name("default_calibration.json")
_warned: set[str] = set()
_hush = 0  # > 0 inside ``hushed()``

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


# -- Platt scaling ------------------------------------------------------------------------


def sigmoid(z: Any) -> Any:
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(z, dtype=np.float64)))


def fit_logistic(columns: np.ndarray, labels: Sequence[bool], iterations: int = 100) -> tuple[np.ndarray, float]:
    """Weights and bias of p = sigmoid(x·w + b) over the columns of ``columns`` (n × d), Platt's targets.

    :func:`fit_platt` with several features: a constant column (a mix feature every question
    shares) gets weight 0 rather than an error.
    """
    X = np.asarray(columns, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    sd = X.std(axis=0)
    live = sd > 0
    a0, b = fit_platt(X[:, 0], labels, iterations) if live.sum() == 1 and live[0] else (0.0, 0.0)
    if live.sum() <= 1:
        return np.array([a0] + [0.0] * (X.shape[1] - 1)), b
    y = np.asarray(labels, dtype=bool)
    n_pos, n_neg = int(y.sum()), int(y.size - y.sum())
    mu = X.mean(axis=0)
    Z = np.column_stack([(X[:, live] - mu[live]) / sd[live], np.ones(len(X))])
    t = np.where(y, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    ridge = 1e-6 * np.eye(Z.shape[1])
    w = np.zeros(Z.shape[1])
    for _ in range(iterations):
        p = sigmoid(Z @ w)
        step = np.linalg.solve(Z.T @ (Z * (p * (1.0 - p))[:, None]) + ridge, Z.T @ (p - t) + ridge @ w)
        w = w - step
        if np.abs(step).max() < 1e-10:
            break
    weights = np.zeros(X.shape[1])
    weights[live] = w[:-1] / sd[live]
    return weights, float(w[-1] - (weights[live] * mu[live]).sum())


def fit_platt(features: Sequence[float], labels: Sequence[bool], iterations: int = 100) -> tuple[float, float]:
    """(a, b) of p = sigmoid(a·x + b), by Newton's method on the cross-entropy.

    Platt's targets ((n+ + 1)/(n+ + 2) and 1/(n- + 2) instead of 1 and 0) keep the
    slope finite when the two classes are perfectly separated, as they often are on a
    small labelled set. The feature is standardised for the iterations only.
    """
    x = np.asarray(features, dtype=np.float64)
    y = np.asarray(labels, dtype=bool)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError("features and labels must be two sequences of the same length")
    n_pos = int(y.sum())
    n_neg = int(y.size - n_pos)
    if n_pos == 0 or n_neg == 0:
        raise ValueError("Platt scaling needs both answerable and unanswerable examples")
    if not np.all(np.isfinite(x)):
        raise ValueError("features must be finite numbers")
    mu, sd = float(x.mean()), float(x.std())
    if sd == 0.0:
        raise ValueError("the feature has the same value for every example: it cannot separate anything")
    X = np.column_stack([(x - mu) / sd, np.ones_like(x)])
    t = np.where(y, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    ridge = 1e-9 * np.eye(2)

    def loss(w: np.ndarray) -> float:
        z = X @ w  # log(1 + e^z) - t·z, computed without overflow
        return float(np.sum(np.logaddexp(0.0, z) - t * z))

    w = np.zeros(2)
    current = loss(w)
    for _ in range(iterations):
        p = sigmoid(X @ w)
        grad = X.T @ (p - t)
        hess = X.T @ (X * (p * (1.0 - p))[:, None]) + ridge
        step = np.linalg.solve(hess, grad)
        scale = 1.0
        while scale > 1e-6 and loss(w - scale * step) > current:
            scale /= 2.0  # backtracking keeps every step downhill
        w = w - scale * step
        previous, current = current, loss(w)
        if abs(previous - current) < 1e-12 * max(1.0, abs(current)) or np.abs(scale * step).max() < 1e-12:
            break
    a = w[0] / sd
    return float(a), float(w[1] - a * mu)


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


def gate_for(rows: Sequence[Mapping[str, Any]], pipeline: str) -> AnswerabilityGate | None:
    """The gate fitted for this pipeline, or None (no calibration for it)."""
    for row in rows:
        if row["pipeline_id"] == pipeline:
            return AnswerabilityGate.from_dict(row)
    return None


def default_gates() -> list[dict[str, Any]]:
    """The gates fitted on the bundled sample's dev questions (empty if the file is missing)."""
    try:
        return list(json.loads(DEFAULT_CALIBRATION.read_text(encoding="utf-8"))["gates"])
    except (OSError, ValueError, KeyError, TypeError):
        return []


def gate_in_use(rows: Sequence[Mapping[str, Any]], pipeline: str) -> tuple[AnswerabilityGate | None, bool]:
    """The knowledge base's own gate for ``pipeline``, else the default one; and whether it is the default."""
    own = gate_for(rows, pipeline)
    if own is not None:
        return own, False
    return gate_for(default_gates(), pipeline), True


def uncalibrated_message(pipeline: str, default: AnswerabilityGate | None, calibration_file: str = "calibration.json",
                         brief: bool = False) -> str:
    """What to tell an author whose knowledge base has no gate fitted on its own questions (``brief``: one line,
    for every ``ask`` and server start; the build gives the whole of it)."""
    using = ("the default answerability gate, fitted on the bundled sample's questions" if default is not None
             else "no answerability gate at all (every question is answered, none is \"not found\")")
    if brief:
        return (f"no answerability gate fitted on this knowledge base's questions: using {using.split(',')[0]} "
                f"(`unitrag calibrate --write {calibration_file}`, then `unitrag build`)")
    return (f"this knowledge base has no answerability gate fitted on its own questions for {pipeline}: it uses {using}. "
            f"Write labelled questions in content/eval/questions.yaml (every eval/*.yaml but the *_test.yaml ones is a dev set), "
            f"then run `unitrag calibrate --write {calibration_file}` and rebuild.")


def build_warning(rows: Sequence[Mapping[str, Any]], pipeline: str, questions: Sequence[Any]) -> str | None:
    """What ``unitrag build`` says when the gate it copies was not fitted on this content's questions; None if it was.

    No gate for the pipeline: the default one will be used. A gate fitted on other questions
    (another knowledge base's calibration.json, or questions edited since): refit it.
    """
    own = gate_for(rows, pipeline)
    if own is None:
        return uncalibrated_message(pipeline, gate_for(default_gates(), pipeline))
    if questions and own.questions_digest != questions_digest(questions):
        return (f"the answerability gate for {pipeline} in calibration.json was not fitted on this knowledge base's "
                "labelled questions (the dev questions in content/eval/ differ from the set it was fitted on): run "
                "`unitrag calibrate --write calibration.json` and rebuild.")
    if own.metrics.get("kept") == "default":  # written by calibrate, but no gate of its own: said, not hidden
        asked = own.metrics.get("questions")
        on = f"on its {asked} dev questions " if isinstance(asked, int) else ""
        return (f"calibration.json keeps the default answerability gate for {pipeline}: {on}a gate fitted on this "
                "knowledge base was no better out of sample (`unitrag calibrate` says why). Add labelled questions, "
                "answerable and not, in two or more files of content/eval/, then calibrate again.")
    return None


@contextlib.contextmanager
def hushed() -> Iterator[None]:
    """Nothing ``say_once`` would say is said inside: ``unitrag calibrate`` fits the gate the message asks for, and
    telling its author to run it, as it runs, contradicts the verdict it prints next."""
    global _hush
    _hush += 1
    try:
        yield
    finally:
        _hush -= 1


def say_once(message: str) -> None:
    """Log ``message`` as a warning the first time only (a server opening many knowledge bases says it once)."""
    if message not in _warned and not _hush:
        _warned.add(message)
        log.warning(message)


def questions_digest(questions: Sequence[Any]) -> str:
    """A short digest of labelled questions (id, text, labels): which set a gate was fitted on. A question with a
    guard label never reaches the gate, so it is not part of the set (adding guard questions refits nothing)."""
    items = sorted(json.dumps([q.id, q.question, sorted(q.expected_units), q.unanswerable], ensure_ascii=False)
                   for q in questions if getattr(q, "guard", None) is None)
    return hashlib.sha256("\n".join(items).encode("utf-8")).hexdigest()[:16]


def write_calibration(path: Path, gate: AnswerabilityGate) -> None:
    """Add ``gate`` to calibration.json, replacing the gate of the same pipeline and keeping the others."""
    gates: list[dict[str, Any]] = []
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            gates = list(data["gates"] if isinstance(data, dict) else data)
            if not all(isinstance(g, dict) for g in gates):
                raise TypeError("a gate that is not an object")
        except RecursionError:  # JSON nested deeper than the parser goes
            raise UserError(f"{path}: not a calibration file (nested too deeply); move it away to start a new one"
                            ) from None
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
            raise UserError(f"{path}: not a calibration file ({exc}); move it away to start a new one") from None
    gates = [g for g in gates if g.get("pipeline_id") != gate.pipeline_id] + [gate.to_dict()]
    document = {
        "about": "Answerability gates fitted by `unitrag calibrate` on the dev questions in content/eval/, one per query "
                 "pipeline (embedder|reranker|sparse). `unitrag build` copies them into the artifact.",
        "gates": sorted(gates, key=lambda g: g["pipeline_id"]),
    }
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise UserError(f"{path}: cannot write the calibration ({exc.strerror or exc})") from None
