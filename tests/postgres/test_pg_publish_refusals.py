"""What a publish refuses, or no longer refuses, found by the operations audit: a lock per schema, an older
build, another knowledge base, a read-only role's message, a dry run where pgvector cannot be created."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import duckdb
import psycopg
import pytest

from unitrag.errors import UserError
from unitrag.postgres.connect import connect
from unitrag.postgres.lock import take_publish_lock
from unitrag.postgres.publish import publish


def _copy(artifact: Path, to: Path, **manifest: object) -> Path:
    """A copy of ``artifact`` with these manifest values replaced (``built_at``, ``identity``)."""
    shutil.copy(artifact, to)
    with duckdb.connect(str(to)) as con:
        for key, value in manifest.items():
            con.execute("UPDATE manifest SET value = ? WHERE key = ?", [json.dumps(value), key])
    return to


def _edited(artifact: Path) -> Path:
    """``artifact`` with one chunk's title edited in place (a metadata-only change: something to write)."""
    with duckdb.connect(str(artifact)) as con:
        con.execute("UPDATE chunks SET meta_hash = meta_hash || '-v2', title = title || ' (v2)' "
                    "WHERE chunk_id = (SELECT min(chunk_id) FROM chunks)")
    return artifact


def _manifest(artifact: Path) -> dict:
    with duckdb.connect(str(artifact), read_only=True) as con:
        return {key: json.loads(value) for key, value in con.execute("SELECT key, value FROM manifest").fetchall()}


def _as_role(url: str, role: str) -> str:
    as_role = url.replace("postgresql://postgres:@", f"postgresql://{role}:@", 1)
    assert as_role != url
    return as_role


def test_two_knowledge_bases_in_schemas_of_one_database_do_not_wait_for_each_other(built_sample, pg_url):
    artifact = built_sample[0].artifact
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("CREATE EXTENSION vector")  # in public, which both search paths end with
        admin.execute("CREATE SCHEMA coffee; CREATE SCHEMA bike")
    coffee, bike = (pg_url + f"&options=-csearch_path%3D{schema},public" for schema in ("coffee", "bike"))
    with connect(bike) as holder:  # a publish to bike under way
        take_publish_lock(holder, 0)
        assert publish(artifact, coffee, lock_timeout_s=0).rows_written["upserted"] > 0
        with pytest.raises(UserError, match=r"another `unitrag publish` to schema bike of this database is running"):
            publish(artifact, bike, lock_timeout_s=0)
    assert publish(artifact, bike, lock_timeout_s=0).rows_written["upserted"] > 0


def test_an_older_build_is_refused_naming_both_times_unless_allowed(built_sample, pg_url, tmp_path, pg_tables):
    artifact = built_sample[0].artifact
    newer = _edited(_copy(artifact, tmp_path / "newer.duckdb", built_at="2031-01-01T00:00:00+00:00"))
    publish(newer, pg_url)
    before = pg_tables(pg_url)
    built = _manifest(artifact)["built_at"]
    for dry_run in (True, False):
        with pytest.raises(UserError) as info:
            publish(artifact, pg_url, dry_run=dry_run)
        message = str(info.value)
        assert built in message and "2031-01-01T00:00:00+00:00" in message and "--allow-older" in message
        assert "nothing was written" in message and "\n" not in message
    assert pg_tables(pg_url) == before
    assert publish(artifact, pg_url, allow_older=True).generation == 2
    assert publish(artifact, pg_url).plan.is_noop  # the same build again is no rollback


