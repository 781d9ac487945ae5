"""content_hash follows what is embedded; meta_hash follows everything else."""

from __future__ import annotations

from dataclasses import replace

import pytest

import unitrag.compiler.hashing as hashing
from unitrag.compiler.chunking import Chunk
from unitrag.compiler.hashing import canonical_json, content_hash, digest, meta_hash

BASE = Chunk(
    chunk_id="en-b12-testing#p1", unit_id="en-b12-testing", kind="scene", title="Testing", lang="en",
    access="public", text_for_embedding="B12 — Testing\nSerum B12 below 200 pg/mL is low.",
    text_for_prompt='Serum B12 below 200 pg/mL is low <Cite id="nih"/>.', topics=("vitamin-b12",),
    citation_ids=("nih",), story_id="en-b12", scene_id="en-b12-testing", page=1,
    source_path="scenes/en-b12/05-testing.md", extra={"order": 5, "pages": 2},
)


def test_hashes_are_stable_hex_sha256() -> None:
    assert content_hash(BASE) == content_hash(replace(BASE))
    assert meta_hash(BASE) == meta_hash(replace(BASE))
    for h in (content_hash(BASE), meta_hash(BASE)):
        assert len(h) == 64 and int(h, 16) >= 0


def test_content_hash_changes_with_the_embedded_text() -> None:
    changed = replace(BASE, text_for_embedding=BASE.text_for_embedding + " Recheck.")
    assert content_hash(changed) != content_hash(BASE)
    # whitespace is content too
    assert content_hash(replace(BASE, text_for_embedding=BASE.text_for_embedding + " ")) != content_hash(BASE)


def test_content_hash_changes_with_the_chunker_version(monkeypatch: pytest.MonkeyPatch) -> None:
    before = content_hash(BASE)
    monkeypatch.setattr(hashing, "CHUNKER_VERSION", "999")
    assert content_hash(BASE) != before
    monkeypatch.undo()
    assert content_hash(BASE) == before


@pytest.mark.parametrize("field, value", [
    ("topics", ("vitamin-b12", "anemia")),
    ("citation_ids", ("nih", "bsh")),
    ("access", "clinician"),
    ("text_for_prompt", "Serum B12 below 200 pg/mL is low."),
    ("title", "Testing B12"),
    ("lang", "zh"),
    ("page", 2),
    ("source_path", "scenes/en-b12/06-testing.md"),
    ("extra", {"order": 6, "pages": 2}),
    ("chunk_id", "en-b12-testing#p9"),
])
def test_metadata_changes_meta_hash_not_content_hash(field: str, value: object) -> None:
    changed = replace(BASE, **{field: value})
    assert content_hash(changed) == content_hash(BASE)
    assert meta_hash(changed) != meta_hash(BASE)


def test_meta_hash_ignores_the_embedded_text() -> None:
    changed = replace(BASE, text_for_embedding="something else entirely")
    assert meta_hash(changed) == meta_hash(BASE)
    assert content_hash(changed) != content_hash(BASE)


def test_meta_hash_ignores_dict_key_order() -> None:
    reordered = replace(BASE, extra={"pages": 2, "order": 5})
    assert meta_hash(reordered) == meta_hash(BASE)


def test_canonical_json_and_digest() -> None:
    assert canonical_json({"b": 1, "a": ("x", "维")}) == '{"a":["x","维"],"b":1}'
    assert digest([{"a": 1, "b": 2}]) == digest([{"b": 2, "a": 1}])
    assert digest([{"a": 1}]) != digest([{"a": 2}])
    assert digest([1, 2]) != digest([2, 1])  # row order matters


def test_public_and_restricted_chunks_are_never_embedded_in_one_batch() -> None:
    """A security audit: public chunks' bf16 vectors moved by ~1e-4 when a restricted chunk's text changed, because
    they shared a batch; a public caller reads those vectors in every dense score."""
    from types import SimpleNamespace

    from unitrag.compiler.pipeline import access_batches

    chunks = [SimpleNamespace(chunk=SimpleNamespace(access=a)) for a in ["public", "clinician", "public", "public", "clinician"]]
    batches = access_batches(chunks, 2)  # type: ignore[arg-type]
    assert [[h.chunk.access for h in b] for b in batches] == [["public", "public"], ["public"], ["clinician", "clinician"]]
    assert sorted(map(id, sum(batches, []))) == sorted(map(id, chunks))
