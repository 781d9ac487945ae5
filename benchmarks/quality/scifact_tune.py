"""The fusion reranker's weights, fitted on SciFact train: a grid search, the pick rule, 5-fold CV of the procedure."""

from __future__ import annotations

import argparse

import numpy as np

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))  # the shared helpers (also when imported alone)

from scifact_data import SciFact  # noqa: E402
from scifact_scores import paired_delta, score_split  # noqa: E402
from scifact_variants import ALL, make_retriever  # noqa: E402


FUSION_GRID = {
    "dense": [1.0],
    "sparse": [0.0, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0],
    "title": [0.0, 0.2, 0.4, 0.8, 1.2, 1.6],
    "coverage": [0.0, 0.5, 1.0, 2.0],
}
#: Among weightings within this much train nDCG@10 of the best, take the one with the fewest
#: features (then the best): the landscape is flat near the top, and fewer features cost less.
TOLERANCE = 0.002


def choose(means: np.ndarray, combos: list[dict[str, float]], tolerance: float = TOLERANCE) -> int:
    """The weighting with the fewest non-zero features among those within ``tolerance`` of the best mean (then the best)."""
    best = float(means.max())
    near = [i for i in range(len(combos)) if means[i] >= best - tolerance]
    return min(near, key=lambda i: (sum(1 for v in combos[i].values() if v), -means[i]))


def tune(args: argparse.Namespace, data: SciFact) -> dict[str, object]:
    """Grid search of the fusion reranker's weights on ``--split`` (train), candidates from dense+BM25 RRF.

    Prints the best weightings, the one ``choose`` picks, and a 5-fold cross-validation of
    the whole procedure on the same split (pick on 4/5, score the held-out 1/5) against RRF.
    """
    import itertools

    from unitrag.providers.rerankers.fusion import FusionReranker

    retriever = make_retriever(args.embedder, data, depth=args.depth, rerank_k=args.rerank_k)
    split = args.split[0]
    qrels = data.qrels[split]
    qids = list(qrels)
    k = args.rerank_k
    probe = FusionReranker("coverage=1")  # every feature computed
    cached = {}
    for q in qids:
        candidates = retriever.candidates([data.queries[q]], ALL, {}, sparse=True)
        head = candidates[:k]
        cached[q] = ([s.chunk_id for s in head], probe.features(data.queries[q], head), [s.chunk_id for s in candidates[k:]])
    baseline = score_split({q: cached[q][0] + cached[q][2] for q in qids}, qrels)[1]
    combos = [dict(zip(FUSION_GRID, values)) for values in itertools.product(*FUSION_GRID.values())]
    per_query = np.zeros((len(combos), len(qids)))
    for c, weights in enumerate(combos):
        runs = {}
        for q in qids:
            ids, features, tail = cached[q]
            scores = [sum(weights[f] * features[f][i] for f in weights) for i in range(len(ids))]
            order = sorted(range(len(ids)), key=lambda i: -scores[i])  # stable, as the runtime's sort
            runs[q] = [ids[i] for i in order] + tail
        per_query[c] = score_split(runs, qrels)[1]
    means = per_query.mean(axis=1)
    ranked = np.argsort(-means, kind="stable")
    print(f"{split}: dense+bm25 (RRF) nDCG@10 {baseline.mean():.4f}")
    for c in ranked[:10]:
        print(f"{split} nDCG@10 {means[c]:.4f}  {combos[c]}")
    chosen = choose(means, combos)
    print(f"chosen (fewest features within {TOLERANCE} of the best): nDCG@10 {means[chosen]:.4f}  {combos[chosen]}")
    folds = np.random.default_rng(0).permutation(len(qids)) % 5
    held_out = np.zeros(len(qids))
    for f in range(5):
        pick = choose(per_query[:, folds != f].mean(axis=1), combos)
        held_out[folds == f] = per_query[pick, folds == f]
        print(f"  fold {f}: picked {combos[pick]}")
    mean, low, high = paired_delta(list(baseline), list(held_out))
    print(f"5-fold CV on {split}: fusion {held_out.mean():.4f} vs RRF {baseline.mean():.4f}: Δ {mean:+.4f} [{low:+.4f}, {high:+.4f}]")
    return {
        "split": split, "rrf_ndcg@10": float(baseline.mean()), "chosen": {"ndcg@10": float(means[chosen]), "weights": combos[chosen]},
        "best": [{"ndcg@10": float(means[c]), "weights": combos[c]} for c in ranked[:20]],
        "cv5": {"fusion": float(held_out.mean()), "rrf": float(baseline.mean()), "delta": [mean, low, high]},
    }
