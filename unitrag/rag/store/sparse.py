"""The sparse arm: BM25 over the chunks, in memory, Chinese segmented with jieba.

An inverted index in NumPy arrays (CSR by term): for each term the rows it occurs
in and its frequency there; a query computes the BM25 weights of its terms' postings
(with per-term idf and per-row length norms) and adds them, one vectorised
``scores[rows] += weights`` per query term, then a partial sort. Built from the
postings the artifact stores (no pass over every posting at open), or counted from
each chunk's terms for an older artifact. Exact, thread-safe
(read-only after ``build``), and filtered like the dense arm: masked rows never
enter the ranking.

BM25 is Lucene's (``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``, ``k1 = 1.2``,
``b = 0.75``); a term repeated in the question counts once per occurrence, as in a
Lucene boolean query. What is indexed per chunk: its title and its prompt text with
the inline ``<Cite id=".."/>`` tags removed.

A caller who may not read the restricted chunks is scored with statistics of the chunks
it may read (``seen_by``): idf and the average length counted over every chunk would make
a public unit's score move with the words of restricted ones, and a caller who can read
every public unit could tell from a score whether a word occurs in a restricted one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ...artifact.postings import StoredPostings, count_postings
from ...content.text.tokenize import STEM, indexed_text, sparse_terms, terms_current, tokenize

K1 = 1.2
B = 0.75


#: Rows are held as uint16 offsets into blocks of this many rows (half the memory of int32: 18 MiB at 100k chunks).
ROW_BLOCK = 1 << 16
#: A term frequency held in ``tf`` (uint8) at or above this is a stand-in: the true one is in ``tf_over``.
TF_OVER = 255


@dataclass(frozen=True)
class SparseIndex:
    vocab: dict[str, int]
    indptr: np.ndarray  # (terms + 1,) int64: term t's postings are [indptr[t], indptr[t + 1])
    rows: np.ndarray  # (postings,) uint16: the row modulo ROW_BLOCK (int32 rows when blocks would not pay)
    tf: np.ndarray  # (postings,) uint8: the term's frequency in the row; TF_OVER: see ``tf_over_at``
    idf: np.ndarray  # (terms,) float64
    norm: np.ndarray  # (rows,) float64: k1 × (1 − b + b × length / average length)
    size: int  # number of rows (chunks) indexed
    stem: bool = STEM
    k1: float = K1
    #: Postings (ascending) where a term's row block changes, and by how many blocks (none under 65,536 rows).
    jumps: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    jump_blocks: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: Postings (ascending) whose frequency is TF_OVER or more, and that frequency (up to 65,535, as counted):
    #: uint8 halves ``tf`` (18 → 9 MiB at 100k chunks, where no posting reaches 255), scores stay exact.
    tf_over_at: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    tf_over: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint16))
    #: Rows holding each term, counted over the rows ``seen_by`` kept (None: every row, ``indptr``'s counts).
    counts: np.ndarray | None = None
    b: float = B

    @classmethod
    def build(cls, store: Any, *, k1: float = K1, b: float = B, stem: bool = STEM) -> "SparseIndex":
        """The index of a ``ChunkStore``.

        The one the store read from the artifact (schema 5: postings counted at build time)
        when it has one and the parameters are the defaults; else from the ``sparse_terms``
        the build stored per chunk (schema 2) when the store has them for every row and they
        were made the way questions will be tokenised (``terms_current``: the manifest's
        ``sparse_index.tokenizer`` is this ``TOKENIZER_VERSION``; default stemming); otherwise it
        tokenises the chunks now, which costs about a minute per 100k English chunks on two
        cores (jieba is slower still).
        """
        prebuilt = getattr(store, "sparse_index", None)
        if prebuilt is not None and (k1, b, stem) == (K1, B, prebuilt.stem):
            return prebuilt
        columns = store.columns
        stored = columns.get("sparse_terms")
        current = terms_current(getattr(store, "manifest", None) or {})
        if stored is not None and stem == STEM and current and all(t is not None for t in stored):
            return cls.from_joined(list(stored), k1=k1, b=b, stem=stem)
        held = columns.get("text_for_prompt")  # else an artifact's store: its texts read from the file once
        prompts = held if held is not None else store.prompt_texts(range(len(store)))
        texts = [indexed_text(title, text) for title, text in zip(columns["title"], prompts)]
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
        p = count_postings(docs)
        return cls.from_postings(p.terms, p.term_ids, p.docs, p.tf, p.lengths, k1=k1, b=b, stem=stem)

    @classmethod
    def from_stored(
        cls, stored: StoredPostings, chunk_nos: np.ndarray, lengths: np.ndarray, *, grouped: bool = False,
        k1: float = K1, b: float = B,
    ) -> "SparseIndex":
        """From the postings the artifact stores; ``chunk_nos`` and ``lengths`` are the store's rows' (in row order).

        ``grouped``: the writer says the postings are in term order (a full write), so they are not checked.
        A posting naming a chunk number no row has means the artifact's index is stale: ValueError.
        """
        n = len(chunk_nos)
        chunk_nos = np.asarray(chunk_nos, dtype=np.int64)
        top = int(stored.chunk_nos.max(initial=-1))
        if np.array_equal(chunk_nos, np.arange(n)):  # a full write numbers rows in order: postings name rows
            rows = stored.chunk_nos
            if top >= n or int(stored.chunk_nos.min(initial=0)) < 0:
                raise ValueError("the stored BM25 postings name chunks the artifact does not hold")
        else:
            row_of = np.full(int(max(chunk_nos.max(initial=-1), top)) + 1, -1, dtype=np.int32)
            row_of[chunk_nos] = np.arange(n, dtype=np.int32)
            rows = row_of[stored.chunk_nos]
            if (rows < 0).any():
                raise ValueError("the stored BM25 postings name chunks the artifact does not hold")
        term_ids, tf = stored.term_ids, stored.tf
        if term_ids is None:  # read grouped by term, with each term's count
            return cls.from_postings(stored.terms, None, rows, tf, np.asarray(lengths), k1=k1, b=b, df=stored.df)
        if not grouped and term_ids.size and (term_ids[1:] < term_ids[:-1]).any():  # an incremental write appended
            order = np.argsort(term_ids, kind="stable")  # timsort: nearly sorted input costs about one pass
            term_ids, rows, tf = term_ids[order], rows[order], tf[order]
        return cls.from_postings(stored.terms, term_ids, rows, tf, np.asarray(lengths), k1=k1, b=b)

    @classmethod
    def from_postings(
        cls, terms: list[str], term_ids: np.ndarray | None, rows: np.ndarray, tf: np.ndarray, lengths: np.ndarray, *,
        k1: float = K1, b: float = B, stem: bool = STEM, df: np.ndarray | None = None,
    ) -> "SparseIndex":
        """BM25 weights of postings grouped by ascending term id (rows: store rows; lengths: terms per row).

        ``df`` (postings per term) stands in for ``term_ids`` when the caller has the counts already.
        """
        n = len(lengths)
        lengths = np.asarray(lengths, dtype=np.float64)
        if df is None:
            if term_ids is None:
                raise ValueError("from_postings needs each posting's term or each term's count")
            df = np.bincount(np.asarray(term_ids), minlength=len(terms))
        elif int(df.sum()) != len(rows):
            raise ValueError("the stored BM25 term counts do not add up to the postings")
        indptr = np.concatenate(([0], np.cumsum(df))).astype(np.int64)
        idf = np.log1p((n - df + 0.5) / (df + 0.5))
        avgdl = lengths.mean() if n and lengths.mean() > 0 else 1.0
        norm = k1 * (1.0 - b + b * lengths / avgdl)
        vocab = dict(zip(terms, range(len(terms))))
        small, over_at, over = _narrow_tf(np.asarray(tf))
        low, jumps, jump_blocks = _in_blocks(np.asarray(rows), indptr, n)
        return cls(vocab, indptr, low, small, idf, norm, n, stem, k1, jumps, jump_blocks, over_at, over, b=b)

    def weights(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        """Rows of ``term``'s postings and their BM25 weights (idf × saturated, length-normalised tf).

        Computed per query term rather than stored: opening then costs no pass over every posting.
        """
        start, end = self.indptr[term], self.indptr[term + 1]
        rows = self.rows[start:end].astype(np.int32)
        first, last = np.searchsorted(self.jumps, (start, end))
        for at, blocks in zip(self.jumps[first:last].tolist(), self.jump_blocks[first:last].tolist()):
            rows[at - start:] += blocks * ROW_BLOCK
        tf = self.tf[start:end].astype(np.float64)
        first, last = np.searchsorted(self.tf_over_at, (start, end))
        if last > first:
            tf[self.tf_over_at[first:last] - start] = self.tf_over[first:last]
        return rows, (self.idf[term] * tf * (self.k1 + 1.0) / (tf + self.norm[rows])).astype(np.float32)

    def __len__(self) -> int:
        return self.size

    def seen_by(self, keep: np.ndarray) -> "SparseIndex":
        """The index with idf, length norms and term counts of the rows ``keep`` marks only (the others keep their
        postings; a search masks them out): what a caller reading those rows alone may be scored with. One pass
        over the postings (~0.1 s at 100k chunks), made at open for a knowledge base holding restricted rows."""
        keep = np.asarray(keep, dtype=bool)
        rows = self.rows.astype(np.int32)  # int32 throughout: ~4 bytes a posting at a time (5M postings: 20 MB)
        if self.jumps.size:  # each jump adds its blocks to every later posting of the same term (``weights``)
            added = np.zeros(len(rows), dtype=np.int32)
            np.add.at(added, self.jumps, (self.jump_blocks * ROW_BLOCK).astype(np.int32))
            total = np.cumsum(added, dtype=np.int32)
            del added
            before = np.concatenate(([0], total))[self.indptr[:-1]]  # what earlier terms' jumps added
            rows += total - np.repeat(before.astype(np.int32), np.diff(self.indptr))
            del total
        kept = keep[rows]
        del rows
        terms = np.repeat(np.arange(len(self.indptr) - 1, dtype=np.int32), np.diff(self.indptr))
        df = np.bincount(terms[kept], minlength=len(self.indptr) - 1)
        n = int(keep.sum())
        idf = np.log1p((n - df + 0.5) / (df + 0.5))
        lengths = (self.norm / self.k1 - (1.0 - self.b)) / self.b if self.b else np.ones(self.size)  # ÷ average length
        mean = float(lengths[keep].mean()) if n else 1.0
        norm = self.k1 * (1.0 - self.b + self.b * lengths / (mean if mean > 0 else 1.0))
        return replace(self, idf=idf, norm=norm, counts=df)

    def chunk_count(self, term: str) -> int:
        """How many rows hold ``term`` (a term as ``tokenize`` makes it): 0 for a word the index does not know."""
        t = self.vocab.get(term)
        if t is None:
            return 0
        return int(self.counts[t]) if self.counts is not None else int(self.indptr[t + 1] - self.indptr[t])

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every row for ``query`` (0 where no query term occurs)."""
        scores = np.zeros(self.size, dtype=np.float32)
        for term, count in Counter(tokenize(query, stem=self.stem)).items():
            t = self.vocab.get(term)
            if t is None:
                continue
            rows, weights = self.weights(t)
            scores[rows] += count * weights
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


