"""The PostgreSQL schema: created on first publish, migrations recorded, mirrors the artifact."""

from __future__ import annotations

import duckdb
import psycopg
import pytest

from unitrag.artifact.schema import INDEX_COLUMNS
from unitrag.errors import UserError
from unitrag.postgres.connect import connect
from unitrag.postgres.index import IndexSettings
from unitrag.postgres.publish import publish
from unitrag.postgres.schema import MIGRATIONS, SCHEMA_VERSION, embedding_dim, migrate, schema_version
from unitrag.rag.store.pg_store import PgChunkStore


def test_first_publish_creates_the_schema_and_records_each_migration(built_sample, pg_url):
    ws, _ = built_sample
    report = publish(ws.artifact, pg_url)
    assert report.migrations_applied == list(range(1, SCHEMA_VERSION + 1))
    with psycopg.connect(pg_url) as conn:
        recorded = conn.execute("SELECT version, description FROM unitrag_migrations ORDER BY version").fetchall()
        assert recorded == [(n, d) for n, (d, _) in enumerate(MIGRATIONS, start=1)]
        version = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()[0]
        assert tuple(int(p) for p in version.split(".")[:2]) >= (0, 8)
        indexdef = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'unitrag_chunks_embedding_hnsw'"
        ).fetchone()[0]
        assert "USING hnsw" in indexdef and ("halfvec_cosine_ops" if IndexSettings().halfvec else "vector_cosine_ops") in indexdef
        assert embedding_dim(conn) == 384
        pg_columns = [r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'unitrag_chunks'"
        ).fetchall()]
    with duckdb.connect(str(ws.artifact), read_only=True) as con:
        artifact_columns = [r[0] for r in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'chunks'"
        ).fetchall()]
    generations = ["added_in", "removed_in"]  # which publish added and removed each row version (publish.py)
    assert sorted(pg_columns) == sorted([c for c in artifact_columns if c not in INDEX_COLUMNS] + generations)


def test_migrate_applies_nothing_twice(pg_url):
    with connect(pg_url) as conn:
        assert schema_version(conn) == 0
        assert migrate(conn, 8) == list(range(1, SCHEMA_VERSION + 1))
        assert migrate(conn, 8) == []
        assert schema_version(conn) == SCHEMA_VERSION and embedding_dim(conn) == 8


def test_dry_run_on_an_empty_database_plans_everything_and_creates_nothing(built_sample, pg_url):
    ws, build = built_sample
    report = publish(ws.artifact, pg_url, dry_run=True)
    assert report.plan.counts() == {"new": build.chunks, "changed": 0, "metadata_only": 0, "deleted": 0, "unchanged": 0}
    assert report.rows_written == {}
    with connect(pg_url) as conn:
        assert schema_version(conn) == 0
        assert conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'vector'").fetchone()[0] == 0


def test_a_foreign_unitrag_chunks_table_is_named_with_its_columns_and_nothing_is_written(built_sample, pg_url):
    ws, _ = built_sample
    with psycopg.connect(pg_url, autocommit=True) as conn:  # an application's own table that happens to share the name
        conn.execute("CREATE TABLE unitrag_chunks (id serial PRIMARY KEY, chunk_id text, body text)")
    for dry_run in (True, False):
        with pytest.raises(UserError) as info:
            publish(ws.artifact, pg_url, dry_run=dry_run)
        message = str(info.value)
        assert "unitrag_chunks" in message and "unexpected column(s): body, id" in message
        assert "missing column(s): unit_id, kind" in message and "DROP TABLE unitrag_chunks" in message
        assert "another schema" in message and "re-run" not in message and "\n" not in message
    with connect(pg_url) as conn:
        assert conn.execute("SELECT to_regclass('unitrag_migrations')").fetchone()[0] is None
        assert conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'vector'").fetchone()[0] == 0
    # the advice works: another schema first in the search path, beside the foreign table
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA kb")
    in_kb = pg_url + "&options=-csearch_path%3Dkb,public"
    assert publish(ws.artifact, in_kb).rows_written["upserted"] > 0
    store = PgChunkStore.load(in_kb)
    store.close()
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM kb.unitrag_chunks").fetchone()[0] == len(store.ids)
        assert conn.execute("SELECT count(*) FROM public.unitrag_chunks").fetchone()[0] == 0


def test_a_published_table_altered_since_is_named_by_publish_and_open(built_sample, pg_url):
    ws, _ = built_sample
    publish(ws.artifact, pg_url)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE unitrag_chunks DROP COLUMN sparse_terms, ADD COLUMN notes text")
    for call in (lambda: publish(ws.artifact, pg_url), lambda: PgChunkStore.load(pg_url)):
        with pytest.raises(UserError, match=r"unitrag_chunks .*unexpected column\(s\): notes.*missing column\(s\): sparse_terms"):
            call()


def test_the_generations_migration_is_the_one_readers_check_for():
    from unitrag.postgres.generations import GENERATIONS_SCHEMA

    assert MIGRATIONS[GENERATIONS_SCHEMA - 1][0].startswith("publish generations")
