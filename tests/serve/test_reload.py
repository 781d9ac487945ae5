"""A new artifact is swapped in without downtime: no failed request, in-flight answers finish on the old one."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from pathlib import Path

import duckdb
import httpx
import pytest

from unitrag.config import Config
from unitrag.serve import ServeSettings, create_app

from .conftest import SlowLLM, live_server

pytestmark = pytest.mark.e2e

QUESTION = "How is vitamin B12 deficiency treated?"


def publish(source: Path, served: Path, built_at: str) -> None:
    """What a build does: write a new file beside the served one, then rename it over it."""
    fresh = served.with_name("kb.duckdb.new")
    shutil.copy(source, fresh)
    with duckdb.connect(str(fresh)) as con:
        con.execute("UPDATE manifest SET value = ? WHERE key = 'built_at'", [json.dumps(built_at)])
    os.replace(fresh, served)


def wait_for_new_id(client: httpx.Client, old: str, timeout: float = 90) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        current = client.get("/v1/health").json()["artifact_id"]
        if current != old:
            return current
        time.sleep(0.1)
    raise AssertionError(f"still serving {old} after {timeout} s")


def wait_for_requests(done: list[int], more: int, timeout: float = 120) -> None:
    target, deadline = done[0] + more, time.monotonic() + timeout
    while done[0] < target:
        assert time.monotonic() < deadline, f"only {done[0]} requests answered"
        time.sleep(0.05)


def test_swaps_under_concurrent_requests_without_a_failed_one(built_sample, tmp_path):
    ws, _ = built_sample
    served = tmp_path / "kb.duckdb"
    shutil.copy(ws.artifact, served)
    app = create_app(ServeSettings(kb=str(served), reload_poll_s=0.1), config=Config(llm="none"))
    failures: list[str] = []
    done = [0]
    stop = threading.Event()

    with live_server(app) as base, httpx.Client(base_url=base, timeout=60) as probe:
        def hammer(n: int) -> None:
            with httpx.Client(base_url=base, timeout=60) as client:
                while not stop.is_set():
                    try:
                        r = (client.get("/v1/search", params={"q": QUESTION}) if n % 2
                             else client.post("/v1/ask", json={"question": QUESTION}))
                        if r.status_code != 200 or not r.json()["sources"]:
                            failures.append(f"{r.status_code} {r.text[:200]}")
                    except Exception as exc:  # a dropped connection counts as a failure
                        failures.append(repr(exc))
                    done[0] += 1

        workers = [threading.Thread(target=hammer, args=(n,)) for n in range(8)]
        for w in workers:
            w.start()
        ids = [probe.get("/v1/health").json()["artifact_id"]]
        for n in range(2):
            wait_for_requests(done, 8)  # requests in flight on each side of each swap
            publish(ws.artifact, served, f"2030-01-0{n + 1}T00:00:00+00:00")
            ids.append(wait_for_new_id(probe, ids[-1]))
        wait_for_requests(done, 8)
        stop.set()
        for w in workers:
            w.join()
        health = probe.get("/v1/health").json()

    assert failures == []
    assert done[0] >= 24 and len(set(ids)) == 3
    assert health["artifact_id"] == ids[-1] and health["reloads"] == 2 and health["built_at"] == "2030-01-02T00:00:00+00:00"


def test_an_answer_in_flight_finishes_on_the_old_artifact(built_sample, tmp_path):
    ws, _ = built_sample
    served = tmp_path / "kb.duckdb"
    shutil.copy(ws.artifact, served)
    text = "Vitamin B12 deficiency is treated with B12 tablets or injections, depending on the cause. " * 2
    app = create_app(ServeSettings(kb=str(served), reload_poll_s=0.1), config=Config(llm="none"), llm=SlowLLM(text, 0.1))
    holder = app.state.unitrag.holder
    old = holder.current
    closed: list[str] = []
    old.kb.close = lambda: closed.append(old.id)  # type: ignore[method-assign]

    with live_server(app) as base, httpx.Client(base_url=base, timeout=60) as client:
        with client.stream("POST", "/v1/ask/stream", json={"question": QUESTION}) as response:
            lines = response.iter_lines()
            assert next(line for line in lines if line.startswith("event: token"))
            publish(ws.artifact, served, "2030-02-01T00:00:00+00:00")
            new_id = wait_for_new_id(client, old.id)
            assert old.retired and old.leases == 1 and closed == []  # still answering on it
            rest = list(lines)
        assert "event: done" in rest and "event: error" not in rest
    assert new_id != old.id and closed == [old.id]  # closed when its last request ended


def wait_for_health(client: httpx.Client, status: str, timeout: float = 90) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        health = client.get("/v1/health").json()
        if health["status"] == status:
            return health
        time.sleep(0.1)
    raise AssertionError(f"health never said {status!r}: {health}")


def test_a_corrupt_build_degrades_health_until_a_good_one_is_served(built_sample, tmp_path):
    ws, _ = built_sample
    served = tmp_path / "kb.duckdb"
    shutil.copy(ws.artifact, served)
    app = create_app(ServeSettings(kb=str(served), reload_poll_s=0.1), config=Config(llm="none"))

    with live_server(app) as base, httpx.Client(base_url=base, timeout=60) as client:
        started = client.get("/v1/health").json()
        assert started["status"] == "ok" and started["last_reload"] is None
        corrupt = served.with_name("kb.duckdb.new")
        corrupt.write_bytes(b"not a duckdb file" * 1000)
        os.replace(corrupt, served)
        degraded = wait_for_health(client, "degraded")
        assert degraded["artifact_id"] == started["artifact_id"]  # the old build still answers
        assert degraded["last_reload"]["outcome"] == "failed" and degraded["last_reload"]["at"]
        assert client.get("/v1/search", params={"q": QUESTION}).status_code == 200
        publish(ws.artifact, served, "2030-03-01T00:00:00+00:00")
        healthy = wait_for_health(client, "ok")
    assert healthy["artifact_id"] != started["artifact_id"] and healthy["last_reload"]["outcome"] == "ok"
