"""An incremental write (copy + delta) gives the artifact a full write of the same rows would, and fails safely."""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pytest

from unitrag.artifact.incremental import can_write_incrementally, write_delta
from unitrag.artifact.writer import write_artifact
from unitrag.rag.store.artifact_store import ChunkStore

from tests.rag.store.test_stored_index import DIM, QUESTIONS, rows

TABLES = {"units": [], "citations": [], "topics": [], "guard_rules": [], "prompts": []}


def vectors_for(chunk_rows: list[dict]) -> np.ndarray:
    """A vector per row from its id and text, so the same row gets the same vector in either write."""
    out = []
    for row in chunk_rows:
        rng = np.random.default_rng(abs(hash((row["chunk_id"], row["text_for_prompt"]))) % 2**32)
        v = rng.normal(size=DIM).astype(np.float32)
        out.append(v / np.linalg.norm(v))
    return np.stack(out)


def full(path: Path, chunk_rows: list[dict]) -> None:
    write_artifact(path, dim=DIM, manifest={"embedder": {"id": "test:model", "dim": DIM}}, tables=TABLES,
                   chunk_rows=chunk_rows, embeddings=vectors_for(chunk_rows))


def edited() -> tuple[list[dict], list[dict], list[str]]:
    """(the rows before, the rows after, what the delta sends: upserts and deletes)."""
    before = rows(30)
    after = {r["chunk_id"]: dict(r) for r in before}
    for cid in ("c003", "c017"):
        del after[cid]
    after["c010"]["text_for_prompt"] = after["c010"]["text_for_embedding"] = "Ferritin and iron stores in athletes."
    after["c010"]["sparse_terms"] = "ferritin iron store athlet"
    after["c020"]["access"] = "clinician"  # metadata only: same vector
    extra = rows(33)[:3]  # c032, c031, c030: new ids
    after.update({r["chunk_id"]: r for r in extra})
    upserts = [after["c010"], after["c020"], *extra]
    return before, list(after.values()), ["c003", "c017"], upserts


def table(path: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_a_delta_equals_a_full_write_of_the_same_rows(tmp_path: Path) -> None:
    before, after, deletes, upserts = edited()
    inc, ref = tmp_path / "inc.duckdb", tmp_path / "ref.duckdb"
    full(inc, before)
    assert can_write_incrementally(inc, "test:model", DIM)
    written = write_delta(inc, dim=DIM, manifest={"embedder": {"id": "test:model", "dim": DIM}}, tables=TABLES,
                          upserts=upserts, embeddings=vectors_for(upserts), deletes=deletes)
    full(ref, after)
    assert written == len(after)
    columns = "* EXCLUDE (chunk_no)"
    assert table(inc, f"SELECT {columns} FROM chunks ORDER BY chunk_id") == table(ref, f"SELECT {columns} FROM chunks ORDER BY chunk_id")
    a, b = ChunkStore.load(inc), ChunkStore.load(ref)
    assert a.ids == b.ids and np.array_equal(a.vectors, b.vectors) and list(a.access) == list(b.access)
    for question in QUESTIONS + ["ferritin athletes"]:
        assert np.array_equal(a.sparse_index.scores(question), b.sparse_index.scores(question)), question
    manifest = dict(table(inc, "SELECT key, value FROM manifest"))
    assert '"chunks":' in manifest["counts"] and str(len(after)) in manifest["counts"]
    assert '"grouped":false' in manifest["sparse_index"].replace(" ", "")


def test_a_second_delta_on_a_delta_still_equals_a_full_write(tmp_path: Path) -> None:
    before, after, deletes, upserts = edited()
    inc, ref = tmp_path / "inc.duckdb", tmp_path / "ref.duckdb"
    full(inc, before)
    manifest = {"embedder": {"id": "test:model", "dim": DIM}}
    write_delta(inc, dim=DIM, manifest=manifest, tables=TABLES, upserts=upserts, embeddings=vectors_for(upserts), deletes=deletes)
    write_delta(inc, dim=DIM, manifest=manifest, tables=TABLES, upserts=[], embeddings=np.zeros((0, DIM), np.float32),
                deletes=["c030"])
    full(ref, [r for r in after if r["chunk_id"] != "c030"])
    a, b = ChunkStore.load(inc), ChunkStore.load(ref)
    assert a.ids == b.ids and np.array_equal(a.vectors, b.vectors)
    for question in QUESTIONS:
        assert np.array_equal(a.sparse_index.scores(question), b.sparse_index.scores(question)), question


def test_a_failed_delta_leaves_the_artifact_byte_identical(tmp_path: Path) -> None:
    before, _, _, upserts = edited()
    path = tmp_path / "kb.duckdb"
    full(path, before)
    original = path.read_bytes()
    broken = [{**upserts[0], "kind": None}]  # NOT NULL: the transaction fails after the copy and the deletes
    with pytest.raises(duckdb.Error):
        write_delta(path, dim=DIM, manifest={"embedder": {"id": "test:model", "dim": DIM}}, tables=TABLES,
                    upserts=broken, embeddings=vectors_for(broken), deletes=["c001"])
    assert path.read_bytes() == original and list(tmp_path.glob("kb.duckdb.tmp-*")) == []


def test_only_a_current_artifact_of_the_same_embedder_takes_a_delta(tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    full(path, rows(5))
    assert can_write_incrementally(path, "test:model", DIM)
    assert not can_write_incrementally(path, "other:model", DIM)
    assert not can_write_incrementally(path, "test:model", DIM + 1)
    assert not can_write_incrementally(tmp_path / "missing.duckdb", "test:model", DIM)
    with duckdb.connect(str(path)) as con:
        con.execute("DELETE FROM manifest WHERE key = 'sparse_index'")
    assert not can_write_incrementally(path, "test:model", DIM)



def test_a_delta_keeps_each_terms_df_true_and_a_delete_only_delta_keeps_postings_grouped(tmp_path: Path) -> None:
    before, after, deletes, upserts = edited()
    inc, ref = tmp_path / "inc.duckdb", tmp_path / "ref.duckdb"
    full(inc, before)
    manifest = {"embedder": {"id": "test:model", "dim": DIM}}
    write_delta(inc, dim=DIM, manifest=manifest, tables=TABLES, upserts=[], embeddings=np.zeros((0, DIM), np.float32),
                deletes=deletes)
    assert '"grouped":true' in dict(table(inc, "SELECT key, value FROM manifest"))["sparse_index"].replace(" ", "")
    full(ref, [r for r in before if r["chunk_id"] not in deletes])
    a, b = ChunkStore.load(inc), ChunkStore.load(ref)  # a: postings read with the stored df, none of their terms
    for question in QUESTIONS:
        assert np.array_equal(a.sparse_index.scores(question), b.sparse_index.scores(question)), question
    write_delta(inc, dim=DIM, manifest=manifest, tables=TABLES, upserts=upserts, embeddings=vectors_for(upserts), deletes=[])
    counted = "SELECT term_id, count(*) FROM sparse_postings GROUP BY term_id"
    stored = "SELECT term_id, df FROM sparse_vocab WHERE df > 0"
    assert sorted(table(inc, counted)) == sorted(table(inc, stored))
    assert table(inc, "SELECT count(*) FROM sparse_vocab WHERE df IS NULL") == [(0,)]
