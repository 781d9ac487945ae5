"""A publish is atomic for readers: killed anywhere (SIGKILL, timed), the database serves the old or the new
knowledge base, never a mix (issue 22, item 6: a killed publish left 509 rows under a manifest saying 129)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import duckdb
import numpy as np
import psycopg
import pytest

from unitrag.artifact.reader import open_artifact, read_vectors
from unitrag.artifact.writer import FAULT_ENV
from unitrag.postgres.publish import publish
from unitrag.rag.store.pg_store import PgChunkStore
from unitrag.rag.types import SearchFilter

BATCH_SIZE = "10"  # small batches: many commits, so the kills land between and inside them
KILLS = 10


@dataclass
class Release:
    """What a reader must see of one artifact: each chunk's title and prompt text, vectors, prompts."""

    chunks: dict[str, tuple[str, str]]
    vectors: dict[str, np.ndarray]
    prompts: dict[str, str]
    probes: list[str]  # chunks whose dense search tells the releases apart


def _release(artifact: Path, probes: list[str]) -> Release:
    with open_artifact(artifact) as con:
        ids, matrix = read_vectors(con)
        rows = con.execute("SELECT chunk_id, title, text_for_prompt FROM chunks").fetchall()
        prompts = dict(con.execute("SELECT name, template FROM prompts").fetchall())
    return Release({cid: (title, text) for cid, title, text in rows}, dict(zip(ids, matrix)), prompts, probes)


def _next_release(artifact: Path, to: Path) -> tuple[Path, list[str]]:
    """The sample grown (129 → 319 chunks): new, changed (new vectors), metadata-only and deleted chunks and a
    changed prompt; returns the copy and the chunks to probe."""
    shutil.copy(artifact, to)
    with open_artifact(artifact) as con:
        ids, matrix = read_vectors(con)
    noise = np.random.default_rng(22).normal(size=matrix.shape).astype(np.float32)
    changed, metadata, deleted = ids[:20], ids[20:30], ids[30:40]
    with duckdb.connect(str(to)) as con:
        numbers = dict(con.execute("SELECT chunk_id, chunk_no FROM chunks").fetchall())
        con.execute("UPDATE chunks SET content_hash = content_hash || '-v2', text_for_prompt = text_for_prompt || ' (v2)' "
                    "WHERE list_contains(?, chunk_id)", [changed])
        con.execute("UPDATE chunks SET meta_hash = meta_hash || '-v2', title = title || ' (v2)' "
                    "WHERE list_contains(?, chunk_id)", [metadata])
        con.execute("DELETE FROM chunks WHERE list_contains(?, chunk_id)", [deleted])
        vectors = [(_unit(matrix[i] + noise[i]).tobytes(), numbers[cid]) for i, cid in enumerate(ids) if cid in changed]
        con.executemany("UPDATE dense_vectors SET vector = ? WHERE chunk_no = ?", vectors)
        copies = con.execute("SELECT c.chunk_id, c.chunk_no, n FROM chunks c, range(1, 6) t(n) ORDER BY n, chunk_id "
                             "LIMIT 200").fetchall()
        con.execute("INSERT INTO chunks SELECT c.* REPLACE (c.chunk_id || '-copy' || n AS chunk_id, "
                    "c.content_hash || n AS content_hash, c.chunk_no + 1000 * n::INTEGER AS chunk_no) "
                    "FROM chunks c, range(1, 6) t(n) ORDER BY n, c.chunk_id LIMIT 200")
        row = {cid: i for i, cid in enumerate(ids)}
        con.executemany("INSERT INTO dense_vectors VALUES (?, ?)", [
            (number + 1000 * n, _unit(matrix[row[cid]] + 0.3 * n * noise[row[cid]]).tobytes()) for cid, number, n in copies])
        con.execute("UPDATE prompts SET template = template || ' (v2)'")
        hashes = json.loads(con.execute("SELECT value FROM manifest WHERE key = 'table_hashes'").fetchone()[0])
        con.execute("UPDATE manifest SET value = ? WHERE key = 'table_hashes'", [json.dumps({**hashes, "prompts": "v2"})])
    return to, [changed[0], metadata[0], f"{copies[0][0]}-copy{copies[0][2]}"]


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v)).astype("<f4")