def _narrow_tf(tf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Term frequencies as uint8 (a copy: a view would keep the whole Arrow batch read, 130 MiB at 100k chunks),
    plus the positions and true values (capped at 65,535, as counted) of those at TF_OVER or more."""
    if not tf.size or int(tf.max()) < TF_OVER:  # the usual case: one pass to check, one to copy
        return tf.astype(np.uint8), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint16)
    over_at = np.flatnonzero(tf >= TF_OVER)
    return np.minimum(tf, TF_OVER).astype(np.uint8), over_at.astype(np.int64), np.minimum(tf[over_at], 2**16 - 1).astype(np.uint16)


def _in_blocks(rows: np.ndarray, indptr: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Postings' rows as uint16 offsets in ROW_BLOCK-row blocks, plus where (and by how much) a term's block changes.

    Rows ascend within a term when the artifact was written in full, so a term changes block at most once per
    block; rows appended by incremental writes may alternate, and when the changes would cost more than the
    uint16 saves, rows stay int32.
    """
    none = np.zeros(0, dtype=np.int64)
    if n <= ROW_BLOCK:
        return rows.astype(np.uint16), none, none
    rows = rows.astype(np.int32, copy=False)
    block = rows >> 16
    changed = np.empty(rows.size, dtype=bool)  # int32 and bool passes only: 9.4M postings at 100k chunks
    changed[:1] = block[:1] != 0
    np.not_equal(block[1:], block[:-1], out=changed[1:])
    starts = indptr[:-1][indptr[:-1] < indptr[1:]]  # a term's first posting starts from block 0
    changed[starts] = block[starts] != 0
    jumps = np.flatnonzero(changed)
    if jumps.size * 16 > rows.size * 2:  # 16 bytes per change against 2 saved per posting
        return rows, none, none
    at = np.minimum(np.searchsorted(starts, jumps), max(len(starts) - 1, 0))  # both ascending: no np.isin sort
    before = np.where(starts[at] == jumps, 0, block[np.maximum(jumps - 1, 0)]) if len(starts) else block[jumps - 1]
    return rows.astype(np.uint16), jumps.astype(np.int64), (block[jumps] - before).astype(np.int64)
