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
from .dense import top_k
from .query_embedding import QueryEncoder
from .store import ChunkStore
from .timing import timed
from .types import Source

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

    def retrieve(self, queries: list[str], mask: np.ndarray | None, timings: dict[str, float], sparse: bool) -> list[Source]:
        """Candidates best first, each carrying its dense / sparse / rrf / rerank scores."""
        k = self.config.dense_k
        dense_lists: list[tuple[np.ndarray, np.ndarray]] = []
        for query in queries:
            with timed(timings, "embed"):
                vector = self.encoder.encode(query)
            with timed(timings, "dense"):
                dense_lists.append(top_k(self.store.vectors, vector, k, mask))
        sparse_lists: list[tuple[np.ndarray, np.ndarray]] = []
        if sparse:
            with timed(timings, "sparse"):
                index = self._sparse()
                sparse_lists = [index.search(query, k, mask) for query in queries]
        with timed(timings, "fuse"):
            candidates = self._fuse(dense_lists, sparse_lists)
        if self.reranker is not None:
            with timed(timings, "rerank"):
                candidates = self._rerank(queries[0], candidates)
        return candidates

    def _sparse(self) -> Any:
        with _SPARSE_LOCK:  # two threads' first sparse queries must not both build it
            if self.sparse_index is None:
                from .sparse import SparseIndex

                self.sparse_index = SparseIndex.build(self.store)
        return self.sparse_index

    def _fuse(self, dense: list[tuple[np.ndarray, np.ndarray]], sparse: list[tuple[np.ndarray, np.ndarray]]) -> list[Source]:
        """Best dense and sparse score per chunk, plus reciprocal-rank fusion of all lists."""
        best_dense: dict[int, float] = {}
        best_sparse: dict[int, float] = {}
        rrf: dict[int, float] = {}
        for lists, best in ((dense, best_dense), (sparse, best_sparse)):
            for rows, scores in lists:
                for rank, (row, score) in enumerate(zip(rows.tolist(), scores.tolist()), start=1):
                    best[row] = max(best.get(row, -np.inf), score)
                    rrf[row] = rrf.get(row, 0.0) + 1.0 / (RRF_K + rank)
        fused = bool(sparse)
        sources = []
        for row in rrf:
            scores = {"dense": best_dense[row]} if row in best_dense else {}
            if row in best_sparse:
                scores["sparse"] = best_sparse[row]
            if fused:
                scores["rrf"] = rrf[row]
            source = self.store.source(row, **scores)
            source.score = rrf[row] if fused else best_dense.get(row, 0.0)
            sources.append(source)
        sources.sort(key=lambda s: s.score, reverse=True)
        return sources[: self.config.dense_k]

    def _rerank(self, question: str, candidates: list[Source]) -> list[Source]:
        head = candidates[: self.config.rerank_k]
        for source, score in zip(head, self.reranker.score(question, head)):
            source.scores["rerank"] = float(score)
            source.score = float(score)
        return sorted(head, key=lambda s: s.score, reverse=True)

    def answerable(self, sources: list[Source]) -> bool:
        """The answerability gate on the final-stage score (calibrated per model)."""
        if self.gate is None:
            return True
        return bool(self.gate.answerable(sources))
