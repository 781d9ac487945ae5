"""The dense index's settings: refused out of range, built as asked, rebuilt only when they change, and
a halfvec index serving the same results (through the index, scored by the full vectors)."""

from __future__ import annotations

import json
import subprocess
import sys

import psycopg
import pytest
from pgvector.psycopg import register_vector

from unitrag.errors import InvalidArgument, UserError
from unitrag.postgres.index import INDEX_NAME, IndexSettings, order_by_distance
from unitrag.postgres.publish import publish
from unitrag.postgres.settings import load_index_settings
from unitrag.rag.store.pg_store import PgChunkStore
from unitrag.rag.store.artifact_store import ChunkStore
from unitrag.rag.types import SearchFilter

SMALL = IndexSettings(m=8, ef_construction=32, halfvec=True, ef_search=60)
DEFAULT_OPS = "halfvec_cosine_ops" if IndexSettings().halfvec else "vector_cosine_ops"


def _index(url: str) -> tuple[int, list[str] | None, str]:
    """(oid, reloptions, definition) of the dense index: a new oid means a new build."""
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT c.oid::int, c.reloptions, i.indexdef FROM pg_class c JOIN pg_indexes i ON i.indexname = c.relname "
            "WHERE c.relname = %s", [INDEX_NAME],
        ).fetchone()


@pytest.mark.parametrize(("values", "says"), [
    ({"m": 1}, r"index setting m \(--hnsw-m; \[publish\] hnsw_m\): expected a whole number from 2 to 100, got 1"),
    ({"m": 101}, "index setting m .* from 2 to 100, got 101"),
    ({"m": True}, "index setting m .*got True"),
    ({"m": 16.0}, "index setting m .*got 16.0"),
    ({"ef_construction": 1001}, r"index setting ef_construction \(--hnsw-ef-construction.*from 4 to 1000"),
    ({"m": 32, "ef_construction": 63}, r"ef_construction .*must be at least 2 × m \(64\), got 63"),
    ({"ef_search": 0}, r"index setting ef_search \(--hnsw-ef-search.*from 1 to 1000, got 0"),
    ({"halfvec": "yes"}, r"index setting halfvec .*expected true or false, got 'yes'"),
])
def test_settings_out_of_range_are_refused_naming_the_option(values, says):
    with pytest.raises(InvalidArgument, match=says):
        IndexSettings(**values)


def test_settings_come_from_the_config_then_the_environment_then_flags(tmp_path):
    config = tmp_path / "unitrag.toml"
    config.write_text("[unitrag]\nartifact = 'kb.duckdb'\n\n[publish]\nhnsw_m = 24\nhnsw_ef_construction = 100\nhalfvec = true\n")
    assert load_index_settings(config, env={}) == IndexSettings(m=24, ef_construction=100, halfvec=True)
    env = {"UNITRAG_PUBLISH_HNSW_M": "32", "UNITRAG_PUBLISH_HALFVEC": "false"}
    assert load_index_settings(config, env=env) == IndexSettings(m=32, ef_construction=100, halfvec=False)
    assert load_index_settings(config, env=env, hnsw_m=40, hnsw_ef_construction=None) == IndexSettings(
        m=40, ef_construction=100, halfvec=False)
    assert load_index_settings(tmp_path / "none.toml", env={}) == IndexSettings()  # nothing given: the defaults
    with pytest.raises(InvalidArgument, match="hnsw_m.*expected a whole number, got 'many'"):
        load_index_settings(config, env={"UNITRAG_PUBLISH_HNSW_M": "many"})
    config.write_text("[publish]\nhnsw_n = 24\n")
    with pytest.raises(UserError, match="unknown \\[publish\\] key 'hnsw_n'"):
        load_index_settings(config, env={})


@pytest.mark.parametrize(("toml", "says"), [
    ('hnsw_m = "16"', r"\[publish\] hnsw_m: expected a whole number in the config file, got the string '16': write it "
                      "without quotes"),
    ('halfvec = "true"', r"\[publish\] halfvec: expected true or false in the config file"),
])
def test_a_files_value_of_the_wrong_toml_type_is_refused_as_in_every_table(tmp_path, toml, says):
    """An attacker's [serve] and [unitrag] quoted numbers were read as numbers; [publish]'s were too."""
    config = tmp_path / "unitrag.toml"
    config.write_text(f"[publish]\n{toml}\n")
    with pytest.raises(UserError, match=says):
        load_index_settings(config, env={"UNITRAG_PUBLISH_HNSW_M": "16"})  # the environment's text is read as ever


