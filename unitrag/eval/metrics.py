"""Ranking metrics, computed by ir-measures (trec_eval's definitions through pytrec_eval).

BEIR reports with pytrec_eval too, so these numbers compare with published ones:
nDCG uses graded relevance as linear gain; a document judged 0 is not relevant.

Two choices are ours, and both are reported rather than hidden:

* A judged query the system returned nothing for scores 0 (it is not dropped), so a
  retriever cannot gain by answering less.
* A query with no relevant document at all (only 0 grades, or judged in another
  split's file only) cannot be ranked well or badly: it is left out of the means and
  counted in ``QueryScores.unjudged``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import ir_measures
from ir_measures import AP, RR, Qrel, R, ScoredDoc, Success, nDCG

#: The measures reported for every variant, by the names used in reports and --json.
MEASURES = {
    "ndcg@10": nDCG @ 10,
    "recall@10": R @ 10,
    "recall@100": R @ 100,
    "mrr@10": RR @ 10,
    "map@100": AP @ 100,
    "success@5": Success @ 5,  # an answer unit among the 5 sources a prompt gets
}


@dataclass
class QueryScores:
    """Mean of each measure over the scored queries, and every query's own values."""

    means: dict[str, float]
    per_query: dict[str, dict[str, float]]
    unjudged: list[str] = field(default_factory=list)  # no relevant document: left out of the means

    @property
    def n(self) -> int:
        return len(self.per_query)


def score_rankings(rankings: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]]) -> QueryScores:
    """Score ranked document ids (best first; a repeat counts at its first rank) against graded judgements."""
    judged = {q: docs for q, docs in qrels.items() if any(grade > 0 for grade in docs.values())}
    unjudged = sorted(set(qrels) - set(judged))
    if not judged:
        raise ValueError("no query has a relevant document to score against")
    qrel_rows = [Qrel(q, doc, int(grade)) for q, docs in judged.items() for doc, grade in docs.items()]
    run_rows = []
    for q in judged:
        ranked = list(dict.fromkeys(rankings.get(q, ())))
        # strictly decreasing scores: trec_eval orders by score, then by doc id on ties
        run_rows.extend(ScoredDoc(q, doc, float(len(ranked) - i)) for i, doc in enumerate(ranked))
    per_query: dict[str, dict[str, float]] = {q: dict.fromkeys(MEASURES, 0.0) for q in judged}
    names = {measure: name for name, measure in MEASURES.items()}
    for metric in ir_measures.iter_calc(list(MEASURES.values()), qrel_rows, run_rows):
        per_query[metric.query_id][names[metric.measure]] = float(metric.value)
    means = {name: sum(scores[name] for scores in per_query.values()) / len(per_query) for name in MEASURES}
    return QueryScores(means, per_query, unjudged)
