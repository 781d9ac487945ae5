"""Serving from PostgreSQL: the same results as the artifact, filters in SQL, many threads, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import numpy as np
import psycopg
import pytest
import yaml
from pgvector.psycopg import register_vector

from unitrag.artifact.reader import open_artifact, read_vectors
from unitrag.config import Config
from unitrag.errors import UserError
from unitrag.postgres.index import IndexSettings, order_by_distance
from unitrag.postgres.publish import publish
from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.rag.store.pg_store import PgChunkStore
from unitrag.rag.types import SearchFilter, UserContext

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = [q["question"] for q in yaml.safe_load((REPO / "content" / "eval" / "questions.yaml").read_text("utf-8"))]


@pytest.fixture(scope="module")
def kbs(built_sample, published_sample):
    """(artifact, postgres) knowledge bases sharing one query encoder, so each question is embedded once."""
    ws, _ = built_sample
    duck = KnowledgeBase.open(ws.artifact, config=Config(llm="none"))
    pg = KnowledgeBase.open(published_sample, config=Config(llm="none"), embedder=duck.encoder.embedder)
    pg.encoder = pg.retriever.encoder = duck.encoder
    yield duck, pg
    pg.close()


def _recall(expected: list[list[str]], found: list[list[str]]) -> float:
    hits = sum(len(set(e) & set(f)) for e, f in zip(expected, found))
    return hits / max(1, sum(len(e) for e in expected))


def test_dense_top20_matches_the_artifact(kbs):
    duck, pg = kbs
    expected, found = [], []
    for question in QUESTIONS:
        vector = duck.encoder.encode(question)
        rows_d, scores_d = duck.store.dense_search(vector, 20, SearchFilter())
        rows_p, scores_p = pg.store.dense_search(vector, 20, SearchFilter())
        expected.append([duck.store.ids[r] for r in rows_d])
        found.append([pg.store.ids[r] for r in rows_p])
        assert len(rows_p) == len(rows_d) == 20
        same = dict(zip(found[-1], scores_p))
        assert all(abs(same[cid] - s) < 1e-4 for cid, s in zip(expected[-1], scores_d) if cid in same)
    assert _recall(expected, found) >= 0.98


def test_default_search_top20_and_ask_sources_match_the_artifact(kbs):
    duck, pg = kbs
    expected = [[s.chunk_id for s in duck.search(q, k=20).sources] for q in QUESTIONS]
    found = [[s.chunk_id for s in pg.search(q, k=20).sources] for q in QUESTIONS]
    assert _recall(expected, found) >= 0.98
    for question in QUESTIONS:
        a, b = duck.ask(question), pg.ask(question)
        assert [s.chunk_id for s in b.sources] == [s.chunk_id for s in a.sources], question
        assert (b.answer, b.not_found, [c.id for c in b.citations]) == (a.answer, a.not_found, [c.id for c in a.citations])


def test_a_clinician_only_chunk_never_reaches_a_public_caller(kbs, built_sample):
    duck, pg = kbs
    with duckdb.connect(str(built_sample[0].artifact), read_only=True) as con:
        chunk_id, title = con.execute(
            "SELECT chunk_id, title FROM chunks WHERE access = 'clinician' ORDER BY chunk_id LIMIT 1"
        ).fetchone()
    own_vector = duck.store.vectors[duck.store.index[chunk_id]]  # the nearest possible query to that chunk
    rows, _ = pg.store.dense_search(own_vector, 20, SearchFilter(restricted=False))
    assert len(rows) == 20 and chunk_id not in {pg.store.ids[r] for r in rows}
    assert {pg.store.access[r] for r in rows} == {"public"}
    rows, _ = pg.store.dense_search(own_vector, 20, SearchFilter(restricted=True))
    assert pg.store.ids[rows[0]] == chunk_id
    assert chunk_id not in {s.chunk_id for s in pg.ask(title).sources}
    assert chunk_id in {s.chunk_id for s in pg.search(title, user=UserContext(roles=("clinician",))).sources}


def test_a_selective_filter_still_returns_k_rows_from_the_index(built_sample, pg_url):
    ws, _ = built_sample
    publish(ws.artifact, pg_url)
    with psycopg.connect(pg_url, autocommit=True) as conn:  # force the HNSW index even on 129 rows
        conn.execute(f"ALTER DATABASE \"{conn.info.dbname}\" SET enable_seqscan = off")
    with open_artifact(ws.artifact) as con:
        ids, matrix = read_vectors(con)
        wanted = {r[0] for r in con.execute(
            "SELECT chunk_id FROM chunks WHERE lang = 'zh' AND kind = 'rule' AND access = 'public'").fetchall()}
        query_id = con.execute("SELECT chunk_id FROM chunks WHERE lang = 'en' AND kind = 'story' LIMIT 1").fetchone()[0]
    query = matrix[ids.index(query_id)]  # an English story: the Chinese rules are far from it
    k = min(10, len(wanted))
    assert k >= 5
    with psycopg.connect(pg_url) as conn:  # without an iterative scan the index's first k candidates are all it gives
        register_vector(conn)
        conn.execute(f"SET hnsw.ef_search = {k}")
        conn.execute("SET hnsw.iterative_scan = off")
        plain = conn.execute(
            "SELECT chunk_id FROM unitrag_chunks WHERE access = 'public' AND lang = 'zh' AND kind = ANY(%s) "
            f"ORDER BY {order_by_distance(IndexSettings().halfvec, len(query))} LIMIT %s", [["rule"], query, k],
        ).fetchall()
    assert len(plain) < k
    store = PgChunkStore.load(pg_url, ef_search=k)
    try:
        rows, scores = store.dense_search(query, k, SearchFilter(lang="zh", kinds=("rule",)))
        assert len(rows) == k and {store.ids[r] for r in rows} <= wanted
        assert list(scores) == sorted(scores, reverse=True)
        exact = np.argsort(-(matrix @ query))
        best = [ids[i] for i in exact if ids[i] in wanted][:k]
        assert _recall([best], [[store.ids[r] for r in rows]]) >= 0.8
    finally:
        store.close()


def test_eight_threads_ask_at_once(kbs):
    _, pg = kbs
    questions = QUESTIONS[:8]
    expected = {q: [s.chunk_id for s in pg.ask(q).sources] for q in questions}
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda q: (q, pg.ask(q)), questions * 3))
    assert all([s.chunk_id for s in answer.sources] == expected[q] for q, answer in results)


def test_cli_search_and_ask_over_postgres(kbs, published_sample):
    duck, _ = kbs
    question = QUESTIONS[0]
    run = subprocess.run([sys.executable, "-m", "unitrag", "search", "--kb", published_sample, question, "--json"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert [s["chunk_id"] for s in json.loads(run.stdout)["sources"]] == [s.chunk_id for s in duck.search(question).sources]
    run = subprocess.run([sys.executable, "-m", "unitrag", "ask", "--kb", published_sample, question, "--llm", "none",
                          "--json"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert [s["chunk_id"] for s in json.loads(run.stdout)["sources"]] == [s.chunk_id for s in duck.ask(question).sources]


def test_a_database_without_a_publish_says_to_publish_first(pg_url):
    with pytest.raises(UserError, match="no unitrag knowledge base .* run `unitrag publish"):
        KnowledgeBase.open(pg_url)


@pytest.mark.parametrize("field", ["topics", "kinds"])
def test_a_nul_in_a_filter_is_a_clear_error(kbs, field):
    duck, pg = kbs
    with pytest.raises(ValueError, match=field):
        pg.search("iodine", **{field: ["iodine\x00"]})
    vector = duck.encoder.encode("iodine")
    for where in (SearchFilter(topics=("io\x00dine",)), SearchFilter(kinds=("rule\x00",)), SearchFilter(lang="en\x00")):
        with pytest.raises(ValueError, match="NUL"):
            pg.store.dense_search(vector, 5, where)
