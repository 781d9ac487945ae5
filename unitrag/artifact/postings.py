"""The BM25 index as the artifact stores it: vocabulary, postings (term, chunk, tf) and document lengths.

Counted once, at build time, from each chunk's ``sparse_terms``, so that opening a
knowledge base reads ready postings instead of splitting and counting every chunk's
terms again (5 s at 100k chunks). The runtime turns them into BM25 weights
(``unitrag.rag.sparse``); the artifact keeps raw term frequencies and lengths so an
incremental write only touches the postings of the chunks it changes.

Postings name a chunk by its ``chunk_no`` (a column of ``chunks``): the row number in
``chunk_id`` order when the artifact was written in full, and a fresh number for a
chunk added by an incremental write, so that adding or removing a chunk never
renumbers the others' postings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .arrow_numpy import numpy_view, read_whole


@dataclass(frozen=True)
class Postings:
    """Term frequencies by (term, document); documents are positions in the list counted."""

    terms: list[str]  # the vocabulary: term_id = position
    term_ids: np.ndarray  # (postings,) int32, ascending
    docs: np.ndarray  # (postings,) int32, ascending within a term
    tf: np.ndarray  # (postings,) uint16 (a term 65,535 times in one chunk counts 65,535 times)
    lengths: np.ndarray  # (documents,) int32: number of terms of each document

    def __len__(self) -> int:
        return int(self.term_ids.shape[0])


def count_postings(joined: Sequence[str | None], vocabulary: Sequence[str] = ()) -> Postings:
    """Postings of documents given as their terms joined by single spaces (``sparse_terms``).

    ``vocabulary`` keeps existing term ids (an incremental write): new terms are numbered after it.
    Splitting and interning run in Arrow, counting in NumPy.
    """
    n = len(joined)
    lists = pc.split_pattern(pa.array([d or "" for d in joined], pa.large_string()), " ")
    flat, parents = lists.flatten(), pc.list_parent_indices(lists)
    real = pc.not_equal(flat, "")  # "" from an empty document or a doubled space: not a term
    flat, parents = pc.filter(flat, real), pc.filter(parents, real)
    known = pa.array(list(vocabulary), pa.large_string())
    new = pc.unique(pc.filter(flat, pc.invert(pc.is_in(flat, value_set=known))))
    terms = list(vocabulary) + new.to_pylist()
    term_ids = pc.index_in(flat, value_set=pa.array(terms, pa.large_string())).to_numpy().astype(np.int64)
    docs = parents.to_numpy().astype(np.int64)
    lengths = np.bincount(docs, minlength=n).astype(np.int32)
    keys, tf = np.unique(term_ids * max(n, 1) + docs, return_counts=True)  # sorted by term, then document
    t, d = np.divmod(keys, max(n, 1))
    return Postings(terms, t.astype(np.int32), d.astype(np.int32), np.minimum(tf, 2**16 - 1).astype(np.uint16), lengths)


def write_postings(con: duckdb.DuckDBPyConnection, postings: Postings, chunk_nos: np.ndarray, *, first_term: int = 0) -> None:
    """Insert ``postings`` (documents numbered as ``chunk_nos``), and the terms from ``first_term`` on."""
    if len(postings.terms) > first_term:
        con.register("incoming_terms", pa.table({
            "term_id": pa.array(np.arange(first_term, len(postings.terms), dtype=np.int32)),
            "term": pa.array(postings.terms[first_term:], pa.string()),
        }))
        con.execute("INSERT INTO sparse_vocab SELECT * FROM incoming_terms")
        con.unregister("incoming_terms")
    if len(postings):
        con.register("incoming_postings", pa.table({
            "term_id": postings.term_ids, "chunk_no": np.asarray(chunk_nos, np.int32)[postings.docs], "tf": postings.tf,
        }))
        con.execute("INSERT INTO sparse_postings SELECT * FROM incoming_postings")
        con.unregister("incoming_postings")


@dataclass(frozen=True)
class StoredPostings:
    """What ``read_postings`` returns: postings with documents as chunk numbers, in stored order."""

    terms: list[str]
    term_ids: np.ndarray  # int32
    chunk_nos: np.ndarray  # int32
    tf: np.ndarray  # uint16


def read_postings(con: duckdb.DuckDBPyConnection) -> StoredPostings:
    """The stored vocabulary and postings, each in one Arrow read (no ORDER BY: written grouped by term)."""
    vocab = con.execute("SELECT term_id, term FROM sparse_vocab").to_arrow_table()
    ids = numpy_view(vocab.column("term_id"))
    terms_in_order = vocab.column("term").to_pylist()
    terms: list[str] = [""] * len(terms_in_order)
    for i, term in zip(ids.tolist(), terms_in_order):
        terms[i] = term
    table = read_whole(con, "term_id, chunk_no, tf", "sparse_postings")
    return StoredPostings(terms, *(numpy_view(table.column(name)) for name in ("term_id", "chunk_no", "tf")))
