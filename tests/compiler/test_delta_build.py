"""A build whose previous artifact is current writes its change as a delta (unitrag.artifact.incremental)."""

from __future__ import annotations

import json

import duckdb

from unitrag.artifact.reader import read_manifest
from unitrag.content.text.tokenize import TOKENIZER_VERSION
from unitrag.rag.store.artifact_store import ChunkStore


def test_a_build_edit_is_written_as_a_delta(tiny) -> None:
    assert not tiny.build().delta
    rule = sorted((tiny.content / "rules").iterdir())[0]
    rule.write_text(rule.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    report = tiny.build()
    assert report.written and report.delta and report.embedded == 1
    store = ChunkStore.load(tiny.artifact)
    assert any("One more sentence." in text for text in store.prompt_texts(range(len(store))))
    assert not tiny.build(full=True).delta


def test_an_artifact_of_an_older_tokenizer_gets_every_chunks_terms_again_without_embedding(tiny) -> None:
    tiny.build()
    with duckdb.connect(str(tiny.artifact)) as con:  # as a build before the tokenizer was recorded left it
        manifest = read_manifest(con)
        manifest["sparse_index"].pop("tokenizer")
        manifest["table_hashes"].pop("sparse_terms")
        for key in ("sparse_index", "table_hashes"):
            con.execute("UPDATE manifest SET value = ? WHERE key = ?", [json.dumps(manifest[key]), key])
        con.execute("UPDATE chunks SET sparse_terms = 'zebra'")
    assert ChunkStore.load(tiny.artifact).sparse_index is None  # not current: the runtime would tokenise every chunk
    report = tiny.build()
    assert report.written and not report.delta and report.embedded == 0
    store = ChunkStore.load(tiny.artifact)
    assert store.manifest["sparse_index"]["tokenizer"] == TOKENIZER_VERSION and store.sparse_index is not None
    with duckdb.connect(str(tiny.artifact), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM chunks WHERE sparse_terms = 'zebra'").fetchone() == (0,)
    assert not tiny.build().written