def _served(url: str, releases: dict[str, Release]) -> str:
    """Which release a reader opening ``url`` now is served ("old" or "new"); fails on any mix."""
    store = PgChunkStore.load(url)
    try:
        served = {cid: (title, text) for cid, title, text in zip(
            store.ids, store.columns["title"], store.columns["text_for_prompt"])}
        which = [name for name, release in releases.items() if served == release.chunks]
        assert len(which) == 1, f"a mix: {len(served)} chunks, manifest {store.manifest['publish'].get('chunks')}"
        release = releases[which[0]]
        assert store.manifest["publish"]["chunks"] == len(served)
        assert store.prompts == release.prompts
        for probe in release.probes:  # the dense search is of that release too: its vectors, its rows
            query = release.vectors.get(probe, next(r.vectors.get(probe) for r in releases.values() if probe in r.vectors))
            _assert_searches(store, release, query, first=probe if probe in release.vectors else None)
    finally:
        store.close()
    return which[0]


def _assert_searches(store: PgChunkStore, release: Release, query: np.ndarray, first: str | None) -> None:
    """Every dense result is scored by ``release``'s vector of that chunk; ``first`` (its own vector's query) leads."""
    rows, scores = store.dense_search(query, 20, SearchFilter(restricted=True))
    found = [store.ids[row] for row in rows]
    assert found and np.allclose(scores, [float(query @ release.vectors[cid]) for cid in found], atol=1e-4)
    if first is not None:
        assert found[0] == first and scores[0] == pytest.approx(1.0, abs=1e-4)


def _row_versions(url: str) -> int:
    with psycopg.connect(url) as conn:
        return int(conn.execute("SELECT count(*) FROM unitrag_chunks").fetchone()[0])


def _writing(url: str) -> bool:
    """Whether a publish has started writing (its first transaction marks the manifest)."""
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT value->>'state' FROM unitrag_manifest WHERE key = 'publish'").fetchone()
    return row is not None and row[0] == "in_progress"


