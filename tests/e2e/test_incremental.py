"""End-to-end: the bundled content, the real default embedder, exact incremental counts."""

from __future__ import annotations

import duckdb
import frontmatter
import numpy as np
import pytest

from unitrag.artifact.reader import open_artifact, read_manifest, read_vectors
from unitrag.compiler import pipeline
from unitrag.config import DEFAULT_EMBEDDER
from unitrag.errors import UserError

pytestmark = pytest.mark.e2e


def _one_chunk_unit(ws) -> tuple[str, str]:
    """(unit id, path inside content/) of a unit that is exactly one chunk (a rule always is)."""
    with duckdb.connect(str(ws.artifact), read_only=True) as con:
        return con.execute(
            "SELECT unit_id, source_path FROM chunks WHERE kind = 'rule' ORDER BY unit_id LIMIT 1"
        ).fetchone()


def _vector(ws, chunk_id: str) -> np.ndarray:
    with open_artifact(ws.artifact) as con:
        ids, matrix = read_vectors(con)
    return matrix[ids.index(chunk_id)]


def _row(ws, chunk_id: str, column: str):
    with duckdb.connect(str(ws.artifact), read_only=True) as con:
        return con.execute(f"SELECT {column} FROM chunks WHERE chunk_id = ?", [chunk_id]).fetchone()[0]


def _edit_fields(path, **fields: object) -> None:
    post = frontmatter.load(path)
    post.metadata.update(fields)
    path.write_text(frontmatter.dumps(post) + "\n", encoding="utf-8")


def _edit_body(path, marker: str) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text.rstrip("\n") + f"\n\n{marker}\n", encoding="utf-8")


def test_first_build_embeds_every_chunk(built_sample):
    ws, report = built_sample
    assert report.written and report.embedded == report.chunks == len(report.plan.new)
    assert report.units >= 8 + 40 + 20  # the sample promises 8 stories, 40 scenes, 20 rules
    with open_artifact(ws.artifact) as con:
        manifest = read_manifest(con)
        ids, matrix = read_vectors(con)
    assert manifest["embedder"] == {"id": DEFAULT_EMBEDDER, "dim": 384}
    assert len(ids) == report.chunks and matrix.shape == (report.chunks, 384)
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-4)


def test_no_change_embeds_nothing_and_leaves_the_file_alone(workspace):
    before = workspace.artifact.read_bytes()
    report = workspace.build()
    assert report.embedded == 0 and not report.written
    assert report.plan.counts() == {"new": 0, "changed": 0, "metadata_only": 0, "deleted": 0, "unchanged": report.chunks}
    assert workspace.artifact.read_bytes() == before


def test_one_body_edit_embeds_only_that_chunk(workspace):
    unit_id, rel = _one_chunk_unit(workspace)
    old = _vector(workspace, unit_id)
    _edit_body(workspace.config.content_dir / rel, "This sentence was added by the incremental test.")
    report = workspace.build()
    assert report.plan.changed == [unit_id]
    assert report.plan.counts()["unchanged"] == report.chunks - 1
    assert report.embedded == 1 and report.from_cache == 0
    assert "added by the incremental test" in _row(workspace, unit_id, "text_for_prompt")
    assert float(old @ _vector(workspace, unit_id)) < 0.9999


def _without_labelled_questions(workspace) -> None:
    """The labelled question sets name most units (and expect them public); they are not built, so drop them here."""
    for questions in (workspace.config.content_dir / "eval").glob("*.yaml"):
        questions.unlink()


def test_metadata_only_edit_embeds_nothing(workspace):
    _without_labelled_questions(workspace)
    unit_id, rel = _one_chunk_unit(workspace)
    old = _vector(workspace, unit_id)
    flipped = "public" if _row(workspace, unit_id, "access") == "clinician" else "clinician"
    _edit_fields(workspace.config.content_dir / rel, access=flipped)
    report = workspace.build()
    assert report.plan.metadata_only == [unit_id]
    assert report.plan.changed == [] and report.plan.new == []
    assert report.embedded == 0 and report.written
    assert _row(workspace, unit_id, "access") == flipped
    assert np.array_equal(old, _vector(workspace, unit_id))


