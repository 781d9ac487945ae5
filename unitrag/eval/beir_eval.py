"""Every variant over a BEIR split: rank each judged query, map units back to documents, score."""

from __future__ import annotations

from typing import Any

from .beir import BeirDataset
from .metrics import score_rankings
from .report import EvalProgress, EvalReport, VariantResult
from .variants import Variant, rank, warm_up

DEPTH = 100  # documents ranked per query: Recall@100 and MAP@100 need them
TOP_SHOWN = 10  # documents kept per query in the per-query rows


def evaluate_beir(
    kb: Any, dataset: BeirDataset, doc_ids: dict[str, str], variants: list[Variant],
    progress: EvalProgress | None = None, limit: int | None = None,
) -> EvalReport:
    """Scores of each variant on ``dataset``'s split; ``doc_ids`` maps the artifact's unit ids to document ids."""
    qids = sorted(dataset.qrels, key=lambda q: (len(q), q))[:limit]
    qrels = {q: dataset.qrels[q] for q in qids}
    chunk_depth = DEPTH * 2  # a long document is several chunks: rank enough to fill DEPTH documents
    results: dict[str, VariantResult] = {}
    rows = {q: {"id": q, "query": dataset.queries[q], "relevant": {d: g for d, g in qrels[q].items() if g > 0},
                "variants": {}} for q in qids}
    unjudged: list[str] = []
    embedding_s = warm_up(kb, [dataset.queries[q] for q in qids], variants, chunk_depth)
    for variant in variants:
        rankings, seconds = {}, 0.0
        for n, q in enumerate(qids, start=1):
            ranking = rank(kb, dataset.queries[q], variant, chunk_depth)
            seconds += ranking.seconds
            rankings[q] = [doc_ids[u] for u in ranking.units if u in doc_ids][:DEPTH]
            if progress is not None:
                progress(variant.name, n, len(qids))
        scores = score_rankings(rankings, qrels)
        unjudged = scores.unjudged
        results[variant.name] = VariantResult(variant.name, variant.description, scores.means, scores.n, seconds)
        for q in qids:
            row = rows[q]["variants"][variant.name] = {"top": rankings[q][:TOP_SHOWN]}
            row.update({k: round(v, 4) for k, v in scores.per_query.get(q, {}).items()})
    pipeline = {"embedder": kb.store.manifest["embedder"]["id"], "reranker": kb.config.reranker,
                "chunks": len(kb.store), "documents": len(doc_ids), "depth": DEPTH,
                "query_embedding_qps": round(len(qids) / embedding_s, 1) if embedding_s else None}
    extra = {"split": dataset.split, "unjudged_queries": unjudged}
    return EvalReport("beir", dataset.name, pipeline, results, list(rows.values()), extra)
