"""The BM25 index the artifact stores (schema 5) serves exactly what the runtime would build; older artifacts still open."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from unitrag.artifact.postings import StoredPostings, count_postings, read_postings
from unitrag.artifact.reader import open_artifact, read_vectors
from unitrag.artifact.writer import write_artifact
from unitrag.content.text.tokenize import indexed_text, sparse_terms
from unitrag.errors import UserError
from unitrag.rag.store.columns import Column, rows_with_any
from unitrag.rag.store.sparse import SparseIndex
from unitrag.rag.store.artifact_store import ChunkStore, in_chunk_order

from tests.rag.store.test_sparse import CHUNKS

DIM = 8
QUESTIONS = ["B12 anaemia", "iron deficiency in pregnancy", "维生素D 骨质疏松", "叶酸 神经管", "hypertension 140/90",
             "ferritin iron iron", "nothing matches zzz"]


def rows(n: int) -> list[dict]:
    """``n`` chunk rows cycling through CHUNKS with distinct ids, in reverse id order (the writer sorts them)."""
    out = []
    for i in reversed(range(n)):
        title, text = CHUNKS[i % len(CHUNKS)]
        text = f"{text} note {i}" if i % 3 else text
        out.append({
            "chunk_id": f"c{i:03d}", "unit_id": f"u{i:03d}", "kind": "rule", "story_id": None, "scene_id": None,
            "page": None, "title": title, "lang": "zh" if "维" in title or "叶" in title else "en",
            "access": "clinician" if i % 7 == 0 else "public", "topics": ["iron"] if "Iron" in title else ["other"],
            "citation_ids": [], "text_for_embedding": text, "text_for_prompt": text, "extra": "{}",
            "source_path": f"u{i}.md", "content_hash": f"h{i}", "meta_hash": f"m{i}",
            "sparse_terms": sparse_terms(indexed_text(title, text)),
        })
    return out


def write(path: Path, chunk_rows: list[dict]) -> None:
    vectors = np.random.default_rng(0).normal(size=(len(chunk_rows), DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    write_artifact(path, dim=DIM, manifest={"embedder": {"id": "test:model", "dim": DIM}},
                   tables={"units": [], "citations": [], "topics": [], "guard_rules": [], "prompts": []},
                   chunk_rows=chunk_rows, embeddings=vectors)


@pytest.fixture
def artifact(tmp_path: Path) -> Path:
    path = tmp_path / "kb.duckdb"
    write(path, rows(40))
    return path


def runtime_index(store: ChunkStore) -> SparseIndex:
    """What the runtime builds by tokenising every chunk (no stored terms, no stored index)."""
    texts = [indexed_text(t, x) for t, x in zip(store.columns["title"], store.prompt_texts(range(len(store))))]
    return SparseIndex.from_texts(texts)


def test_the_stored_index_gives_the_runtime_scores(artifact: Path) -> None:
    store = ChunkStore.load(artifact)
    assert store.sparse_index is not None and "sparse_terms" not in store.columns  # no terms held in memory
    built = runtime_index(store)
    for question in QUESTIONS:
        assert np.array_equal(store.sparse_index.scores(question), built.scores(question)), question
    assert SparseIndex.build(store) is store.sparse_index


def test_rows_are_in_chunk_id_order_with_their_vectors(artifact: Path) -> None:
    store = ChunkStore.load(artifact)
    assert list(store.ids) == sorted(store.ids) and store.index["c005"] == 5
    with open_artifact(artifact) as con:
        ids, matrix = read_vectors(con, "WHERE chunk_id = 'c005'")
        number = con.execute("SELECT chunk_no FROM chunks WHERE chunk_id = 'c005'").fetchone()
    assert ids == ["c005"] and np.array_equal(store.vectors[5], matrix[0]) and number == (5,)


def downgrade_to_schema_3(path: Path) -> None:
    """What an artifact written before migration 5 looks like: terms per chunk, no stored index."""
    from tests.artifact.test_vectors import downgrade_to_schema_5

    downgrade_to_schema_5(path)
    with duckdb.connect(str(path)) as con:
        con.execute("DROP TABLE sparse_postings")
        con.execute("DROP TABLE sparse_vocab")
        con.execute("ALTER TABLE chunks DROP COLUMN chunk_no")
        con.execute("ALTER TABLE chunks DROP COLUMN sparse_length")
        con.execute("DELETE FROM manifest WHERE key = 'sparse_index'")
        con.execute("DELETE FROM schema_migrations WHERE version = 5")


def test_an_artifact_without_a_stored_index_still_opens_and_builds_it(artifact: Path) -> None:
    downgrade_to_schema_3(artifact)
    store = ChunkStore.load(artifact)
    assert store.sparse_index is None and "sparse_terms" in store.columns
    index, built = SparseIndex.build(store), runtime_index(store)
    for question in QUESTIONS:
        assert np.array_equal(index.scores(question), built.scores(question)), question


def test_postings_naming_a_missing_chunk_are_a_damaged_artifact(artifact: Path) -> None:
    with duckdb.connect(str(artifact)) as con:
        con.execute("INSERT INTO sparse_postings VALUES (0, 999, 1)")
    with pytest.raises(UserError, match="damaged.*unitrag build --full"):
        ChunkStore.load(artifact)


def test_postings_out_of_term_order_give_the_same_index() -> None:
    docs = [r["sparse_terms"] for r in reversed(rows(12))]
    counted = count_postings(docs)
    stored = StoredPostings(counted.terms, counted.term_ids, counted.docs, counted.tf)
    shuffle = np.random.default_rng(1).permutation(len(counted))
    shuffled = StoredPostings(counted.terms, counted.term_ids[shuffle], counted.docs[shuffle], counted.tf[shuffle])
    chunk_nos = np.arange(len(docs))
    a = SparseIndex.from_stored(stored, chunk_nos, counted.lengths)
    b = SparseIndex.from_stored(shuffled, chunk_nos, counted.lengths)
    for question in QUESTIONS:
        assert np.array_equal(a.scores(question), b.scores(question))
        assert np.array_equal(a.scores(question), SparseIndex.from_joined(docs).scores(question))


def test_count_postings_keeps_an_existing_vocabulary_and_skips_empty_terms() -> None:
    counted = count_postings(["b  a", "", "c a"], vocabulary=["a", "z"])
    assert counted.terms == ["a", "z", "b", "c"]
    assert counted.lengths.tolist() == [2, 0, 2]
    assert sorted(zip(counted.term_ids.tolist(), counted.docs.tolist(), counted.tf.tolist())) == [
        (0, 0, 1), (0, 2, 1), (2, 0, 1), (3, 2, 1)]


def test_the_writer_stores_postings_matching_the_terms(artifact: Path) -> None:
    with duckdb.connect(str(artifact), read_only=True) as con:
        stored = read_postings(con)
        lengths = dict(con.execute("SELECT chunk_no, sparse_length FROM chunks").fetchall())
        terms = dict(con.execute("SELECT chunk_no, sparse_terms FROM chunks").fetchall())
    for no, joined in terms.items():
        mine = stored.term_ids[stored.chunk_nos == no]
        assert sorted(stored.terms[t] for t in mine) == sorted(set(joined.split()))
        assert lengths[no] == len(joined.split())


def test_postings_read_grouped_take_each_terms_stored_df_instead_of_their_terms(artifact: Path) -> None:
    with duckdb.connect(str(artifact), read_only=True) as con:
        every, grouped = read_postings(con), read_postings(con, grouped=True)
    assert grouped.term_ids is None and grouped.terms == every.terms
    assert np.array_equal(grouped.df, np.bincount(every.term_ids, minlength=len(every.terms)))
    assert np.array_equal(grouped.chunk_nos, every.chunk_nos) and np.array_equal(grouped.tf, every.tf)
    n = int(every.chunk_nos.max()) + 1
    lengths = np.ones(n)
    a = SparseIndex.from_stored(every, np.arange(n), lengths, grouped=True)
    b = SparseIndex.from_stored(grouped, np.arange(n), lengths, grouped=True)
    assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.rows, b.rows) and np.array_equal(a.idf, b.idf)
    short = StoredPostings(grouped.terms, None, grouped.chunk_nos[:-1], grouped.tf[:-1], grouped.df)
    with pytest.raises(ValueError, match="do not add up"):
        SparseIndex.from_stored(short, np.arange(n), lengths, grouped=True)
    with duckdb.connect(str(artifact)) as con:  # a schema-5 vocabulary (no df): the terms are read and counted
        con.execute("UPDATE sparse_vocab SET df = NULL")
        old = read_postings(con, grouped=True)
    assert old.term_ids is not None and np.array_equal(old.term_ids, every.term_ids)


def test_in_chunk_order_sorts_only_when_needed() -> None:
    table = pa.table({"chunk_id": ["b", "a", "c"], "x": [2, 1, 3]})
    assert in_chunk_order(table).column("x").to_pylist() == [1, 2, 3]
    ordered = pa.table({"chunk_id": ["a", "b"], "x": [1, 2]})
    assert in_chunk_order(ordered) is ordered


def test_arrow_columns_read_like_lists_and_filter_topics() -> None:
    topics = Column(pa.array([["iron"], [], ["b12", "iron"], ["folate"]]))
    assert topics[2] == ["b12", "iron"] and list(topics)[1] == [] and topics[1:3] == [[], ["b12", "iron"]]
    assert rows_with_any(topics, ["iron"]).tolist() == [True, False, True, False]
    assert rows_with_any(topics, ["zinc"]).tolist() == [False] * 4
    assert rows_with_any(Column(pa.array([[], []], pa.list_(pa.null()))), ["iron"]).tolist() == [False, False]


def test_loading_and_filtering_import_no_pandas(artifact: Path) -> None:
    """pyarrow's to_numpy and DuckDB's parameter binding import pandas (1 s at open); the runtime avoids both."""
    import subprocess
    import sys

    script = (
        "import sys; from pathlib import Path; from unitrag.rag.store.artifact_store import ChunkStore\n"
        f"store = ChunkStore.load(Path({str(artifact)!r}), hold_texts_up_to=0)\n"
        "assert store.mask(restricted=False, lang='en', topics=['iron']).any()\n"
        "store.sources([0, 1], [{}, {}])\n"
        "from unitrag.rag.store.known_ids import KnownIds\n"  # what KnowledgeBase.open builds next
        "KnownIds.of(store.topics, store.units, store.columns['unit_id'], store.columns['access'], store.columns['topics'])\n"
        "print('pandas' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_numpy_view_reads_arrow_columns_as_they_are() -> None:
    from unitrag.artifact.arrow_numpy import numpy_view
    from unitrag.rag.store.columns import categories

    values = pa.chunked_array([pa.array(np.arange(5, dtype=np.int32)), pa.array(np.arange(5, 8, dtype=np.int32))])
    assert numpy_view(values).tolist() == list(range(8)) and numpy_view(values).dtype == np.int32
    assert numpy_view(values.chunk(0).slice(2, 2)).tolist() == [2, 3]  # an offset into the buffer
    assert numpy_view(pa.array([], pa.uint16())).dtype == np.uint16
    assert numpy_view(pa.array([1.5, None])).tolist()[0] == 1.5  # nulls: pyarrow's own conversion
    assert categories(Column(pa.array(["en", None, "zh", "en"]))).tolist() == ["en", None, "zh", "en"]


def test_the_units_registry_reads_like_the_dict_it_replaces() -> None:
    from unitrag.rag.store.columns import RowsByKey

    table = pa.table({"unit_id": ["a", "b"], "kind": ["rule", "scene"], "trigger": ['{"marker": "bp"}', None]})
    parse = lambda row: {**row, "trigger": json.loads(row["trigger"]) if row["trigger"] else None}  # noqa: E731
    units = RowsByKey(table, "unit_id", parse)
    expected = {"a": {"unit_id": "a", "kind": "rule", "trigger": {"marker": "bp"}},
                "b": {"unit_id": "b", "kind": "scene", "trigger": None}}
    assert dict(units.items()) == expected and units["b"] == expected["b"] and len(units) == 2
    assert units.get("zzz") is None and "a" in units and list(units) == ["a", "b"]


def test_restricted_units_hold_every_non_public_unit_with_its_level() -> None:
    """A null level is restricted to no role (""), never read as public; public units are not held."""
    from unitrag.rag.store.columns import Column
    from unitrag.rag.store.known_ids import restricted_units

    unit_ids = Column(pa.array(["pub", "clin", "nolevel", "clin", "pub2"]))
    for access in (pa.array(["public", "clinician", None, "clinician", "public"]),
                   pa.array(["public", "clinician", None, "clinician", "public"]).dictionary_encode()):
        held = restricted_units(unit_ids, Column(access))
        assert set(held) == {"clin", "nolevel"}  # one row per chunk: a unit of two chunks is held twice
        assert held.value("clin", "access") == "clinician" and held.value("nolevel", "access") == ""
        assert held.value("pub", "access") is None
    assert len(restricted_units(Column(pa.array(["a"])), Column(pa.array(["public"])))) == 0

