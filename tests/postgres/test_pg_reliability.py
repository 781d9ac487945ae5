"""Publishing under stress: killed mid-way, two at once, unreachable servers, wrong passwords."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import psycopg
import pytest

from unitrag.artifact.writer import FAULT_ENV
from unitrag.errors import UserError
from unitrag.postgres.lock import lock_key
from unitrag.postgres.publish import publish
from unitrag.rag.store.pg_store import PgChunkStore


def _unitrag(*args: str, fault: str | None = None) -> subprocess.Popen:
    env = {**os.environ, **({FAULT_ENV: fault} if fault else {})}
    return subprocess.Popen([sys.executable, "-m", "unitrag", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _publish_cli(artifact, url: str, *args: str, fault: str | None = None) -> subprocess.Popen:
    return _unitrag("publish", "--kb", str(artifact), "--to", url, "--json", *args, fault=fault)


def _lock_held(url: str) -> bool:
    with psycopg.connect(url) as conn:
        return bool(conn.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND ((classid::bigint << 32) | objid::bigint) = %s", [lock_key("public")],
        ).fetchone()[0])


def test_a_killed_publish_completes_on_rerun_identical_to_a_clean_one(built_sample, new_database, pg_tables):
    ws, build = built_sample
    killed, clean = new_database(), new_database()
    proc = _publish_cli(ws.artifact, killed, "--batch-size", "10", fault="publish-kill-after-batch:3")
    proc.communicate(timeout=120)
    assert proc.returncode == -9  # SIGKILL after the third batch committed
    with psycopg.connect(killed) as conn:
        assert conn.execute("SELECT count(*) FROM unitrag_chunks").fetchone()[0] == 30
        state = conn.execute("SELECT value FROM unitrag_manifest WHERE key = 'publish'").fetchone()[0]
    assert state["state"] == "in_progress"
    assert not _has_dense_index(killed)  # a first publish loads without the index, then builds it once
    with pytest.raises(UserError, match="has not completed"):  # the runtime never serves half a first publish
        PgChunkStore.load(killed)
    rerun = publish(ws.artifact, killed, batch_size=10)
    assert rerun.plan.counts()["new"] == build.chunks - 30 and rerun.plan.counts()["unchanged"] == 30
    publish(ws.artifact, clean)
    assert pg_tables(killed) == pg_tables(clean)
    assert _has_dense_index(killed)
    assert publish(ws.artifact, killed).plan.is_noop


def _has_dense_index(url: str) -> bool:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT to_regclass('unitrag_chunks_embedding_hnsw')").fetchone()[0] is not None


def test_two_publishes_at_once_one_waits_or_fails_clearly(built_sample, new_database, pg_tables):
    ws, _ = built_sample
    url, clean = new_database(), new_database()
    first = _publish_cli(ws.artifact, url, "--batch-size", "100", fault="publish-sleep-after-batch:1")
    deadline = time.monotonic() + 60
    while not _lock_held(url):  # the first has started and holds the lock (it then pauses 5 s mid-publish)
        assert first.poll() is None and time.monotonic() < deadline, first.communicate()
        time.sleep(0.1)
    impatient = _publish_cli(ws.artifact, url, "--lock-timeout", "0.5")
    patient = _publish_cli(ws.artifact, url, "--lock-timeout", "60")
    out, err = impatient.communicate(timeout=60)
    assert impatient.returncode == 1 and out == ""
    assert err.startswith("error: another `unitrag publish` to schema public of this database is running") and err.count("\n") == 1
    assert first.wait(timeout=60) == 0
    assert patient.wait(timeout=60) == 0  # waited for the lock, then found nothing left to do
    assert '"unchanged": ' + str(len(pg_tables(url)["chunks"])) in patient.communicate()[0]
    publish(ws.artifact, clean)
    assert pg_tables(url) == pg_tables(clean)


@pytest.mark.parametrize("command", ["publish", "search"])
def test_unreachable_server_and_bad_credentials_are_one_line_and_exit_1(built_sample, pg_url, as_password_role, command):
    ws, _ = built_sample
    publish(ws.artifact, pg_url)
    cases = {
        "postgresql://someone:secret@127.0.0.1:9/kb": "Connection refused",
        as_password_role(pg_url, "wrong-password"): "password authentication failed",
    }
    for url, expected in cases.items():
        args = ("publish", "--kb", str(ws.artifact), "--to", url) if command == "publish" else ("search", "--kb", url, "iodine")
        proc = _unitrag(*args)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 1, err
        assert err.startswith("error: cannot connect to PostgreSQL") and expected in err and err.count("\n") == 1, err
        assert "Traceback" not in err and "secret" not in err and "wrong-password" not in err


def _terminate_unitrag_backends(url: str) -> int:
    """Kill the pooled connections of the database at ``url`` server-side, as a failover or an admin would."""
    with psycopg.connect(url, autocommit=True) as admin:
        killed = admin.execute(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name = 'unitrag' AND pid <> pg_backend_pid()"
        ).fetchone()[0]
        deadline = time.monotonic() + 10
        while admin.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                            "AND application_name = 'unitrag'").fetchone()[0]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    return int(killed)


def test_asking_after_the_server_killed_the_pooled_connections_works(published_sample):
    from concurrent.futures import ThreadPoolExecutor

    from unitrag.config import Config
    from unitrag.rag.knowledge_base import KnowledgeBase

    kb = KnowledgeBase.open(published_sample, config=Config(llm="none"))
    question = "How much iodine do pregnant women need?"
    try:
        expected = [s.chunk_id for s in kb.ask(question).sources]
        with ThreadPoolExecutor(4) as threads:  # several connections in the pool, all of them killed below
            list(threads.map(lambda _: kb.ask(question), range(8)))
        assert _terminate_unitrag_backends(published_sample) >= 1
        for _ in range(3):
            assert [s.chunk_id for s in kb.ask(question).sources] == expected
    finally:
        kb.close()