def _start(artifact: Path, url: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "unitrag", "publish", "--kb", str(artifact), "--to", url,
                             "--batch-size", BATCH_SIZE, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _publish_killed_after(artifact: Path, url: str, delay_s: float | None,
                          meanwhile: Callable[[], object] = lambda: None) -> float:
    """Run ``unitrag publish`` and SIGKILL it ``delay_s`` after it starts writing (None: let it finish, calling
    ``meanwhile`` until it has); returns how long it wrote."""
    proc = _start(artifact, url)
    deadline = time.monotonic() + 120
    while not _writing(url) and proc.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    started = time.monotonic()
    if delay_s is None:
        while proc.poll() is None:
            meanwhile()
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        return time.monotonic() - started
    time.sleep(delay_s)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    return time.monotonic() - started


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_killed_anywhere_a_publish_leaves_readers_the_old_or_the_new_knowledge_base(
        built_sample, new_database, tmp_path, pg_tables):
    old = built_sample[0].artifact
    new, probes = _next_release(old, tmp_path / "next.duckdb")
    releases = {"old": _release(old, probes), "new": _release(new, probes)}
    template = new_database()
    publish(old, template)
    assert _served(template, releases) == "old"
    clean = new_database(copy_of=template)
    readers: list[str] = []  # readers opening while it writes, and as it switches
    writing_s = _publish_killed_after(new, clean, None, lambda: readers.append(_served(clean, releases)))
    assert "old" in readers, readers  # (a mix fails in _served)
    assert _served(clean, releases) == "new"

    def kill_and_read(i: int) -> tuple[str, bool]:
        """Which release a reader gets after a kill ``i`` tenths into the writes, and whether it was mid-publish."""
        _publish_killed_after(new, killed[i], writing_s * i / (KILLS - 1))
        seen = _served(killed[i], releases)
        return seen, seen == "old" and _row_versions(killed[i]) > len(releases["old"].chunks)

    killed = [new_database(copy_of=template) for _ in range(KILLS)]
    with ThreadPoolExecutor(2) as pairs:  # two at a time: a publish spends seconds starting, most of them waiting
        outcomes = list(pairs.map(kill_and_read, range(KILLS)))
    seen = [which for which, _ in outcomes]
    assert "old" in seen and sum(mid for _, mid in outcomes) >= 2, (outcomes, writing_s)  # kills landed mid-publish

    resumed = killed[KILLS // 2]  # killed once more while it resumes, then completed
    _publish_killed_after(new, resumed, writing_s / 4)
    assert _served(resumed, releases) in ("old", "new")
    _publish_killed_after(new, resumed, None)
    assert _served(resumed, releases) == "new"
    assert pg_tables(resumed) == pg_tables(clean)


def test_a_reader_opened_before_a_publish_keeps_its_knowledge_base(built_sample, new_database, tmp_path):
    old = built_sample[0].artifact
    new, probes = _next_release(old, tmp_path / "next.duckdb")
    releases = {"old": _release(old, probes), "new": _release(new, probes)}
    url = new_database()
    publish(old, url)
    store = PgChunkStore.load(url)
    try:
        publish(new, url, batch_size=100)
        assert _served(url, releases) == "new"
        changed = probes[0]  # the old store still searches the vectors of what it loaded
        _assert_searches(store, releases["old"], releases["old"].vectors[changed], first=changed)
        publish(old, url, batch_size=100)  # the next publish deletes the rows the old store had left to itself:
        rows, _ = store.dense_search(releases["old"].vectors[changed], 20, SearchFilter(restricted=True))
        assert changed not in {store.ids[r] for r in rows}  # it finds less, never another release's rows
        steady = next(cid for cid, v in releases["old"].vectors.items()
                      if cid in releases["new"].vectors and np.array_equal(v, releases["new"].vectors[cid])
                      and releases["old"].chunks[cid] == releases["new"].chunks[cid])
        _assert_searches(store, releases["old"], releases["old"].vectors[steady], first=steady)
    finally:
        store.close()


def _live(url: str) -> list[tuple]:
    """The rows a reader of the live generation sees, without their generation numbers."""
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT to_jsonb(c) - 'embedding' - 'added_in' - 'removed_in', embedding::text FROM unitrag_chunks c "
            "WHERE removed_in IS NULL ORDER BY chunk_id").fetchall()


def test_a_publish_after_a_killed_one_of_another_artifact_keeps_nothing_of_it(built_sample, new_database, tmp_path):
    old = built_sample[0].artifact
    new, probes = _next_release(old, tmp_path / "next.duckdb")
    releases = {"old": _release(old, probes), "new": _release(new, probes)}
    url, clean = new_database(), new_database()
    publish(old, url)
    publish(old, clean)
    killed = subprocess.run([sys.executable, "-m", "unitrag", "publish", "--kb", str(new), "--to", url, "--batch-size",
                             BATCH_SIZE], env={**os.environ, FAULT_ENV: "publish-kill-after-batch:6"}, capture_output=True)
    assert killed.returncode == -signal.SIGKILL and _row_versions(url) > len(releases["old"].chunks)
    assert _served(url, releases) == "old"
    report = publish(old, url)  # the unfinished generation is resumed with the old artifact: its rows are undone
    assert report.plan.counts()["new"] == 10 and report.plan.counts()["deleted"] == 50  # 10 deleted, 50 copies written
    assert _served(url, releases) == "old" and _live(url) == _live(clean)
