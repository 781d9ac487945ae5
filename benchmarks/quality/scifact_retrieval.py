"""Retrieval quality on BEIR SciFact: dense, dense+BM25 (RRF) and each second-stage candidate.

Usage::

    # once per embedder (resumable: Ctrl-C and run it again; vectors are cached batch by batch)
    nice -n 19 python benchmarks/quality/scifact_retrieval.py embed --embedder sentence-transformers:all-MiniLM-L6-v2
    # every variant, on train (to choose) and test (to report), with paired bootstrap intervals
    nice -n 19 python benchmarks/quality/scifact_retrieval.py run --embedder sentence-transformers:all-MiniLM-L6-v2
    # the fusion reranker's weights: grid search on train, the pick rule, 5-fold CV of the procedure
    nice -n 19 python benchmarks/quality/scifact_retrieval.py tune

The corpus is embedded once per embedder into ``.unitrag/bench/<embedder>/`` (the build's
``EmbeddingCache``, keyed by a hash of the embedded text) and frozen into a ``.npy``
beside it; query vectors are cached the same way. A document is ``title + " " + text``,
as in BEIR's own dense baselines. Metrics are the standard BEIR ones
(``unitrag.eval.metrics``): nDCG@10, Recall@100, MRR@10, averaged over the split's queries.

Variants (first stage always exact dense search over the whole corpus, then):

* ``dense``            dense only, top 100
* ``bm25``             the sparse arm alone (``unitrag.rag.store.sparse.SparseIndex``)
* ``dense+bm25``       RRF (k=60) of dense top-100 and BM25 top-100
* ``... + <reranker>`` the top ``--rerank-k`` (12, the runtime's default) of the fused
                       list re-scored by a reranker candidate, the rest kept in order below:
                       any ``load_reranker`` spec (``fusion``, ``cross-encoder:<path>``...) or
                       ``maxsim:all-MiniLM-L6-v2`` (late interaction, benchmark-only, slow)

The data is looked up at ``<repo>/../shared/data/beir/scifact`` unless ``--data`` says otherwise.

This file is the command line; the pieces live beside it, and in ``benchmarks/common/``: ``scifact_data.py`` (the BEIR files,
cached vectors), ``scifact_variants.py`` (the retriever and reranker candidates),
``scifact_scores.py`` (``run``: metrics and paired deltas), ``scifact_tune.py`` (``tune``),
``measure.py`` (the machine line).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))  # the shared helpers

from measure import machine  # noqa: E402
from scifact_data import (  # noqa: E402
    BENCH_DIR, DEFAULT_DATA, PUBLISHED, corpus_vectors, load_scifact, query_vectors, slug,
)
from scifact_scores import run  # noqa: E402
from scifact_tune import tune  # noqa: E402


def main() -> None:
    """Parse the subcommand and its flags, load SciFact, run it, write ``--json``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["embed", "run", "tune"],
                        help="embed: cache vectors; run: every variant; tune: fit the fusion weights")
    parser.add_argument("--embedder", default="sentence-transformers:all-MiniLM-L6-v2")
    parser.add_argument("--reranker", action="append", default=None, help="reranker specs to compare (repeatable; default: fusion)")
    parser.add_argument("--split", action="append", default=None, help="qrels splits (default: train and test; tune: train)")
    parser.add_argument("--depth", type=int, default=100, help="candidates per arm and after fusion (default 100, for Recall@100)")
    parser.add_argument("--rerank-k", type=int, default=12, help="candidates the reranker re-scores (the runtime's rerank_k)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N judged queries of each split (quick looks)")
    parser.add_argument("--variants", default=None, help="comma-separated variant names to run (default: all)")
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    data = load_scifact(args.data)
    if args.command == "embed":
        corpus_vectors(args.embedder, data)
        query_vectors(args.embedder, data)
        print(f"cached under {BENCH_DIR / slug(args.embedder)}")
        return
    args.split = args.split or (["train"] if args.command == "tune" else ["train", "test"])
    args.reranker = args.reranker or ["fusion"]
    limit = f", first {args.limit} queries per split" if args.limit else ""
    print(f"SciFact, embedder {args.embedder}, depth {args.depth}, rerank top-{args.rerank_k}{limit}; {machine()}")
    results = run(args, data) if args.command == "run" else tune(args, data)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"embedder": args.embedder, "depth": args.depth, "rerank_k": args.rerank_k,
                                         "results": results, "published_test_ndcg@10": PUBLISHED}, indent=2))


if __name__ == "__main__":
    main()
