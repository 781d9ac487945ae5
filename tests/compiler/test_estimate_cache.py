"""A dry run's estimate leaves out the chunks the build would take from the embedding cache (looked up by content
hash: no model, nothing written)."""

from __future__ import annotations

RULE = "en-blood-pressure-severe"


def _rule(tiny):
    return tiny.content / "rules" / f"{RULE}.md"


def test_a_renamed_unit_is_planned_from_the_cache_as_the_build_then_takes_it(tiny) -> None:
    first = tiny.build(dry_run=True)  # no cache yet: every chunk to embed, and none is created by looking
    assert first.estimate.chunks == first.chunks and first.estimate.from_cache == 0
    assert not (tiny.root / "cache" / "embeddings.duckdb").exists()
    tiny.build()
    path = _rule(tiny)
    path.write_text(path.read_text(encoding="utf-8").replace(f"id: {RULE}", f"id: {RULE}-renamed", 1), encoding="utf-8")
    calls = tiny.embedder.calls
    plan = tiny.build(dry_run=True)
    assert plan.plan.new == [f"{RULE}-renamed"] and plan.plan.deleted == [RULE]
    assert (plan.estimate.chunks, plan.estimate.from_cache) == (0, 1)
    assert plan.estimate.describe("fake:tiny") == "would embed 0 chunk(s) with fake:tiny (1 from the embedding cache)"
    assert plan.to_dict()["estimate"]["from_cache"] == 1
    assert tiny.embedder.calls == calls  # no model
    built = tiny.build()
    assert (built.embedded, built.from_cache) == (0, 1)
    assert (built.estimate.chunks, built.estimate.from_cache) == (0, 1)


def test_new_text_is_still_counted_to_embed(tiny) -> None:
    tiny.build()
    path = _rule(tiny)
    path.write_text(path.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    plan = tiny.build(dry_run=True)
    assert (plan.estimate.chunks, plan.estimate.from_cache) == (1, 0)
    assert tiny.build(dry_run=True, full=True).estimate.from_cache is None  # --full ignores the cache: not read
