"""The BM25 index as the artifact stores it: vocabulary, postings (term, chunk, tf) and document lengths.

Counted once, at build time, from each chunk's ``sparse_terms``, so that opening a
knowledge base reads ready postings instead of splitting and counting every chunk's
terms again (5 s at 100k chunks). The runtime turns them into BM25 weights
(``unitrag.rag.store.sparse``); the artifact keeps raw term frequencies and lengths so an
incremental write only touches the postings of the chunks it changes.

Postings name a chunk by its ``chunk_no`` (a column of ``chunks``): the row number in
``chunk_id`` order when the artifact was written in full, and a fresh number for a
chunk added by an incremental write, so that adding or removing a chunk never
renumbers the others' postings. Each term's df is stored with it (schema 6): a fully
written artifact's postings are then read without their term ids.
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
    """Insert ``postings`` (documents numbered as ``chunk_nos``), and the terms from ``first_term`` on with their df.

    The df of terms before ``first_term`` (an incremental write's existing vocabulary) is ``count_df``'s to redo.
    """
    if len(postings.terms) > first_term:
        df = np.bincount(postings.term_ids, minlength=len(postings.terms))[first_term:].astype(np.int32)
        con.register("incoming_terms", pa.table({
            "term_id": pa.array(np.arange(first_term, len(postings.terms), dtype=np.int32)),
            "term": pa.array(postings.terms[first_term:], pa.string()), "df": pa.array(df),
        }))
        con.execute("INSERT INTO sparse_vocab BY NAME SELECT * FROM incoming_terms")
        con.unregister("incoming_terms")
    if len(postings):
        con.register("incoming_postings", pa.table({
            "term_id": postings.term_ids, "chunk_no": np.asarray(chunk_nos, np.int32)[postings.docs], "tf": postings.tf,
        }))
        con.execute("INSERT INTO sparse_postings SELECT * FROM incoming_postings")
        con.unregister("incoming_postings")


def count_df(con: duckdb.DuckDBPyConnection) -> None:
    """Set every term's df (``sparse_vocab.df``) from the stored postings, after an incremental write changed them."""
    con.execute("UPDATE sparse_vocab SET df = 0")
    con.execute("UPDATE sparse_vocab SET df = c.n FROM (SELECT term_id, count(*)::INTEGER AS n FROM sparse_postings "
                "GROUP BY term_id) c WHERE sparse_vocab.term_id = c.term_id")


@dataclass(frozen=True)
class StoredPostings:
    """What ``read_postings`` returns: postings with documents as chunk numbers, in stored order."""

    terms: list[str]
    term_ids: np.ndarray | None  # int32; None when read grouped by term (then ``df`` says where each term's run ends)
    chunk_nos: np.ndarray  # int32
    tf: np.ndarray  # uint16
    df: np.ndarray | None = None  # (terms,) int64: postings per term, when ``term_ids`` is None


def read_postings(con: duckdb.DuckDBPyConnection, *, grouped: bool = False) -> StoredPostings:
    """The stored vocabulary and postings, each in one Arrow read (no ORDER BY: a full write stores them by term).

    ``grouped`` (the manifest says no incremental write appended postings since) and every term's df
    stored (schema 6): each posting's term is not read at all, the df say where each term's run ends
    (100k chunks: 9.4M term ids neither copied nor counted).
    """
    with_df = grouped and "df" in {row[0] for row in con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE table_name = 'sparse_vocab'").fetchall()}
    vocab = con.execute(f"SELECT term_id, term{', df' if with_df else ''} FROM sparse_vocab").to_arrow_table()
    ids = numpy_view(vocab.column("term_id"))
    if ids.size and (ids.min() < 0 or ids.max() >= ids.size or np.unique(ids).size != ids.size):
        raise ValueError("the stored BM25 vocabulary does not number its terms 0..n-1")
    terms_in_order = vocab.column("term").to_pylist()
    terms: list[str] = [""] * len(terms_in_order)
    for i, term in zip(ids.tolist(), terms_in_order):
        terms[i] = term
    if not with_df or vocab.column("df").null_count:
        table = read_whole(con, "term_id, chunk_no, tf", "sparse_postings")
        return StoredPostings(terms, *(numpy_view(table.column(name)) for name in ("term_id", "chunk_no", "tf")))
    df = np.zeros(len(terms), dtype=np.int64)
    df[ids] = numpy_view(vocab.column("df"))
    table = read_whole(con, "chunk_no, tf", "sparse_postings")
    return StoredPostings(terms, None, numpy_view(table.column("chunk_no")), numpy_view(table.column("tf")), df)
