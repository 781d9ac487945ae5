"""Retrieval metrics with BEIR's definitions (those of pytrec_eval / trec_eval).

Each function scores one query: ``ranked`` is the retrieved document ids, best first;
``qrels`` maps judged document ids to graded relevance (``> 0`` is relevant). A
document retrieved twice counts once, at its first rank.

* ``ndcg_at_k``: DCG with linear gain, ``sum(rel_i / log2(i + 1))`` over ranks 1..k,
  divided by the DCG of the ideal ordering of the judged relevances (trec_eval's
  ``ndcg_cut``); 0 when nothing is relevant.
* ``recall_at_k``: relevant documents in the top k / all relevant documents.
* ``mrr_at_k``: 1 / rank of the first relevant document in the top k, else 0.

``evaluate`` averages them over the queries of a qrels split; a judged query with no
results scores 0 (it is not dropped), so a retriever cannot gain by returning nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def _dedup(ranked: Sequence[str], k: int) -> list[str]:
    seen: set[str] = set()
    out = []
    for doc in ranked:
        if doc not in seen:
            seen.add(doc)
            out.append(doc)
            if len(out) == k:
                break
    return out


def ndcg_at_k(ranked: Sequence[str], qrels: Mapping[str, int], k: int = 10) -> float:
    ideal = sorted((r for r in qrels.values() if r > 0), reverse=True)[:k]
    idcg = sum(rel / math.log2(i + 2) for i, rel in enumerate(ideal))
    if idcg == 0:
        return 0.0
    dcg = sum(qrels.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(_dedup(ranked, k)) if qrels.get(doc, 0) > 0)
    return dcg / idcg


def recall_at_k(ranked: Sequence[str], qrels: Mapping[str, int], k: int = 100) -> float:
    relevant = {doc for doc, rel in qrels.items() if rel > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(_dedup(ranked, k))) / len(relevant)


def mrr_at_k(ranked: Sequence[str], qrels: Mapping[str, int], k: int = 10) -> float:
    for i, doc in enumerate(_dedup(ranked, k)):
        if qrels.get(doc, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def evaluate(
    runs: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]], *,
    ndcg_k: int = 10, recall_k: int = 100, mrr_k: int = 10,
) -> dict[str, float]:
    """Mean nDCG@k, Recall@k and MRR@k over every query in ``qrels`` (missing runs count as empty)."""
    if not qrels:
        raise ValueError("no judged queries to evaluate")
    totals = {f"ndcg@{ndcg_k}": 0.0, f"recall@{recall_k}": 0.0, f"mrr@{mrr_k}": 0.0}
    for qid, judged in qrels.items():
        ranked = runs.get(qid, ())
        totals[f"ndcg@{ndcg_k}"] += ndcg_at_k(ranked, judged, ndcg_k)
        totals[f"recall@{recall_k}"] += recall_at_k(ranked, judged, recall_k)
        totals[f"mrr@{mrr_k}"] += mrr_at_k(ranked, judged, mrr_k)
    return {name: value / len(qrels) for name, value in totals.items()}
