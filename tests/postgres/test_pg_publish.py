"""Publishing the sample artifact: exact plans by hash, nothing re-sent that is unchanged."""

from __future__ import annotations

import shutil

import duckdb
import frontmatter
import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector

from unitrag.artifact.reader import open_artifact, read_vectors
from unitrag.errors import UserError
from unitrag.postgres.connect import connect
from unitrag.postgres.publish import publish
from unitrag.postgres.schema import migrate


#: The rows readers see once a publish has completed (superseded versions stay until the next one starts).
LIVE = "removed_in IS NULL"


def _vectors(url: str) -> dict[str, np.ndarray]:
    with psycopg.connect(url) as conn:
        register_vector(conn)
        rows = conn.execute(f"SELECT chunk_id, embedding FROM unitrag_chunks WHERE {LIVE}").fetchall()
        return {cid: v.to_numpy() for cid, v in rows}


def _versions(url: str) -> dict[str, str]:
    """Each row's xmin: it changes whenever the row is written, even with the same values."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(f"SELECT chunk_id, xmin::text FROM unitrag_chunks WHERE {LIVE}").fetchall()
        rows += conn.execute("SELECT 'manifest:' || key, xmin::text FROM unitrag_manifest").fetchall()
        rows += conn.execute("SELECT 'units:' || unit_id, xmin::text FROM unitrag_units").fetchall()
    return dict(rows)


def _one_chunk_unit(ws) -> tuple[str, str]:
    with duckdb.connect(str(ws.artifact), read_only=True) as con:
        return con.execute(
            "SELECT unit_id, source_path FROM chunks WHERE kind = 'rule' ORDER BY unit_id LIMIT 1"
        ).fetchone()


def test_first_publish_sends_every_chunk_and_matches_the_artifact(built_sample, pg_url):
    ws, build = built_sample
    report = publish(ws.artifact, pg_url, batch_size=50)
    n = build.chunks
    assert report.plan.counts() == {"new": n, "changed": 0, "metadata_only": 0, "deleted": 0, "unchanged": 0}
    assert report.rows_written["upserted"] == report.rows_written["vectors_sent"] == n
    assert report.batches == -(-n // 50) + 1  # chunk batches, then registries + manifest
    with open_artifact(ws.artifact) as con:
        ids, matrix = read_vectors(con)
        units = con.execute("SELECT count(*) FROM units").fetchone()[0]
        topics = con.execute("SELECT id, excludes FROM topics ORDER BY id").fetchall()
    stored = _vectors(pg_url)
    assert sorted(stored) == ids
    assert np.allclose(np.stack([stored[cid] for cid in ids]), matrix, atol=1e-7)
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM unitrag_units").fetchone()[0] == units
        assert conn.execute('SELECT id, excludes FROM unitrag_topics ORDER BY id COLLATE "C"').fetchall() == topics
        state = conn.execute("SELECT value FROM unitrag_manifest WHERE key = 'publish'").fetchone()[0]
    assert state["state"] == "complete" and state["chunks"] == n


def test_second_publish_changes_nothing(built_sample, pg_url):
    ws, build = built_sample
    publish(ws.artifact, pg_url)
    before = _versions(pg_url)
    report = publish(ws.artifact, pg_url)
    assert report.plan.counts()["unchanged"] == build.chunks and report.plan.is_noop
    assert report.rows_written == {} and report.batches == 0
    assert _versions(pg_url) == before


def test_one_unit_edit_sends_only_that_chunk(workspace, pg_url):
    publish(workspace.artifact, pg_url)
    unit_id, rel = _one_chunk_unit(workspace)
    path = workspace.config.content_dir / rel
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + "\n\nAdded by the publish test.\n", encoding="utf-8")
    workspace.build()
    before = _versions(pg_url)
    report = publish(workspace.artifact, pg_url)
    chunks = [k for k in before if not k.startswith(("manifest:", "units:"))]
    assert report.plan.changed == [unit_id] and report.plan.counts()["unchanged"] == len(chunks) - 1
    assert report.rows_written["upserted"] == report.rows_written["vectors_sent"] == 1
    assert report.plan.tables_changed == []  # a unit row holds no body: no registry changed
    after = _versions(pg_url)
    rewritten = {k for k in chunks if after[k] != before[k]}
    assert rewritten == {unit_id}
    with open_artifact(workspace.artifact) as con:
        ids, matrix = read_vectors(con)
    assert np.allclose(_vectors(pg_url)[unit_id], matrix[ids.index(unit_id)], atol=1e-7)


def test_metadata_only_edit_sends_no_vectors(workspace, pg_url):
    publish(workspace.artifact, pg_url)
    unit_id, rel = _one_chunk_unit(workspace)
    vector_before = _vectors(pg_url)[unit_id]
    post = frontmatter.load(workspace.config.content_dir / rel)
    with duckdb.connect(str(workspace.artifact), read_only=True) as con:
        extra_topic = con.execute(
            "SELECT id FROM topics WHERE NOT is_group AND NOT list_contains(?, id) ORDER BY id LIMIT 1", [post["topics"]]
        ).fetchone()[0]
    post.metadata["topics"] = [*post["topics"], extra_topic]  # topics are filtered on, never embedded
    (workspace.config.content_dir / rel).write_text(frontmatter.dumps(post) + "\n", encoding="utf-8")
    workspace.build()
    report = publish(workspace.artifact, pg_url)
    assert report.plan.metadata_only == [unit_id] and not (report.plan.new or report.plan.changed or report.plan.deleted)
    assert report.rows_written["metadata_only"] == 1 and report.rows_written["vectors_sent"] == 0
    with psycopg.connect(pg_url) as conn:
        topics = conn.execute(f"SELECT topics FROM unitrag_chunks WHERE chunk_id = %s AND {LIVE}", [unit_id]).fetchone()[0]
    assert topics[-1] == extra_topic
    assert np.array_equal(_vectors(pg_url)[unit_id], vector_before)


def test_a_new_unit_is_added_and_then_deleted(built_sample, workspace, pg_url):
    base, _ = built_sample
    publish(base.artifact, pg_url)
    unit_id, rel = _one_chunk_unit(workspace)
    source = workspace.config.content_dir / rel
    post = frontmatter.load(source)
    post.metadata["id"] = new_id = f"{unit_id}-copy"
    post.content += "\n\nA copy made by the publish test."
    source.with_name(source.stem + "-copy.md").write_text(frontmatter.dumps(post) + "\n", encoding="utf-8")
    workspace.build()
    added = publish(workspace.artifact, pg_url)
    assert added.plan.new == [new_id] and added.rows_written["vectors_sent"] == 1
    # back to the sample, an older build (a rollback, said so): the copy is gone from the artifact
    removed = publish(base.artifact, pg_url, allow_older=True)
    assert removed.plan.deleted == [new_id] and removed.rows_written["deleted"] == 1
    assert removed.rows_written["vectors_sent"] == 0
    assert new_id not in _vectors(pg_url)


def test_wrong_dimension_in_the_target_is_refused_and_nothing_is_written(built_sample, pg_url):
    ws, _ = built_sample
    with connect(pg_url) as conn:
        migrate(conn, 768)  # a database made for a 768-dimensional embedder
    with pytest.raises(UserError, match="768-dimensional.*384-dimensional.*nothing was written"):
        publish(ws.artifact, pg_url)
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM unitrag_chunks").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM unitrag_manifest").fetchone()[0] == 0


def test_a_different_embedder_in_the_target_is_refused_and_nothing_is_written(built_sample, pg_url, tmp_path, pg_tables):
    ws, _ = built_sample
    publish(ws.artifact, pg_url)
    before = pg_tables(pg_url)
    other = tmp_path / "other.duckdb"
    shutil.copy(ws.artifact, other)
    with duckdb.connect(str(other)) as con:
        con.execute("""UPDATE manifest SET value = '{"id": "other:model", "dim": 384}' WHERE key = 'embedder'""")
    with pytest.raises(UserError, match="embeddings of .* but the artifact's are of 'other:model'; nothing was written"):
        publish(other, pg_url)
    assert pg_tables(pg_url) == before


def test_a_renamed_knowledge_base_is_published_without_rewriting_a_chunk(workspace, pg_url):
    from dataclasses import replace

    from unitrag.compiler.pipeline import build
    from unitrag.config import Config
    from unitrag.rag.knowledge_base import KnowledgeBase

    publish(workspace.artifact, pg_url)
    assert build(replace(workspace.config, name="Clinic handbook")).embedded == 0
    with pytest.raises(UserError, match="pass --replace-kb"):  # a new name is another knowledge base until said
        publish(workspace.artifact, pg_url)
    report = publish(workspace.artifact, pg_url, replace_kb=True)
    assert report.plan.tables_changed == ["identity"] and report.rows_written.get("upserted", 0) == 0
    kb = KnowledgeBase.open(pg_url, config=Config(llm="none"))
    try:
        assert kb.identity.name == "Clinic handbook"
    finally:
        kb.close()


@pytest.mark.parametrize("lock_timeout", [float("nan"), -5.0, float("inf"), 86_401.0])
def test_a_lock_timeout_that_waits_not_at_all_or_forever_is_refused_before_anything_is_read(tmp_path, lock_timeout):
    from unitrag.errors import UserError
    from unitrag.postgres.publish import publish

    with pytest.raises(UserError, match="--lock-timeout: expected seconds from 0 to 86,400"):
        publish(tmp_path / "missing.duckdb", "postgresql://u@127.0.0.1:1/db", lock_timeout_s=lock_timeout)
