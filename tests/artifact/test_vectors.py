"""Vectors stored as raw float32 BLOBs by chunk number (schema 6): round trip, deltas, older artifacts."""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pytest

from unitrag.artifact.incremental import write_delta
from unitrag.artifact.reader import open_artifact, read_vectors
from unitrag.artifact.schema import MIGRATIONS
from unitrag.artifact.vectors import TABLE, read_matrix, read_some, write_vectors
from unitrag.errors import UserError
from unitrag.rag.store.artifact_store import ChunkStore

from tests.artifact.test_incremental_write import TABLES, edited, full, vectors_for
from tests.rag.store.test_stored_index import DIM, QUESTIONS


def downgrade_to_schema_5(path: Path) -> None:
    """What an artifact written before migration 6 looks like: vectors in ``chunks.embedding``, no term df."""
    with open_artifact(path) as con:
        ids, matrix = read_vectors(con)
    with duckdb.connect(str(path)) as con:
        for cid, vector in zip(ids, matrix):
            con.execute(f"UPDATE chunks SET embedding = ?::FLOAT[{matrix.shape[1]}] WHERE chunk_id = ?", [vector.tolist(), cid])
        con.execute(f"DROP TABLE {TABLE}")
        con.execute("ALTER TABLE sparse_vocab DROP COLUMN df")
        con.execute(f"DELETE FROM schema_migrations WHERE version = {len(MIGRATIONS)}")


def stored(path: Path) -> dict[str, np.ndarray]:
    with open_artifact(path) as con:
        ids, matrix = read_vectors(con)
    return dict(zip(ids, matrix))


@pytest.mark.parametrize("dim", [3, 8])
def test_vectors_round_trip_whole_and_by_number(dim: int) -> None:
    con = duckdb.connect()
    con.execute(f"CREATE TABLE {TABLE} (chunk_no INTEGER NOT NULL, vector BLOB NOT NULL)")
    matrix = np.random.default_rng(dim).normal(size=(10, dim)).astype(np.float32)
    write_vectors(con, matrix[:6], np.arange(6))
    write_vectors(con, matrix[6:], np.array([9, 8, 12, 11]))  # numbers 6, 7 and 10 never given
    assert con.execute(f"SELECT DISTINCT octet_length(vector) FROM {TABLE}").fetchall() == [(4 * dim,)]
    np.testing.assert_array_equal(read_matrix(con, dim, np.array([0, 1, 2, 3, 4, 5, 9, 8, 12, 11])), matrix)
    picked = np.array([12, 0, 9, 3, 3])
    expected = matrix[[8, 0, 6, 3, 3]]
    whole, some = read_matrix(con, dim, picked), read_some(con, dim, picked)
    np.testing.assert_array_equal(whole, expected)
    np.testing.assert_array_equal(some, expected)
    assert whole.flags["C_CONTIGUOUS"] and whole.dtype == np.float32 and some.dtype == np.float32
    for missing in (7, 13, -1):
        for read in (read_matrix, read_some):
            with pytest.raises(ValueError, match="no stored vector"):
                read(con, dim, np.array([0, missing]))
    assert read_some(con, dim, np.zeros(0, dtype=np.int64)).shape == (0, dim)


def test_a_whole_read_in_number_order_is_a_view_of_one_arrow_buffer(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "v.duckdb"))
    con.execute(f"CREATE TABLE {TABLE} (chunk_no INTEGER NOT NULL, vector BLOB NOT NULL)")
    matrix = np.random.default_rng(0).normal(size=(5000, 8)).astype(np.float32)
    write_vectors(con, matrix, np.arange(5000))
    con.execute("CHECKPOINT")
    read = read_matrix(con, 8, np.arange(5000))
    np.testing.assert_array_equal(read, matrix)
    assert not read.flags["OWNDATA"] and not read.flags["WRITEABLE"]  # Arrow's buffer, not a copy
    with pytest.raises(ValueError, match="not 4 float32"):
        read_matrix(con, 4, np.arange(5000))