def test_delete_removes_the_units_chunks(workspace):
    _without_labelled_questions(workspace)
    with duckdb.connect(str(workspace.artifact), read_only=True) as con:
        scenes = con.execute("SELECT unit_id, source_path FROM units WHERE kind = 'scene' ORDER BY 1").fetchall()
        unit_id, rel = scenes[0]
        pages = [r[0] for r in con.execute("SELECT chunk_id FROM chunks WHERE unit_id = ? ORDER BY 1", [unit_id]).fetchall()]
    (workspace.config.content_dir / rel).unlink()
    report = workspace.build()
    assert report.plan.deleted == pages and report.embedded == 0
    with duckdb.connect(str(workspace.artifact), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM chunks WHERE unit_id = ?", [unit_id]).fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM units WHERE unit_id = ?", [unit_id]).fetchone() == (0,)


def test_embedder_change_forces_a_full_reembed_and_says_why(workspace):
    other = "sentence-transformers:all-MiniLM-L6-v2"
    config = workspace.config.with_overrides(embedder=other)
    report = pipeline.build(config)
    counts = report.plan.counts()
    # MiniLM reads 256 tokens, so its chunks are smaller: every chunk is new or changed, none kept
    assert counts["unchanged"] == counts["metadata_only"] == 0
    assert counts["new"] + counts["changed"] == report.chunks == report.embedded
    assert DEFAULT_EMBEDDER in report.plan.full_reembed_reason and other in report.plan.full_reembed_reason
    with open_artifact(workspace.artifact) as con:
        assert read_manifest(con)["embedder"]["id"] == other
    # switching back costs nothing: every vector of the default embedder is in the cache
    back = workspace.build()
    assert back.plan.full_reembed_reason is not None
    assert back.embedded == 0 and back.from_cache == back.chunks


def test_revert_is_served_from_the_cache(workspace):
    unit_id, rel = _one_chunk_unit(workspace)
    path = workspace.config.content_dir / rel
    original = path.read_text(encoding="utf-8")
    _edit_body(path, "A temporary sentence.")
    assert workspace.build().embedded == 1
    path.write_text(original, encoding="utf-8")
    report = workspace.build()
    assert report.plan.changed == [unit_id] and report.embedded == 0 and report.from_cache == 1


def test_reconcile_applies_metadata_without_any_model(workspace, monkeypatch):
    unit_id, rel = _one_chunk_unit(workspace)
    _edit_body(workspace.config.content_dir / rel, "Pending until a real build.")
    with duckdb.connect(str(workspace.artifact), read_only=True) as con:
        rule_id, rule_rel, severity = con.execute(
            "SELECT unit_id, source_path, severity FROM units WHERE kind = 'rule' ORDER BY 1 LIMIT 1 OFFSET 1"
        ).fetchone()
        old_text = con.execute("SELECT text_for_prompt FROM chunks WHERE chunk_id = ?", [unit_id]).fetchone()[0]
        old_extra = con.execute("SELECT extra FROM chunks WHERE chunk_id = ?", [rule_id]).fetchone()[0]
    _edit_fields(workspace.config.content_dir / rule_rel, severity="urgent" if severity != "urgent" else "info")

    def no_model(spec: str):
        raise AssertionError("reconcile must not load a model")

    monkeypatch.setattr(pipeline, "load_embedder", no_model)
    report = workspace.build(reconcile=True)
    assert report.pending == [unit_id] and report.embedded == 0
    assert rule_id in report.plan.metadata_only
    assert _row(workspace, unit_id, "text_for_prompt") == old_text  # the pending chunk keeps its old row
    assert _row(workspace, rule_id, "extra") != old_extra


