"""Writing a change to a few chunks without rewriting the artifact: copy, apply the delta, verify, rename.

A full write of a 100k-chunk artifact re-inserts every row, every vector and every
BM25 posting. Here the previous artifact is copied beside itself, the delta (rows
inserted or replaced, rows deleted, registries replaced, the manifest) is applied in
one transaction, the copy is checked and fsynced, then renamed over the artifact:
the same guarantee as a full write (a crash at any point leaves the old file or the
new one, never a mix), at the cost of one file copy.

A replaced or new chunk gets a fresh ``chunk_no``, so the BM25 postings of every
other chunk stay valid; the postings of the new rows are appended (terms the
vocabulary lacks are added after it), and the manifest says they are no longer
grouped by term (the reader then sorts them, which costs about one pass). Vectors
(``unitrag.artifact.vectors``) go the same way: the rows of the numbers dropped are
deleted, those of the numbers given appended.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from ..content.text.tokenize import TOKENIZER_VERSION, terms_current
from .postings import count_df, count_postings, write_postings
from .reader import read_manifest
from .schema import SCHEMA_VERSION
from .vectors import TABLE as VECTORS, write_vectors
from .writer import chunk_table, commit_temporary, connect_for_writing, fault_point, sweep_stale_temporaries, writing_beside


def can_write_incrementally(path: Path, embedder_id: str, dim: int) -> bool:
    """The artifact at ``path`` is current (schema, stored BM25 index and its tokenizer, embedder and dimension): a
    delta can apply."""
    try:
        with duckdb.connect(str(path), read_only=True) as con:
            version = con.execute("SELECT max(version) FROM schema_migrations").fetchone()
            manifest = read_manifest(con)
    except (duckdb.Error, OSError, ValueError):
        return False
    embedder = manifest.get("embedder") or {}
    return (
        version is not None and version[0] == SCHEMA_VERSION and "sparse_index" in manifest and terms_current(manifest)
        and embedder.get("id") == embedder_id and embedder.get("dim") == dim
    )


def write_delta(
    path: Path, *, dim: int, manifest: dict[str, Any], tables: dict[str, list[dict[str, Any]]],
    upserts: list[dict[str, Any]], embeddings: np.ndarray, deletes: list[str],
) -> int:
    """Replace ``path`` with itself plus the delta, or leave it as it was; returns the chunk count written.

    ``upserts`` are whole ``chunks`` rows (with ``sparse_terms``) that are new or replace the row of
    the same id; ``deletes`` are chunk ids to drop; ``tables`` replace those registries whole.
    The manifest's chunk counts are recomputed from what the artifact then holds.
    """
    if embeddings.shape != (len(upserts), dim):
        raise ValueError(f"embeddings shape {embeddings.shape} does not match {len(upserts)} chunks × {dim}")
    if any(row.get("sparse_terms") is None for row in upserts):
        raise ValueError("every upserted row needs its sparse_terms (the stored BM25 index covers every chunk)")
    sweep_stale_temporaries(path)
    with writing_beside(path) as tmp:
        shutil.copyfile(path, tmp)
        fault_point("after-copy")
        expected = _apply(tmp, dim, manifest, tables, upserts, embeddings, deletes)
        commit_temporary(tmp, path, expected)
    return expected["chunks"]


def _apply(
    tmp: Path, dim: int, manifest: dict[str, Any], tables: dict[str, list[dict[str, Any]]],
    upserts: list[dict[str, Any]], embeddings: np.ndarray, deletes: list[str],
) -> dict[str, int]:
    """The delta in one transaction; returns the row counts the verification expects."""
    con = connect_for_writing(tmp)
    try:
        con.execute("BEGIN")
        previous = read_manifest(con)
        grouped = bool((previous.get("sparse_index") or {}).get("grouped")) and not upserts
        gone = sorted(set(deletes) | {row["chunk_id"] for row in upserts})
        con.execute("CREATE TEMP TABLE gone AS SELECT unnest(?::VARCHAR[]) AS chunk_id", [gone])
        for table in ("sparse_postings", VECTORS):
            con.execute(f"DELETE FROM {table} WHERE chunk_no IN (SELECT c.chunk_no FROM chunks c JOIN gone USING (chunk_id))")
        con.execute("DELETE FROM chunks WHERE chunk_id IN (SELECT chunk_id FROM gone)")
        next_no = int(con.execute("SELECT coalesce(max(chunk_no), -1) + 1 FROM chunks").fetchone()[0])
        for table in ("sparse_postings", VECTORS):  # numbers are never reused, even one only these tables still name
            next_no = max(next_no, int(con.execute(f"SELECT coalesce(max(chunk_no), -1) + 1 FROM {table}").fetchone()[0]))
        if upserts:
            order = sorted(range(len(upserts)), key=lambda i: upserts[i]["chunk_id"])
            upserts, embeddings = [upserts[i] for i in order], embeddings[order]
            vocabulary = con.execute("SELECT term FROM sparse_vocab ORDER BY term_id").fetchall()
            terms = [t for (t,) in vocabulary]
            postings = count_postings([row["sparse_terms"] for row in upserts], vocabulary=terms)
            chunk_nos = np.arange(next_no, next_no + len(upserts))
            con.register("chunk_rows", chunk_table(upserts, chunk_nos, postings))
            con.execute("INSERT INTO chunks BY NAME SELECT * FROM chunk_rows")
            con.unregister("chunk_rows")
            write_vectors(con, embeddings, chunk_nos)
            write_postings(con, postings, chunk_nos, first_term=len(terms))
        count_df(con)
        for name, rows in tables.items():
            con.execute(f"DELETE FROM {name}")
            if rows:
                con.register("incoming", pa.Table.from_pylist(rows))
                con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM incoming")
                con.unregister("incoming")
        counts = dict(con.execute("SELECT kind, count(*) FROM chunks GROUP BY kind").fetchall())
        n_chunks = sum(counts.values())
        n_postings = int(con.execute("SELECT count(*) FROM sparse_postings").fetchone()[0])
        n_terms = int(con.execute("SELECT count(*) FROM sparse_vocab").fetchone()[0])
        manifest = {
            **manifest,
            "counts": {**manifest.get("counts", {}), "chunks": n_chunks, "chunks_by_kind": dict(sorted(counts.items()))},
            "sparse_index": {"chunks": n_chunks, "terms": n_terms, "postings": n_postings, "grouped": grouped,
                             "tokenizer": TOKENIZER_VERSION},
        }
        con.execute("DELETE FROM manifest")
        con.executemany(
            "INSERT INTO manifest VALUES (?, ?)", [[k, json.dumps(v, ensure_ascii=False)] for k, v in manifest.items()]
        )
        con.execute("COMMIT")
        con.execute("CHECKPOINT")
        expected = {name: int(con.execute(f"SELECT count(*) FROM {name}").fetchone()[0]) for name in tables}
    finally:
        con.close()
    return {**expected, "chunks": n_chunks, "sparse_postings": n_postings, "sparse_vocab": n_terms, VECTORS: n_chunks}
