"""The sparse arm: BM25 over the chunks, in memory, Chinese segmented with jieba.

An inverted index in three NumPy arrays (CSR by term): for each term the rows it
occurs in and the row's precomputed BM25 weight, so a query is one vectorised
``scores[rows] += weights`` per query term and a partial sort. Exact, thread-safe
(read-only after ``build``), and filtered like the dense arm: masked rows never
enter the ranking.

BM25 is Lucene's (``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``, ``k1 = 1.2``,
``b = 0.75``); a term repeated in the question counts once per occurrence, as in a
Lucene boolean query. What is indexed per chunk: its title and its prompt text with
the inline ``<Cite id=".."/>`` tags removed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..content.tokenize import STEM, TOKENIZER_VERSION, indexed_text, sparse_terms, tokenize

K1 = 1.2
B = 0.75


@dataclass(frozen=True)
class SparseIndex:
    vocab: dict[str, int]
    indptr: np.ndarray  # (terms + 1,) int64: term t's postings are [indptr[t], indptr[t + 1])
    rows: np.ndarray  # (postings,) int32, ascending within a term
    weights: np.ndarray  # (postings,) float32: idf × saturated, length-normalised tf
    size: int  # number of rows (chunks) indexed
    stem: bool = STEM

    @classmethod
    def build(cls, store: Any, *, k1: float = K1, b: float = B, stem: bool = STEM) -> "SparseIndex":
        """The index of a ``ChunkStore``.

        Uses the ``sparse_terms`` the build stored per chunk (artifact schema 2) when the
        store has them for every row and they were made the way questions will be
        tokenised (same ``TOKENIZER_VERSION`` where the manifest records one under
        ``sparse.tokenizer``, default stemming); otherwise tokenises the chunks now, which
        costs about a minute per 100k English chunks on two cores (jieba is slower still).
        """
        columns = store.columns
        stored = columns.get("sparse_terms")
        recorded = ((getattr(store, "manifest", None) or {}).get("sparse") or {}).get("tokenizer", TOKENIZER_VERSION)
        if stored is not None and stem == STEM and recorded == TOKENIZER_VERSION and all(t is not None for t in stored):
            return cls.from_joined(stored, k1=k1, b=b, stem=stem)
        texts = [indexed_text(title, text) for title, text in zip(columns["title"], columns["text_for_prompt"])]
        return cls.from_texts(texts, k1=k1, b=b, stem=stem)

    @classmethod
    def from_texts(cls, texts: Sequence[str], *, k1: float = K1, b: float = B, stem: bool = STEM) -> "SparseIndex":
        return cls.from_joined([sparse_terms(t, stem=stem) for t in texts], k1=k1, b=b, stem=stem)

    @classmethod
    def from_terms(cls, docs: Sequence[Sequence[str]], *, k1: float = K1, b: float = B, stem: bool = STEM) -> "SparseIndex":
        """From each row's terms (row i of the store = ``docs[i]``); terms must not contain spaces.

        ``stem`` says how questions will be tokenised: it must be how ``docs`` were.
        """
        return cls.from_joined([" ".join(d) for d in docs], k1=k1, b=b, stem=stem)

    @classmethod
    def from_joined(cls, docs: Sequence[str], *, k1: float = K1, b: float = B, stem: bool = STEM) -> "SparseIndex":
        """From each row's terms joined by single spaces (the artifact's ``sparse_terms``).

        Splitting and interning run in Arrow, counting in NumPy: a few seconds at 100k chunks.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        n = len(docs)
        lists = pc.split_pattern(pa.array(docs, pa.large_string()), " ")
        encoded = pc.dictionary_encode(lists.flatten())
        term_ids = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        row_ids = np.repeat(np.arange(n, dtype=np.int64), np.diff(lists.offsets.to_numpy()))
        vocab = {term: i for i, term in enumerate(encoded.dictionary.to_pylist())}
        empty = vocab.pop("", None)  # "" from an empty row or a doubled space: not a term
        if empty is not None:
            keep = term_ids != empty
            term_ids, row_ids = term_ids[keep], row_ids[keep]
        return cls._from_ids(vocab, term_ids, row_ids, n, len(encoded.dictionary), k1, b, stem)

    @classmethod
    def _from_ids(
        cls, vocab: dict[str, int], term_ids: np.ndarray, row_ids: np.ndarray, n: int, n_terms: int,
        k1: float, b: float, stem: bool,
    ) -> "SparseIndex":
        lengths = np.bincount(row_ids, minlength=n).astype(np.float64)
        keys, tf = np.unique(term_ids * max(n, 1) + row_ids, return_counts=True)  # sorted by term, then row
        terms, rows = np.divmod(keys, max(n, 1))
        df = np.bincount(terms, minlength=n_terms)
        indptr = np.concatenate(([0], np.cumsum(df))).astype(np.int64)
        idf = np.log1p((n - df + 0.5) / (df + 0.5))
        avgdl = lengths.mean() if n and lengths.mean() > 0 else 1.0
        norm = k1 * (1.0 - b + b * lengths / avgdl)
        weights = idf[terms] * tf * (k1 + 1.0) / (tf + norm[rows])
        return cls(vocab, indptr, rows.astype(np.int32), weights.astype(np.float32), n, stem)

    def __len__(self) -> int:
        return self.size

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every row for ``query`` (0 where no query term occurs)."""
        scores = np.zeros(self.size, dtype=np.float32)
        for term, count in Counter(tokenize(query, stem=self.stem)).items():
            t = self.vocab.get(term)
            if t is None:
                continue
            start, end = self.indptr[t], self.indptr[t + 1]
            scores[self.rows[start:end]] += count * self.weights[start:end]
        return scores

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Rows (into the store) and BM25 scores of the ``k`` best matches, best first.

        Only rows sharing a term with the query are returned (possibly fewer than ``k``);
        rows where ``mask`` is False never are.
        """
        scores = self.scores(query)
        hits = np.flatnonzero(scores > 0)
        if mask is not None:
            hits = hits[np.asarray(mask, dtype=bool)[hits]]
        if k <= 0 or hits.size == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        if hits.size > k:
            hits = hits[np.argpartition(-scores[hits], k - 1)[:k]]
        order = hits[np.lexsort((hits, -scores[hits]))]  # best first; ties by row, so results are stable
        return order.astype(np.int64), scores[order]
