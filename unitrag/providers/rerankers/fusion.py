"""``fusion``: the offline second stage, a learned mix of what the first stage already knows.

No model and no torch: a cross-encoder with its weights cannot be installed on a fresh
machine here (none is packaged), so the default second stage re-scores the fused
candidates from four features, each in [0, 1]:

* ``dense``: the candidate's dense cosine, min-max scaled over the candidates;
* ``sparse``: its BM25 score, scaled the same way (0 for all when the sparse arm is off);
* ``title``: the share of the question's terms found in the chunk's title;
* ``coverage``: the share of the question's terms found anywhere in the chunk.

Terms are the sparse arm's (``unitrag.content.text.tokenize``: stemmed, stop words dropped,
jieba for Chinese), so the features work in both languages. A candidate one arm did
not return gets that arm's lowest score among the candidates (it ranked below all of
them there). The weights were fitted on SciFact train (benchmarks/quality/scifact_retrieval.py
``tune``; docs/benchmarks/quality.md has the numbers); a spec can override them:
``fusion:dense=1,sparse=0.5,title=0.2,coverage=1``.

A candidate written in the other language than the question shares few of its terms (a number,
a unit, "LDL"): its ``sparse``, ``title`` and ``coverage`` were near 0 whatever it said, so a Chinese
chunk that merely repeats "咖啡" outranked the English unit with the best cosine. Its term features
are now at least ``cross`` (0.5) × its ``dense`` feature. Chosen on the sample's four dev sets (0.5, 0.75
and 1 tried; Success@5 0.625 → 0.662 on the hardest), then measured on the four held-out test sets:
nDCG@10 0.805/0.724/0.813/0.763 → 0.833/0.764/0.862/0.787, Success@5 0.957/0.928/0.950/0.948 →
0.971/0.935/0.980/0.969; same-language questions pay a little (docs/benchmarks/quality.md).
``cross=0`` restores the old scoring. Nothing is lent when one candidate in the question's language holds
every term of the question, one of them held by no other candidate in that language ("anti-islanding line
workers"): the words were found, not missing, and lent to every unit of the other language they put unrelated
ones first (a new team's two knowledge bases; no question of the sample's or the examples' dev and test sets
changed rank or answer). A candidate only BM25 found is BM25's best, not its worst (``features``).

Scores are a weighted sum, not probabilities (``calibrated = False``): an answerability
threshold must not be read off them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ...content.text.lang import detect_lang
from ...content.text.tokenize import tokenize
from ...errors import UserError
from .base import Reranker, passage, source_field

#: Fitted on SciFact train (809 queries, all-MiniLM-L6-v2 + BM25 candidates) by grid search for
#: nDCG@10: the fewest features within 0.002 of the best (0.7345 vs 0.7354; RRF alone 0.7098).
#: ``coverage`` added at most 0.001 there, so it is off by default and costs no tokenising of passages.
DEFAULT_WEIGHTS = {"dense": 1.0, "sparse": 1.5, "title": 1.2, "coverage": 0.0, "cross": 0.5}
#: The features that need the question's own words in the passage.
TERM_FEATURES = ("sparse", "title", "coverage")


def parse_weights(model: str) -> dict[str, float]:
    weights = dict(DEFAULT_WEIGHTS)
    for part in filter(None, (p.strip() for p in model.replace(";", ",").split(","))):
        name, sep, value = part.partition("=")
        if not sep or name.strip() not in weights:
            raise UserError(f"reranker fusion:{model}: expected name=weight pairs with names {', '.join(weights)}")
        try:
            weights[name.strip()] = float(value)
        except ValueError:
            raise UserError(f"reranker fusion:{model}: {value!r} is not a number") from None
    return weights


def _scaled(values: list[float | None], *, lone_best: bool = False) -> list[float]:
    """Min-max over the candidates; a missing value is the lowest present one; all equal → all 0. With
    ``lone_best`` (BM25's scores, never below 0) and some missing, the scale starts at 0, where those are: a
    candidate BM25 found ranks above every one it did not, its lowest hit too (a college's "email address format":
    the one English unit saying "email" was BM25's second hit, scaled 0 as the Chinese units it did not return, and
    ranked tenth below them; dev, test and the teams' facts +1, +5, +1, docs/benchmarks/quality.md, stop 55)."""
    present = [v for v in values if v is not None]
    if not present:
        return [0.0] * len(values)
    low, high = min(present), max(present)
    if lone_best and len(present) < len(values):
        low = min(low, 0.0)
    span = high - low
    if span <= 0:
        return [1.0 if lone_best and v is not None and len(present) < len(values) else 0.0 for v in values]
    return [((low if v is None else v) - low) / span for v in values]


def _stage_score(source: Any, name: str) -> float | None:
    value = (source_field(source, "scores") or {}).get(name)
    return None if value is None else float(value)


def _lang(source: Any) -> str | None:
    lang = source_field(source, "lang")
    return lang if isinstance(lang, str) and lang else None


def _title(source: Any) -> str:
    return str(source_field(source, "title") or "")


class FusionReranker(Reranker):
    provider = "fusion"
    calibrated = False

    def __init__(self, model: str = "") -> None:
        super().__init__(model)
        self.weights = parse_weights(model)

    def features(self, question: str, sources: Sequence[Any]) -> dict[str, list[float]]:
        """Each feature's value per source, in [0, 1] (what ``score`` weighs). A lone BM25 hit is BM25's best (1),
        not its worst (0, a min-max over one value): scaled 0, the one unit of the question's language holding
        its words ("duty officer", a new team's internal unit) ranked below eight units of the other language,
        each lent half its cosine as term features (dev: one cross-language question of 373 left the top 5;
        test: 3 more facts stated of 1,420, S@5 unchanged; docs/benchmarks/quality.md)."""
        q_terms = set(tokenize(question))
        title_terms = [set(tokenize(_title(s))) for s in sources]
        want_coverage = self.weights["coverage"] != 0
        body_terms = [set(tokenize(passage(s))) for s in sources] if want_coverage else [set() for _ in sources]
        n = max(len(q_terms), 1)
        return {
            "dense": _scaled([_stage_score(s, "dense") for s in sources]),
            "sparse": _scaled([_stage_score(s, "sparse") for s in sources], lone_best=True),
            "title": [len(q_terms & t) / n for t in title_terms],
            "coverage": [len(q_terms & b) / n for b in body_terms],
        }

    def score(self, question: str, sources: Sequence[Any]) -> list[float]:
        if not sources:
            return []
        asked = detect_lang(question)
        # the question's own words found in its language, one of them nowhere else: nothing is missing to impute
        named = _named_in_own_language(question, sources, asked)
        features = self.features(question, sources)
        scores = []
        for i, source in enumerate(sources):
            values = {name: column[i] for name, column in features.items()}
            if _lang(source) not in (None, asked):  # few terms of the question can be in it: impute from dense
                floor = 0.0 if named else self.weights["cross"] * values["dense"]
                values.update({name: max(values[name], floor) for name in TERM_FEATURES})
            scores.append(sum(self.weights[name] * value for name, value in values.items()))
        return scores


def _named_in_own_language(question: str, sources: Sequence[Any], asked: str) -> bool:
    """Whether one candidate in the question's language holds every term of it, one of them a term no other
    candidate in that language holds ("anti-islanding line workers", "does it work with a YubiKey"): the
    question names what that candidate is about, and a candidate in the other language, which cannot show
    the words, is not lent them (its ``dense`` feature, raised by the cross-language correction, would
    otherwise put unrelated units first)."""
    q_terms = set(tokenize(question))
    if not q_terms:
        return False
    held = [q_terms & _terms(passage(s)) for s in sources
            if _lang(s) in (None, asked) and _stage_score(s, "sparse")]
    for terms in held:
        if terms == q_terms and any(sum(t in other for other in held) == 1 for t in terms):
            return True
    return False


@lru_cache(maxsize=4096)
def _terms(text: str) -> frozenset[str]:
    """A passage's terms, remembered: the top candidates recur from question to question."""
    return frozenset(tokenize(text))
