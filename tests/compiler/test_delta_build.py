"""A build whose previous artifact is current writes its change as a delta (unitrag.artifact.incremental)."""

from __future__ import annotations

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
