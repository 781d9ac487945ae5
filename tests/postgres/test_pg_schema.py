"""The PostgreSQL schema: created on first publish, migrations recorded, mirrors the artifact."""

from __future__ import annotations

import duckdb
import psycopg

from unitrag.postgres.connect import connect
from unitrag.postgres.publish import publish
from unitrag.postgres.schema import MIGRATIONS, SCHEMA_VERSION, embedding_dim, migrate, schema_version


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
        assert "USING hnsw" in indexdef and "vector_cosine_ops" in indexdef
        assert embedding_dim(conn) == 384
        pg_columns = [r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'unitrag_chunks'"
        ).fetchall()]
    with duckdb.connect(str(ws.artifact), read_only=True) as con:
        artifact_columns = [r[0] for r in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'chunks'"
        ).fetchall()]
    assert sorted(pg_columns) == sorted(artifact_columns)


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