def test_cli_refuses_a_bad_setting_in_one_line_before_connecting(built_sample, tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "unitrag", "publish", "--kb", str(built_sample[0].artifact), "--to",
         "postgresql://nobody@127.0.0.1:1/none", "--hnsw-m", "32", "--hnsw-ef-construction", "40"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines()[-1].endswith("must be at least 2 × m (64), got 40")
    assert "cannot connect" not in run.stderr


def test_the_index_is_built_with_the_given_settings(built_sample, pg_url):
    report = publish(built_sample[0].artifact, pg_url, index=SMALL)
    assert report.index_rebuild and report.index_before is None
    _, options, definition = _index(pg_url)
    assert sorted(options) == ["ef_construction=32", "m=8"]
    assert "USING hnsw (((embedding)::halfvec(384)) halfvec_cosine_ops)" in definition
    with psycopg.connect(pg_url) as conn:
        recorded = conn.execute("SELECT value FROM unitrag_manifest WHERE key = 'index'").fetchone()[0]
    assert recorded == SMALL.to_dict()
    store = PgChunkStore.load(pg_url)
    try:
        assert (store.ef_search, store.halfvec) == (60, True)
    finally:
        store.close()


def test_changed_settings_rebuild_the_index_and_the_same_do_not(built_sample, pg_url):
    artifact = built_sample[0].artifact
    publish(artifact, pg_url)
    first = _index(pg_url)
    assert DEFAULT_OPS in first[2] and f"m={IndexSettings().m}" in first[1]

    same = publish(artifact, pg_url)
    assert not same.index_rebuild and same.rows_written == {} and same.batches == 0
    assert _index(pg_url) == first

    planned = publish(artifact, pg_url, index=SMALL, dry_run=True)
    assert planned.index_rebuild and planned.index_before == IndexSettings()
    assert _index(pg_url) == first  # a dry run builds nothing

    rebuilt = publish(artifact, pg_url, index=SMALL)
    assert rebuilt.index_rebuild and "index" in rebuilt.timings_s and rebuilt.plan.is_noop
    second = _index(pg_url)
    assert second[0] != first[0] and "halfvec_cosine_ops" in second[2]

    wider = publish(artifact, pg_url, index=IndexSettings(m=8, ef_construction=32, halfvec=True, ef_search=300))
    assert not wider.index_rebuild and wider.batches == 1  # the manifest records the new ef_search; no rebuild
    assert _index(pg_url) == second
    store = PgChunkStore.load(pg_url)
    try:
        assert store.ef_search == 300
    finally:
        store.close()

    back = publish(artifact, pg_url)  # no settings: the defaults, so back to the default graph
    assert back.index_rebuild and back.index_before == IndexSettings(m=8, ef_construction=32, halfvec=True)
    assert DEFAULT_OPS in _index(pg_url)[2] and f"m={IndexSettings().m}" in _index(pg_url)[1]


def test_a_halfvec_index_serves_the_artifacts_results(built_sample, pg_url):
    ws, _ = built_sample
    publish(ws.artifact, pg_url, index=IndexSettings(halfvec=True))
    memory = ChunkStore.load(ws.artifact)
    store = PgChunkStore.load(pg_url)
    try:
        assert store.halfvec
        everyone = SearchFilter(restricted=True)  # every chunk, so each one's own vector can find it
        hits = total = 0
        for row in range(0, len(memory), max(1, len(memory) // 40)):
            query = memory.vectors[row]
            exact_rows, exact_scores = memory.dense_search(query, 20, everyone)
            rows, scores = store.dense_search(query, 20, everyone)
            expected = {memory.ids[r]: s for r, s in zip(exact_rows, exact_scores)}
            found = {store.ids[r]: s for r, s in zip(rows, scores)}
            assert store.ids[rows[0]] == memory.ids[row]  # a chunk's own vector finds it first
            assert all(abs(found[cid] - s) < 1e-5 for cid, s in expected.items() if cid in found)  # full-precision scores
            hits += len(set(found) & set(expected))
            total += len(expected)
        assert hits / total >= 0.98
    finally:
        store.close()
    with psycopg.connect(pg_url) as conn:  # the query's ORDER BY is the index's expression, so the index can serve it
        register_vector(conn)
        conn.execute("SET enable_seqscan = off")
        plan = "\n".join(r[0] for r in conn.execute(
            f"EXPLAIN SELECT chunk_id FROM unitrag_chunks ORDER BY {order_by_distance(True, 384)} LIMIT 20",
            [memory.vectors[0]]).fetchall())
    assert f"Index Scan using {INDEX_NAME}" in plan


def test_cli_plan_says_when_the_index_would_be_rebuilt(built_sample, pg_url, tmp_path):
    publish(built_sample[0].artifact, pg_url)
    artifact = str(built_sample[0].artifact)

    def dry_run(*flags: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "unitrag", "publish", "--kb", artifact, "--to", pg_url, "--dry-run",
                               *flags], capture_output=True, text=True, cwd=tmp_path, timeout=120)

    as_built = dry_run()
    assert as_built.returncode == 0, as_built.stderr
    assert "HNSW index: " in as_built.stdout and "(as built)" in as_built.stdout
    other = dry_run("--json", "--no-halfvec" if IndexSettings().halfvec else "--halfvec")
    index = json.loads(other.stdout)["index"]
    assert index["rebuild"] and index["storage"] != index["before"]["storage"]
    assert "HNSW index: would rebuild" in dry_run("--hnsw-m", "24").stdout
