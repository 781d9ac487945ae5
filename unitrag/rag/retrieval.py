"""Candidate retrieval: dense (and sparse, fused by RRF) over every query, then rerank.

Broadened questions arrive as several queries; their candidate lists are fused
like any other list, so a chunk found by several sub-queries rises.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..config import Config
from .arguments import question_text
from .query_embedding import QueryEncoder
from .store import ChunkStore
from .timing import timed
from .types import SearchFilter, Source

RRF_K = 60
_SPARSE_LOCK = threading.Lock()


@dataclass
class Retriever:
    store: ChunkStore
    encoder: QueryEncoder
    config: Config
    sparse_index: Any = None  # unitrag.rag.sparse.SparseIndex: at open when sparse is on, else on first use
    reranker: Any = None
    gate: Any = None

    @classmethod
    def build(cls, store: ChunkStore, encoder: QueryEncoder, config: Config) -> "Retriever":
        retriever = cls(store, encoder, config)
        if config.reranker != "none":
            from ..providers.rerankers import load_reranker

            retriever.reranker = load_reranker(config.reranker)
        if config.sparse:  # built at open, from the terms the build stored: no first-query stall
            retriever._sparse()
        return retriever

    def retrieve(
        self, queries: list[str], where: SearchFilter, timings: dict[str, float], *, sparse: bool
    ) -> list[Source]:
        """Candidates best first, each carrying its dense / sparse / rrf / rerank scores."""
        found = self.candidates(queries, where, timings, sparse=sparse)
        return self.rerank(queries[0], found, timings) if self.reranker is not None else found

    def candidates(
        self, queries: list[str], where: SearchFilter, timings: dict[str, float], *,
        sparse: bool, dense: bool = True, depth: int | None = None,
    ) -> list[Source]:
        """The first stage: dense and/or BM25 lists of every query, fused by RRF, ``depth`` long.

        Queries over ``max_question_chars`` are refused here too: evaluation ranks through this
        method directly, and nothing unbounded may reach jieba, BM25 or the embedder's lock.
        """
        for query in queries:
            question_text(query, self.config.max_question_chars)
        k = depth or self.config.dense_k
        dense_lists: list[tuple[np.ndarray, np.ndarray]] = []
        for query in queries if dense else ():
            with timed(timings, "embed"):
                vector = self.encoder.encode(query)
            with timed(timings, "dense"):
                dense_lists.append(self.store.dense_search(vector, k, where))
        sparse_lists: list[tuple[np.ndarray, np.ndarray]] = []
        if sparse:
            with timed(timings, "sparse"):
                index, mask = self._sparse(), self.store.filter_mask(where)
                sparse_lists = [index.search(query, k, mask) for query in queries]
        with timed(timings, "fuse"):
            return self._fuse(dense_lists, sparse_lists, k)

    def rerank(self, question: str, candidates: list[Source], timings: dict[str, float]) -> list[Source]:
        """The top ``rerank_k`` candidates re-scored by the reranker, best first (the rest are dropped)."""
        with timed(timings, "rerank"):
            head = candidates[: self.config.rerank_k]
            for source, score in zip(head, self.reranker.score(question, head)):
                source.scores["rerank"] = float(score)
                source.score = float(score)
            return sorted(head, key=lambda s: s.score, reverse=True)

    def _sparse(self) -> Any:
        with _SPARSE_LOCK:  # two threads' first sparse queries must not both build it
            if self.sparse_index is None:
                from .sparse import SparseIndex

                self.sparse_index = SparseIndex.build(self.store)
        return self.sparse_index

    def _fuse(
        self, dense: list[tuple[np.ndarray, np.ndarray]], sparse: list[tuple[np.ndarray, np.ndarray]], k: int
    ) -> list[Source]:
        """Best dense and sparse score per chunk, plus reciprocal-rank fusion of all lists.

        With only one list (dense alone, or BM25 alone), that list's own score ranks.
        """
        best_dense: dict[int, float] = {}
        best_sparse: dict[int, float] = {}
        rrf: dict[int, float] = {}
        for lists, best in ((dense, best_dense), (sparse, best_sparse)):
            for rows, scores in lists:
                for rank, (row, score) in enumerate(zip(rows.tolist(), scores.tolist()), start=1):
                    best[row] = max(best.get(row, -np.inf), score)
                    rrf[row] = rrf.get(row, 0.0) + 1.0 / (RRF_K + rank)
        fused = bool(sparse) and bool(dense)
        sources = []
        for row in rrf:
            scores = {"dense": best_dense[row]} if row in best_dense else {}
            if row in best_sparse:
                scores["sparse"] = best_sparse[row]
            if fused:
                scores["rrf"] = rrf[row]
            source = self.store.source(row, **scores)
            source.score = rrf[row] if fused else (best_dense[row] if dense else best_sparse[row])
            sources.append(source)
        sources.sort(key=lambda s: s.score, reverse=True)
        return sources[:k]

    def answerable(self, sources: list[Source]) -> bool:
        """The answerability gate on the final-stage score (calibrated per model)."""
        if self.gate is None:
            return True
        return bool(self.gate.answerable(sources))
