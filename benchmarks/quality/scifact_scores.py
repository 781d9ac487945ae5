"""Scoring retrieval variants on SciFact: BEIR's metrics per split, and paired bootstrap intervals between variants."""

from __future__ import annotations

import argparse
import time

import numpy as np

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))  # the shared helpers (also when imported alone)

from scifact_data import SciFact  # noqa: E402
from scifact_variants import Variant, default_variants, load_candidate, make_retriever, rank  # noqa: E402


def evaluate_variant(retriever, data: SciFact, variant: Variant, splits: list[str], reranker=None, limit: int | None = None) -> dict[str, dict[str, float]]:  # type: ignore[no-untyped-def]
    """nDCG@10, Recall@100, MRR@10 and ms/query per split (the first ``limit`` judged queries), with nDCG@10 per query."""
    out = {}
    for split in splits:
        qrels = data.qrels[split]
        if limit:
            qrels = dict(list(qrels.items())[:limit])
        started = time.perf_counter()
        runs = {q: rank(retriever, variant, data.queries[q], reranker) for q in qrels}
        elapsed = (time.perf_counter() - started) * 1000 / len(qrels)
        means, per_query = score_split(runs, qrels)
        out[split] = {**{m: means[m] for m in ("ndcg@10", "recall@100", "mrr@10")}, "ms/query": elapsed,
                      "per_query_ndcg@10": per_query.tolist()}
    return out


def score_split(runs: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> tuple[dict[str, float], np.ndarray]:
    """BEIR's means over the split, and nDCG@10 per judged query in ``qrels`` order (0 where nothing was ranked).

    Every judged query counts, as in BEIR: a per-query list that skipped the misses would
    pair the wrong queries in ``paired_delta``.
    """
    from unitrag.eval.metrics import score_rankings

    scores = score_rankings(runs, qrels)
    return scores.means, np.array([scores.per_query[q]["ndcg@10"] if q in scores.per_query else 0.0 for q in qrels])


def paired_delta(a: list[float], b: list[float], rounds: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Mean of b − a over the same queries, with a 95% paired bootstrap interval."""
    diff = np.asarray(b) - np.asarray(a)
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), size=(rounds, len(diff)))].mean(axis=1)
    return float(diff.mean()), float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def print_deltas(results: dict[str, dict[str, dict[str, object]]]) -> None:
    """Each variant's nDCG@10 against dense and against dense+BM25, per split, with the bootstrap interval."""
    for base in ("dense", "dense+bm25 (RRF)"):
        if base not in results:
            continue
        for name, scores in results.items():
            if name == base:
                continue
            cells = []
            for split, metrics in scores.items():
                if split in results[base]:
                    mean, low, high = paired_delta(results[base][split]["per_query_ndcg@10"], metrics["per_query_ndcg@10"])  # type: ignore[arg-type]
                    cells.append(f"{split}: {mean:+.4f} [{low:+.4f}, {high:+.4f}]")
            print(f"  Δ nDCG@10 {name} vs {base}: " + "  ".join(cells))


def run(args: argparse.Namespace, data: SciFact) -> dict[str, object]:
    """``scifact_retrieval.py run``: every variant asked for (``--variants``) on every ``--split``, then the deltas."""
    retriever = make_retriever(args.embedder, data, depth=args.depth, rerank_k=args.rerank_k)
    results: dict[str, object] = {}
    wanted = {v.strip() for v in args.variants.split(",")} if args.variants else None
    for variant in default_variants(args.reranker):
        if wanted and variant.name not in wanted:
            continue
        reranker = load_candidate(variant.reranker) if variant.reranker else None
        results[variant.name] = scores = evaluate_variant(retriever, data, variant, args.split, reranker, args.limit)
        print(f"{variant.name:<40}" + "  ".join(
            f"{split}: nDCG@10 {m['ndcg@10']:.4f} R@100 {m['recall@100']:.4f} MRR@10 {m['mrr@10']:.4f} ({m['ms/query']:.1f} ms/q)"
            for split, m in scores.items()
        ), flush=True)
    print("paired differences, 95% bootstrap intervals over queries:")
    print_deltas(results)  # type: ignore[arg-type]
    return results
