"""Prompt texts read from the artifact per result: the right text for every row, from many threads, after the
file is replaced or deleted, and a clear error once the knowledge base is closed."""

from __future__ import annotations

import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import numpy as np
import pytest

from unitrag.errors import UserError
from unitrag.rag.store.prompt_texts import ArtifactTexts, HeldTexts, KnowledgeBaseClosed
from unitrag.rag.store.artifact_store import ChunkStore
from unitrag.rag.types import SearchFilter

from tests.rag.store.test_stored_index import rows, write


def texts_in_file(path: Path) -> dict[str, str]:
    with duckdb.connect(str(path), read_only=True) as con:
        return dict(con.execute("SELECT chunk_id, text_for_prompt FROM chunks").fetchall())


@pytest.fixture
def artifact(tmp_path: Path) -> Path:
    path = tmp_path / "kb.duckdb"
    chunk_rows = rows(60)
    chunk_rows[7]["text_for_prompt"] = "It's \"quoted\" text; DROP TABLE chunks; -- 它的"  # quotes reach the SQL intact
    chunk_rows[7]["chunk_id"] = "c'quote"
    write(path, chunk_rows)
    return path


def test_an_artifact_store_holds_no_texts_and_fetches_each_rows_own(artifact: Path) -> None:
    store = ChunkStore.load(artifact, hold_texts_up_to=0)
    expected = texts_in_file(artifact)
    assert isinstance(store.texts, ArtifactTexts) and "text_for_prompt" not in store.columns
    order = list(reversed(range(len(store)))) + [3, 3]  # any order, repeats included
    sources = store.sources(order, [{"dense": float(i)} for i in order])
    assert [s.text for s in sources] == [expected[store.ids[i]] for i in order]
    assert [s.chunk_id for s in sources] == [store.ids[i] for i in order] and sources[0].score == float(order[0])
    assert store.source(store.index["c'quote"]).text.startswith("It's \"quoted\"")
    store.close()


@pytest.mark.parametrize("hold", [0, 10_000])
def test_the_sample_knowledge_base_serves_every_chunks_text(built_sample, hold: int) -> None:
    """Fetched from the file or, a knowledge base this small by default, held: the same texts."""
    workspace, _ = built_sample
    store = ChunkStore.load(workspace.artifact, hold_texts_up_to=hold)
    assert isinstance(store.texts, HeldTexts if hold else ArtifactTexts)
    expected = texts_in_file(workspace.artifact)
    assert store.prompt_texts(range(len(store))) == [expected[cid] for cid in store.ids]
    assert {s.chunk_id: s.text for s in store.sources(range(len(store)), [{}] * len(store))} == expected
    store.close()


def test_many_threads_fetch_the_right_texts_at_once(artifact: Path) -> None:
    store = ChunkStore.load(artifact, hold_texts_up_to=0)
    expected = [texts_in_file(artifact)[cid] for cid in store.ids]
    store.texts.clear_cache()  # every thread queries the file, none reads another's cached rows

    def fetch(seed: int) -> bool:
        rng = np.random.default_rng(seed)
        for _ in range(20):
            picked = rng.choice(len(store), 7, replace=False).tolist()
            if store.prompt_texts(picked) != [expected[i] for i in picked]:
                return False
            store.texts.clear_cache()
        return True

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(fetch, range(32)))
    store.close()


def test_a_replaced_or_deleted_file_keeps_serving_the_texts_loaded_with_it(artifact: Path, tmp_path: Path) -> None:
    store = ChunkStore.load(artifact, hold_texts_up_to=0)
    before = store.prompt_texts([0, 1])
    store.texts.clear_cache()
    other = tmp_path / "other.duckdb"
    changed = rows(60)
    for row in changed:
        row["text_for_prompt"] = "rebuilt " + row["text_for_prompt"]
    write(other, changed)
    os.replace(other, artifact)  # what a build does
    assert store.prompt_texts([0, 1]) == before
    reopened = ChunkStore.load(artifact, hold_texts_up_to=0)  # the new file, not the DuckDB instance the old store holds
    assert reopened.prompt_texts([0])[0].startswith("rebuilt ")
    artifact.unlink()
    store.texts.clear_cache()
    assert store.prompt_texts([0, 1]) == before
    store.close()
    reopened.close()


def test_a_closed_store_says_so(artifact: Path) -> None:
    store = ChunkStore.load(artifact, hold_texts_up_to=0)
    store.close()
    with pytest.raises(KnowledgeBaseClosed, match="closed: open it again"):
        store.source(0)
    assert issubclass(KnowledgeBaseClosed, UserError)
    store.close()  # twice is harmless


def test_a_file_replaced_while_it_is_read_is_read_again(artifact: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from unitrag.rag.store import artifact_store as store_module

    reads = []
    real = store_module.ChunkStore._read.__func__

    def counted(cls, path, hold):
        reads.append(path)
        return real(cls, path, hold)

    identities = iter([(1, 1, 1, 1), (2, 2, 2, 2)])
    monkeypatch.setattr(store_module, "_file_identity", lambda path: next(identities, (2, 2, 2, 2)))
    monkeypatch.setattr(store_module.ChunkStore, "_read", classmethod(counted))
    store = ChunkStore.load(artifact, hold_texts_up_to=0)
    assert len(reads) == 2 and store.source(0).text == texts_in_file(artifact)[store.ids[0]]
    store.close()


def test_public_results_never_carry_restricted_rows(artifact: Path) -> None:
    store = ChunkStore.load(artifact, hold_texts_up_to=0)
    public = SearchFilter(restricted=False)
    rng = np.random.default_rng(1)
    for _ in range(10):
        query = rng.normal(size=store.vectors.shape[1]).astype(np.float32)
        found, _scores = store.dense_search(query / np.linalg.norm(query), 20, public)
        assert found.size and all(s.access == "public" for s in store.sources(found.tolist(), [{}] * len(found)))
    store.close()


def test_an_assembled_store_holds_its_texts(tiny_store) -> None:
    store = tiny_store()
    assert isinstance(store.texts, HeldTexts)
    assert store.source(0).text == "Adults should eat less than 5 g of salt a day."
