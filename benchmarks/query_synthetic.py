"""Part 2 of ``query_latency.py``: a synthetic artifact of ``--chunks`` chunks, opened cold and searched per stage.

What grows with the size of a knowledge base: ``KnowledgeBase.open`` (a fresh process each
time, with its RSS), the first sparse search, ``search()`` with and without the sparse arm,
the BM25 index from stored terms against the one the runtime holds, and the dense stage
alone against DuckDB's ``ORDER BY array_cosine_distance`` on the same vectors.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from measure import blas_one_thread, elapsed_ms, p50_p95, proc_status_kib
from query_stages import run_child, run_pass, summarize
from scifact_corpus import REPO


def child_open(path: str, small: str | None, reranker: str | None) -> None:
    """One cold ``KnowledgeBase.open`` of ``path`` in this fresh process: time, RSS delta, where the time goes.

    ``small`` (the sample artifact) is opened first and timed on its own: that first open
    pays the imports ``open`` does lazily and DuckDB's start-up, so the figures for
    ``path`` are what grows with its size.
    """
    import duckdb  # noqa: F401  (imports are not part of the measurement)
    import pyarrow  # noqa: F401

    from unitrag.artifact.postings import read_postings
    from unitrag.artifact.reader import has_table, open_artifact, read_vectors
    from unitrag.config import Config
    from unitrag.rag import KnowledgeBase
    from unitrag.rag.store import CHUNK_COLUMNS

    first: dict[str, float] = {}
    if small:
        rss = proc_status_kib("VmRSS")
        start = time.perf_counter()
        KnowledgeBase.open(Path(small), config=Config(llm="none").with_overrides(reranker=reranker))
        first = {"first_open_small_s": time.perf_counter() - start,
                 "first_open_small_rss_kib": proc_status_kib("VmRSS") - rss}
    rss0 = proc_status_kib("VmRSS")
    start = time.perf_counter()
    kb = KnowledgeBase.open(Path(path), config=Config(llm="none").with_overrides(reranker=reranker))
    open_s = time.perf_counter() - start
    rss1, hwm = proc_status_kib("VmRSS"), proc_status_kib("VmHWM")
    vectors_bytes = int(kb.store.vectors.nbytes)
    n = len(kb.store)
    # attribution (after the RSS reading): the two big reads ChunkStore.load does
    parts: dict[str, float] = {}
    with open_artifact(Path(path)) as con:
        t = time.perf_counter()
        con.execute(f"SELECT {CHUNK_COLUMNS} FROM chunks").to_arrow_table()
        parts["chunks_arrow_s"] = time.perf_counter() - t
        t = time.perf_counter()
        read_vectors(con)
        parts["vectors_s"] = time.perf_counter() - t
        if has_table(con, "sparse_postings"):
            t = time.perf_counter()
            read_postings(con)
            parts["postings_s"] = time.perf_counter() - t
    print(json.dumps({"open_s": open_s, "rss_before_kib": rss0, "rss_after_kib": rss1, "hwm_kib": hwm,
                      "vectors_bytes": vectors_bytes, "chunks": n, **parts, **first}))


def synthetic_artifact(work: Path, n_chunks: int, seed: int, zh_share: float, reuse: bool) -> tuple[Path, dict[str, Any]]:
    """The artifact of ``n_chunks`` chunks under ``work`` (the one there when ``reuse`` and its size fits): path, what was written."""
    from synthetic_kb import write_synthetic
    from unitrag.artifact.reader import open_artifact, read_manifest

    path = work / f"synthetic-{n_chunks}-s{seed}.duckdb"
    existing = None
    if reuse and path.exists():
        with open_artifact(path) as con:
            existing = read_manifest(con)
    if existing and existing.get("counts", {}).get("chunks") == n_chunks:
        print(f"  reusing {path}", flush=True)
        return path, {"path": str(path), "reused": True, "bytes": path.stat().st_size}
    start = time.perf_counter()
    written = write_synthetic(path, n_chunks, content_dir=REPO / "content", prompts_dir=REPO / "prompts",
                              seed=seed, zh_share=zh_share)
    written["total_s"] = time.perf_counter() - start
    print(f"  wrote {written['chunks']:,} chunks in {written['total_s']:.1f}s "
          f"({written['bytes'] / 2**20:.0f} MiB): {written['timings_s']}", flush=True)
    return path, written


def part_synthetic(
    work: Path, n_chunks: int, measured: list[str], warmup: list[str], repeat: int, embedder: Any, reuse: bool,
    duckdb_queries: int, seed: int, zh_share: float, small: Path | None, config: Any,
) -> dict[str, Any]:
    """Every figure of part 2; ``embedder`` replays the query vectors part 1 recorded."""
    from unitrag.artifact.reader import open_artifact, read_manifest
    from unitrag.content.tokenize import tokenize
    from unitrag.rag import KnowledgeBase

    out: dict[str, Any] = {}
    path, out["written"] = synthetic_artifact(work, n_chunks, seed, zh_share, reuse)

    child = ["--child-open", str(path)] + (["--child-small", str(small)] if small else []) + ["--reranker", config.reranker]
    opens = [run_child(child) for _ in range(3)]
    out["opens"] = opens
    print(f"  open (fresh process) x3: {[round(o['open_s'], 2) for o in opens]} s", flush=True)

    embedder.replay = True
    with open_artifact(path) as con:
        embedder.pose_as(read_manifest(con)["embedder"]["id"])
    rss0 = proc_status_kib("VmRSS")
    start = time.perf_counter()
    kb = KnowledgeBase.open(path, config=config, embedder=embedder)
    out["open_in_process_s"] = time.perf_counter() - start
    rss1 = proc_status_kib("VmRSS")
    start = time.perf_counter()
    first = kb.search(warmup[0])  # the first sparse query builds the BM25 index
    out["first_sparse_search"] = {"wall_ms": (time.perf_counter() - start) * 1000, "timings": first.timings_ms}
    rss2 = proc_status_kib("VmRSS")
    out["rss_in_process_kib"] = {"before_open": rss0, "after_open": rss1, "after_first_sparse_search": rss2}
    print(f"  first sparse search (builds BM25): {out['first_sparse_search']['wall_ms'] / 1000:.1f}s", flush=True)
    for q in warmup[1:] + measured:  # warm: every query vector in the encoder's cache, every code path run once
        kb.search(q)
        kb.search(q, sparse=False)

    limits = blas_one_thread()
    on: list[dict[str, Any]] = []
    off: list[dict[str, Any]] = []
    on_1: list[dict[str, Any]] = []
    for _ in range(repeat):  # interleaved, so all see the same machine load
        for q in measured:
            on += run_pass(kb.search, [q])
            off += run_pass(lambda x: kb.search(x, sparse=False), [q])
            if limits is not None:
                with limits():
                    on_1 += run_pass(kb.search, [q])
    out["columns"] = {"sparse on": summarize(on), "sparse off": summarize(off)}
    if on_1:
        out["columns"]["sparse on, 1 BLAS thread"] = summarize(on_1)

    # what the sparse stage is made of: the question's tokenisation alone
    out["question_tokenize_ms"] = p50_p95([elapsed_ms(lambda: tokenize(q)) for _ in range(repeat) for q in measured])
    out.update(sparse_from_stored_terms(path, kb.retriever.sparse_index))
    mask = kb.store.mask(clinician=False)
    out.update(dense_alone(kb, path, measured, config.dense_k, mask, max(repeat, 3), duckdb_queries, limits))
    out["chunks"] = len(kb.store)
    out["reranker_attached"] = kb.retriever.reranker is not None
    out["public_chunks"] = int(mask.sum()) if mask is not None else len(kb.store)
    return out


def sparse_from_stored_terms(path: Path, built: Any) -> dict[str, Any]:
    """The BM25 index from the artifact's stored ``sparse_terms``: how long it takes, and whether it is the runtime's."""
    from unitrag.artifact.reader import open_artifact
    from unitrag.rag.sparse import SparseIndex

    with open_artifact(path) as con:
        stored = [r[0] for r in con.execute("SELECT sparse_terms FROM chunks ORDER BY chunk_id").fetchall()]
    start = time.perf_counter()
    from_stored = SparseIndex.from_joined(stored)
    seconds = time.perf_counter() - start
    return {"sparse_from_stored_terms_s": seconds, "sparse_index": {
        "terms": len(built.vocab), "postings": int(built.rows.size),
        "bytes": int(built.indptr.nbytes + built.rows.nbytes + built.tf.nbytes + built.idf.nbytes + built.norm.nbytes),
        "stored_terms_give_same_index": bool(
            built.vocab.keys() == from_stored.vocab.keys() and np.array_equal(built.indptr, from_stored.indptr)
            and np.array_equal(built.rows, from_stored.rows) and np.array_equal(built.tf, from_stored.tf)
            and np.allclose(built.idf, from_stored.idf) and np.allclose(built.norm, from_stored.norm)),
    }}


def dense_alone(kb: Any, path: Path, measured: list[str], k: int, mask: np.ndarray | None, passes: int,
                duckdb_queries: int, limits: Callable[[], Any] | None) -> dict[str, Any]:
    """The dense stage alone (``rag.dense.top_k``, default and one BLAS thread) against DuckDB on the same vectors.

    DuckDB's top ``k`` is checked against NumPy's for each question it answers.
    """
    import duckdb
    import pyarrow as pa

    from unitrag.artifact.reader import has_table
    from unitrag.artifact.vectors import TABLE as VECTORS
    from unitrag.rag.dense import top_k

    vectors = kb.store.vectors
    qvecs = [kb.encoder.encode(q) for q in measured]
    dense: dict[str, list[float]] = {"numpy": [], "numpy masked": []}
    if limits is not None:
        dense.update({"numpy 1 thread": [], "numpy 1 thread masked": []})
    for _ in range(passes):
        for v in qvecs:
            for name, m in (("numpy", None), ("numpy masked", mask)):
                dense[name].append(elapsed_ms(lambda: top_k(vectors, v, k, m)))
                if limits is not None:
                    with limits():
                        dense[name.replace("numpy", "numpy 1 thread")].append(elapsed_ms(lambda: top_k(vectors, v, k, m)))
    con = duckdb.connect(str(path), read_only=True)
    threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
    dim = vectors.shape[1]
    if has_table(con, VECTORS):  # schema 6 keeps vectors as BLOBs: DuckDB's SQL needs them as FLOAT[dim], in memory
        con.close()
        con = duckdb.connect()
        con.register("stored", pa.table({
            "chunk_id": list(kb.store.ids),
            "access": np.where(mask, "public", "clinician") if mask is not None else np.full(len(vectors), "public"),
            "embedding": pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), dim)}))
        con.execute("CREATE TABLE chunks AS SELECT * FROM stored")
    sql = {
        "duckdb": f"SELECT chunk_id FROM chunks ORDER BY array_cosine_distance(embedding, ?::FLOAT[{dim}]) LIMIT {k}",
        "duckdb masked": f"SELECT chunk_id FROM chunks WHERE access = 'public' "
                         f"ORDER BY array_cosine_distance(embedding, ?::FLOAT[{dim}]) LIMIT {k}",
    }
    agree = {"duckdb": 0, "duckdb masked": 0}
    ids = kb.store.ids
    for name, query in sql.items():
        con.execute(query, [qvecs[0]]).fetchall()  # warm: file pages and DuckDB's buffer
        dense[name] = []
        for v in qvecs[:duckdb_queries]:
            t = time.perf_counter()
            got = [r[0] for r in con.execute(query, [v]).fetchall()]
            dense[name].append((time.perf_counter() - t) * 1000)
            rows, _ = top_k(vectors, v, k, mask if "masked" in name else None)
            agree[name] += set(got) == {ids[i] for i in rows}
    con.close()
    return {"dense_alone": {name: p50_p95(values) for name, values in dense.items()},
            "duckdb_agreement": {name: f"{agree[name]}/{min(duckdb_queries, len(qvecs))}" for name in agree},
            "duckdb_threads": threads}