def test_reconcile_never_serves_a_units_old_text_wider_than_either_version_allows(workspace, monkeypatch):
    """An attacker's audit: a unit made restricted in the same edit as its body kept its old row, public, after
    `build --reconcile` (the units table said restricted); the build that embedded it then reported no access change."""
    with duckdb.connect(str(workspace.artifact), read_only=True) as con:
        source_rel = con.execute("SELECT source_path FROM chunks WHERE kind = 'rule' AND access = 'public' "
                                 "ORDER BY unit_id LIMIT 1").fetchone()[0]
        restricted_id, restricted_rel, role = con.execute(
            "SELECT unit_id, source_path, access FROM chunks WHERE kind = 'rule' AND access <> 'public' "
            "ORDER BY unit_id LIMIT 1").fetchone()
    # a public unit of its own (every unit of the sample is one a labelled question expects the public to find)
    public_id, narrowed = "zz-reconcile-public", workspace.config.content_dir / "rules" / "zz-reconcile-public.md"
    post = frontmatter.load(workspace.config.content_dir / source_rel)
    post.metadata["id"] = public_id
    narrowed.write_text(frontmatter.dumps(post) + "\n", encoding="utf-8")
    assert workspace.build().plan.new == [public_id] and _row(workspace, public_id, "access") == "public"
    widened = workspace.config.content_dir / restricted_rel
    _edit_fields(narrowed, access=role)
    _edit_body(narrowed, "A new restricted note.")
    post = frontmatter.load(widened)
    del post.metadata["access"]
    widened.write_text(frontmatter.dumps(post) + "\n\nA new public note.\n", encoding="utf-8")
    monkeypatch.setattr(pipeline, "load_embedder", lambda spec: (_ for _ in ()).throw(AssertionError("no model")))
    report = workspace.build(reconcile=True)
    assert {public_id, restricted_id} <= set(report.pending)
    assert _row(workspace, public_id, "access") == role  # the old text, no longer public
    assert _row(workspace, restricted_id, "access") == role  # the old text, still restricted until the new is embedded
    monkeypatch.undo()
    plan = workspace.build(dry_run=True).plan
    assert {"unit": restricted_id, "from": role, "to": "public"} in plan.access_changes  # said where it happens
    assert not [c for c in plan.access_changes if c["unit"] == public_id]  # it happened at the reconcile, said there


def test_reconcile_without_an_artifact_is_a_clear_error(workspace):
    workspace.artifact.unlink()
    with pytest.raises(UserError, match="--reconcile needs an artifact"):
        workspace.build(reconcile=True)


def test_a_word_edited_away_is_unknown_to_the_answer_as_after_a_full_build(workspace):
    """An incremental build keeps the vocabulary row of a word no chunk holds any more; the extractive answer must
    not weigh it as the rarest word there is (a full build would not know it at all)."""
    from unitrag.rag.knowledge_base import KnowledgeBase
    from unitrag.rag.types import UserContext

    unit_id, rel = _one_chunk_unit(workspace)
    path = workspace.config.content_dir / rel
    original = path.read_text(encoding="utf-8")
    _edit_body(path, "Zorblaxian tea is brewed at exactly 81 degrees.")
    workspace.build()
    with KnowledgeBase.open(workspace.artifact, config=workspace.config) as kb:
        assert "zorblaxian" in kb.retriever.focus("zorblaxian tea")[0].terms  # known while a chunk holds it
    path.write_text(original, encoding="utf-8")
    assert workspace.build().plan.changed == [unit_id]
    with duckdb.connect(str(workspace.artifact), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM sparse_vocab WHERE term = 'zorblaxian'").fetchone() == (1,)
    with KnowledgeBase.open(workspace.artifact, config=workspace.config) as kb:
        assert "zorblaxian" not in kb.retriever.focus("zorblaxian tea")[0].terms
        # the restricted role reads the whole index (no public view in between)
        assert "zorblaxian" not in kb.retriever.focus("zorblaxian tea", UserContext(roles=[kb.restricted_role]))[0].terms