def test_a_full_write_stores_vectors_only_in_their_table_in_chunk_id_order(tmp_path: Path) -> None:
    before, *_ = edited()
    path = tmp_path / "kb.duckdb"
    full(path, before)
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM chunks WHERE embedding IS NOT NULL").fetchone() == (0,)
        numbers = con.execute("SELECT chunk_no FROM chunks ORDER BY chunk_id").fetchall()
    assert [n for (n,) in numbers] == list(range(len(before)))
    expected = dict(zip([r["chunk_id"] for r in before], vectors_for(before)))
    store = ChunkStore.load(path)
    np.testing.assert_array_equal(store.vectors, np.stack([expected[cid] for cid in store.ids]))


def test_a_delta_deletes_and_appends_only_the_rows_it_changes(tmp_path: Path) -> None:
    before, after, deletes, upserts = edited()
    path = tmp_path / "kb.duckdb"
    full(path, before)
    with duckdb.connect(str(path), read_only=True) as con:
        rows_before = con.execute(f"SELECT chunk_no, vector FROM {TABLE} ORDER BY chunk_no").fetchall()
    write_delta(path, dim=DIM, manifest={"embedder": {"id": "test:model", "dim": DIM}}, tables=TABLES,
                upserts=upserts, embeddings=vectors_for(upserts), deletes=deletes)
    with duckdb.connect(str(path), read_only=True) as con:
        rows_after = con.execute(f"SELECT chunk_no, vector FROM {TABLE} ORDER BY chunk_no").fetchall()
        numbers = {cid: no for cid, no in con.execute("SELECT chunk_id, chunk_no FROM chunks").fetchall()}
    gone = {no for no, _ in rows_before} - {no for no, _ in rows_after}
    assert len(gone) == len(deletes) + 2  # deleted chunks and the two replaced ones (c010, c020)
    assert [r for r in rows_before if r[0] not in gone] == rows_after[:len(rows_before) - len(gone)]  # others untouched
    assert sorted(no for no, _ in rows_after) == sorted(numbers.values())  # one vector per chunk, nothing left over
    expected = dict(zip([r["chunk_id"] for r in after], vectors_for(after)))
    got = stored(path)
    assert set(got) == set(expected)
    for cid, vector in expected.items():
        np.testing.assert_array_equal(got[cid], vector)
    store = ChunkStore.load(path)  # rows in chunk_id order, gathered by chunk number
    np.testing.assert_array_equal(store.vectors, np.stack([expected[cid] for cid in store.ids]))
    with open_artifact(path) as con:  # a few chunks: only their rows fetched, same vectors
        ids, few = read_vectors(con, "WHERE chunk_id IN ('c010', 'c031')")
    assert ids == ["c010", "c031"]
    np.testing.assert_array_equal(few, np.stack([expected["c010"], expected["c031"]]))


def test_an_artifact_of_schema_5_still_opens_with_its_vectors(tmp_path: Path) -> None:
    before, *_ = edited()
    path = tmp_path / "kb.duckdb"
    full(path, before)
    fresh = ChunkStore.load(path)
    downgrade_to_schema_5(path)
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM chunks WHERE embedding IS NULL").fetchone() == (0,)
    old = ChunkStore.load(path)
    assert old.ids == fresh.ids
    np.testing.assert_array_equal(old.vectors, fresh.vectors)
    assert stored(path).keys() == set(fresh.ids)
    for question in QUESTIONS:  # postings read with their terms (no df stored): the same index
        assert np.array_equal(old.sparse_index.scores(question), fresh.sparse_index.scores(question)), question


def test_a_chunk_without_a_stored_vector_is_a_damaged_artifact(tmp_path: Path) -> None:
    before, *_ = edited()
    path = tmp_path / "kb.duckdb"
    full(path, before)
    with duckdb.connect(str(path)) as con:
        con.execute("UPDATE chunks SET chunk_no = 999 WHERE chunk_id = 'c005'")
        con.execute("DELETE FROM manifest WHERE key = 'sparse_index'")  # the postings would be found stale first
    with pytest.raises(UserError, match="damaged.*no stored vector"):
        ChunkStore.load(path)
