"""A server on PostgreSQL follows each publish (the watcher polls the live generation), and a database that
stops answering changes nothing: the old generation keeps serving, the status stays ok, the watcher lives on."""

from __future__ import annotations

import json
import shutil
import time
import uuid
from pathlib import Path

import duckdb
import psycopg
import pytest
from fastapi.testclient import TestClient

from unitrag.config import Config
from unitrag.postgres.publish import publish
from unitrag.serve import ServeSettings, create_app

pytestmark = pytest.mark.e2e


def edited(artifact: Path, to: Path, built_at: str = "2031-01-01T00:00:00+00:00") -> Path:
    """A copy of ``artifact`` with one chunk's title edited (a metadata-only change) and a later build time."""
    shutil.copy(artifact, to)
    with duckdb.connect(str(to)) as con:
        con.execute("UPDATE chunks SET meta_hash = meta_hash || '-v2', title = title || ' (v2)' "
                    "WHERE chunk_id = (SELECT min(chunk_id) FROM chunks)")
        con.execute("UPDATE manifest SET value = ? WHERE key = 'built_at'", [json.dumps(built_at)])
    return to


def wait_for(client: TestClient, key: str, value: object, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        health = client.get("/v1/health").json()
        if health[key] == value:
            return health
        time.sleep(0.1)
    raise AssertionError(f"/v1/health never had {key}={value!r}: {health}")


def test_a_server_on_postgres_follows_a_publish(built_sample, pg_url, tmp_path):
    publish(built_sample[0].artifact, pg_url)
    app = create_app(ServeSettings(kb=pg_url, reload_poll_s=0.1), config=Config(llm="none"))
    with TestClient(app) as client:
        before = client.get("/v1/health").json()
        assert before["generation"] == 1 and before["reloads"] == 0
        publish(edited(built_sample[0].artifact, tmp_path / "v2.duckdb"), pg_url)
        after = wait_for(client, "generation", 2)
        assert after["status"] == "ok" and after["reloads"] == 1 and after["artifact_id"] != before["artifact_id"]
        assert after["built_at"] == "2031-01-01T00:00:00+00:00"
        time.sleep(0.5)  # the same generation polled again is no reload
        assert client.get("/v1/health").json()["reloads"] == 1


def test_a_database_that_stops_answering_leaves_the_server_serving_and_ok(built_sample, pg_url, tmp_path):
    role = f"follow_{uuid.uuid4().hex[:8]}"
    admin = psycopg.connect(pg_url, autocommit=True)
    admin.execute(f"CREATE ROLE {role} SUPERUSER LOGIN")
    served = pg_url.replace("postgresql://postgres:@", f"postgresql://{role}:@", 1)
    assert served != pg_url
    try:
        publish(built_sample[0].artifact, served)
        app = create_app(ServeSettings(kb=served, reload_poll_s=0.1), config=Config(llm="none"))
        holder = app.state.unitrag.holder
        with TestClient(app) as client:
            assert client.get("/v1/health").json()["generation"] == 1
            admin.execute(f"ALTER ROLE {role} NOLOGIN")
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s", [role])
            deadline = time.monotonic() + 10
            while not (holder._live and holder._live.failing):  # the watcher's polls now fail
                assert time.monotonic() < deadline, "the watcher never polled the database"
                time.sleep(0.05)
            time.sleep(0.5)  # several failed polls
            down = client.get("/v1/health").json()
            assert down["status"] == "ok" and down["generation"] == 1 and down["reloads"] == 0
            # a question cannot be answered meanwhile: a 503 at once, never the pool's 30 s wait and a 504 (an
            # operations audit), and no host or reason in what the caller reads (the log has them)
            started = time.monotonic()
            refused = client.get("/v1/search", params={"q": "How much salt a day?"})
            assert refused.status_code == 503 and time.monotonic() - started < 15
            assert refused.headers["retry-after"] == "5" and "127.0.0.1" not in refused.text and role not in refused.text
            assert down["last_reload"] is None and holder._thread is not None and holder._thread.is_alive()
            admin.execute(f"ALTER ROLE {role} LOGIN")
            publish(edited(built_sample[0].artifact, tmp_path / "v2.duckdb"), pg_url)
            back = wait_for(client, "generation", 2)
            assert back["status"] == "ok" and back["reloads"] == 1
    finally:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s", [role])
        admin.close()


def test_a_knowledge_base_of_ones_own_refuses_once_a_newer_publish_is_live(built_sample, pg_url, tmp_path):
    """An app's KnowledgeBase held across publishes answered from the generation it loaded, a unit restricted since
    included (an attacker's): it now refuses, saying to open it again; a new one answers from the new publish."""
    from unitrag.rag.knowledge_base import KnowledgeBase
    from unitrag.rag.store import freshness
    from unitrag.rag.store.freshness import KnowledgeBaseStale

    publish(built_sample[0].artifact, pg_url)
    kb = KnowledgeBase.open(pg_url)
    assert kb.search("vitamin B12 foods").sources
    publish(edited(built_sample[0].artifact, tmp_path / "newer.duckdb"), pg_url)
    kb._freshness._checked_at -= freshness.CHECK_S  # the next search reads the live generation
    with pytest.raises(KnowledgeBaseStale, match=r"holds a newer build than this knowledge base loaded .*: open it again"):
        kb.search("vitamin B12 foods")
    with KnowledgeBase.open(pg_url) as again:
        assert again.search("vitamin B12 foods").sources
    live = kb._freshness._close.__self__  # the LiveGeneration whose connection the checks read on
    assert live._conn is not None
    kb.close()
    assert live._conn is None  # closed with the knowledge base, not left to the garbage collector