def test_another_knowledge_base_is_refused_unless_it_is_meant_to_replace_the_published_one(
    built_sample, pg_url, tmp_path, pg_tables
):
    artifact = built_sample[0].artifact
    identity = _manifest(artifact)["identity"]
    publish(artifact, pg_url)
    before = pg_tables(pg_url)
    other = _copy(artifact, tmp_path / "coffee.duckdb", identity={**identity, "name": "Home coffee"},
                  built_at="2031-01-01T00:00:00+00:00")
    for dry_run in (True, False):
        with pytest.raises(UserError) as info:
            publish(other, pg_url, dry_run=dry_run)
        message = str(info.value)
        assert f"serves the knowledge base {identity['name']!r}, but the artifact is 'Home coffee'" in message
        assert "--replace-kb" in message and "search_path" in message and "nothing was written" in message
    assert pg_tables(pg_url) == before
    publish(other, pg_url, replace_kb=True)
    with psycopg.connect(pg_url) as conn:
        served = conn.execute("SELECT value FROM unitrag_manifest WHERE key = 'identity'").fetchone()[0]
    assert served["name"] == "Home coffee"


def test_a_read_only_role_is_told_nothing_was_written(built_sample, pg_url, tmp_path, pg_tables):
    artifact = built_sample[0].artifact
    publish(artifact, pg_url)
    role = f"ro_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN")
        admin.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
    before = pg_tables(pg_url)
    newer = _edited(_copy(artifact, tmp_path / "newer.duckdb", built_at="2031-01-01T00:00:00+00:00"))
    with pytest.raises(UserError) as info:
        publish(newer, _as_role(pg_url, role))
    message = str(info.value)
    assert "permission denied" in message and "nothing was published" in message, message
    assert "committed batches" not in message and "re-run to complete" not in message
    assert pg_tables(pg_url) == before


def test_a_dry_run_where_pgvector_cannot_be_created_says_so(built_sample, pg_url):
    role = f"nv_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN")
    with pytest.raises(UserError, match="the pgvector extension cannot be created in this database"):
        publish(built_sample[0].artifact, _as_role(pg_url, role), dry_run=True)
    report = publish(built_sample[0].artifact, pg_url, dry_run=True)  # a superuser could: the plan, nothing kept
    assert report.dry_run and report.plan.counts()["new"] > 0
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'vector'").fetchone()[0] == 0


def test_a_second_knowledge_base_in_its_own_schema_publishes_when_the_first_created_the_extension(built_sample, pg_url):
    """The layout deployment.md recommends (``search_path=kb,public``) with no extension yet: created in the first
    schema of the path, pgvector's type was out of reach of the second knowledge base (an attacker's)."""
    artifact = built_sample[0].artifact
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("CREATE SCHEMA kb; CREATE SCHEMA coffee")
    kb, coffee = (pg_url + f"&options=-csearch_path%3D{schema},public" for schema in ("kb", "coffee"))
    assert publish(artifact, kb).rows_written["upserted"] > 0
    assert publish(artifact, coffee).rows_written["upserted"] > 0
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
                            "WHERE e.extname = 'vector'").fetchone()[0] == "public"


@pytest.mark.parametrize(("path", "said"), [
    ("kb", r"the pgvector extension is in schema 'public', which the search_path \(kb\) leaves out: add it, "
           r"e\.g\. options=-csearch_path%3Dkb,public"),
    ("nosuch", r"the search_path \(nosuch\) names no schema that exists in this database"),
])
def test_a_search_path_that_cannot_reach_pgvector_or_any_schema_says_how_to_fix_it(built_sample, pg_url, path, said):
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("CREATE EXTENSION vector; CREATE SCHEMA kb")
    with pytest.raises(UserError, match=said):
        publish(built_sample[0].artifact, pg_url + f"&options=-csearch_path%3D{path}")


@pytest.mark.parametrize("installed", [True, False])
def test_a_read_only_connection_is_named_as_such(built_sample, pg_url, installed):
    """A standby, or ``default_transaction_read_only``: was "pgvector cannot be created: install pgvector" even when
    it was installed."""
    if installed:
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute("CREATE EXTENSION vector")
    with pytest.raises(UserError, match=r"this connection is read-only .*publish to the primary; nothing was published"):
        publish(built_sample[0].artifact, pg_url + "&options=-cdefault_transaction_read_only%3Don")
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT to_regclass('unitrag_manifest')").fetchone()[0] is None
