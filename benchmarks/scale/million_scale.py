"""Toward 1M chunks (issue 14, part 5): open time, RSS, exact vs quantised dense search, recall@20.

Two steps, from the repository root::

    # the synthetic artifact: synthetic_kb.py's rows, vectors mixed from SciFact's real ones (synthetic_kb.shaped_vectors)
    nice -n 10 .venv/bin/python benchmarks/scale/million_scale.py write /tmp/s14/m1.duckdb --chunks 1000000
    # open (fresh processes, open_scale.one_run) and search, exact and quantised, in one run
    nice -n 10 .venv/bin/python benchmarks/scale/million_scale.py run /tmp/s14/m1.duckdb --queries 200 --json m1.json

The base vectors are the chunk embeddings of an artifact of real text (by default the
SciFact artifact ``unitrag eval`` leaves under ``.unitrag/eval/beir/``, e5-small); random
isotropic rows would flatter nothing and test little, since real embeddings sit in a narrow
cone where near-ties are common, which is what a quantised first pass finds hard.

Query vectors are real: SciFact's judged queries embedded with ``--embedder`` (cached
under ``.unitrag/bench/`` by ``scifact_data.query_vectors``), the first ``--queries``.
Search is timed in this process on the loaded ``ChunkStore`` for three callers: a public
caller (clinician rows masked), a selective filter (public, lang zh, kind rule) and a
clinician (no mask): the shipped exact search (``rag.store.dense.top_k``, which gathers the rows of
a selective filter) against the whole product with the mask applied after, interleaved
query by query so load on the shared cores hits both alike, and checked to return the same
top 20. Then two quantised first passes that were candidates and are not shipped (int8
codes scored in float32 blocks, binary codes by popcount; each with exact float32
rescoring of its top few hundred), on ``--candidate-queries`` queries: their p50/p95
against the exact search on the same queries, and recall@20 (the share of the exact
top 20 they return).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))  # the shared helpers

import numpy as np  # noqa: E402

from scifact_corpus import REPO, machine  # noqa: E402

DEFAULT_EMBEDDER = "e5-openvino:multilingual-e5-small"
K = 20


def base_vectors(artifact: Path | None) -> np.ndarray:
    """The chunk embeddings of an artifact of real text: the mixes' ingredients."""
    from unitrag.artifact.reader import open_artifact, read_vectors

    if artifact is None:
        found = sorted((REPO / ".unitrag" / "eval" / "beir").glob("scifact-*/e5-openvino-*.duckdb"))
        if not found:
            raise SystemExit("no SciFact artifact under .unitrag/eval/beir/: run `unitrag eval` on SciFact or pass --base")
        artifact = found[0]
    with open_artifact(artifact) as con:
        return read_vectors(con)[1]  # the embedding column (schema < 6) or dense_vectors, in chunk_id order


def write(out: Path, chunks: int, base: Path | None, seed: int, slice_chunks: int) -> dict[str, Any]:
    from synthetic_kb import shaped_vectors, write_synthetic

    real = base_vectors(base)
    return write_synthetic(out, chunks, content_dir=REPO / "content", prompts_dir=REPO / "prompts", seed=seed,
                           vectors=lambda n, slice_seed: shaped_vectors(real, n, seed=slice_seed), slice_chunks=slice_chunks)


# -- search ----------------------------------------------------------------------------------


def callers(store: Any) -> dict[str, Any]:
    """The filters searched: the masks ``ChunkStore`` makes for them (None: every row)."""
    return {
        "public": store.mask(clinician=False),
        "public zh rule": store.mask(clinician=False, lang="zh", kinds=["rule"]),
        "clinician": store.mask(clinician=True),
    }


def full_product(vectors: np.ndarray, query: np.ndarray, mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The exact search before selective filters were gathered: the whole product, masked rows at -inf."""
    from unitrag.rag.store.dense import best

    scores = vectors @ query
    if mask is None:
        return best(scores, K)
    scores[~mask] = -np.inf
    return best(scores, min(K, int(mask.sum())))


class Int8Pass:
    """Candidate first pass (not shipped): per-dimension int8 codes of the centred rows, scored in blocks as float32."""

    name = "int8 codes + float32 rescoring of 400"
    rescored = 400

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors, self.center = vectors, vectors.mean(axis=0)
        self.scale = np.abs(vectors - self.center).max(axis=0) / 127
        self.codes = np.empty(vectors.shape, dtype=np.int8)
        for a in range(0, len(vectors), 65536):
            self.codes[a : a + 65536] = np.round((vectors[a : a + 65536] - self.center) / self.scale)

    def first_pass(self, query: np.ndarray) -> np.ndarray:
        weights, out = (query * self.scale).astype(np.float32), np.empty(len(self.codes), dtype=np.float32)
        for a in range(0, len(self.codes), 65536):
            out[a : a + 65536] = self.codes[a : a + 65536].astype(np.float32) @ weights
        return out

    def __call__(self, query: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
        scores = self.first_pass(query)
        if mask is not None:
            scores[~mask] = -np.inf
        r = min(self.rescored, int(np.isfinite(scores).sum()))
        cand = np.argpartition(scores, len(scores) - r)[len(scores) - r :]
        cand = cand[np.isfinite(scores[cand])]
        return cand[np.argsort(-(self.vectors[cand] @ query), kind="stable")[:K]]


class BinaryPass(Int8Pass):
    """Candidate first pass (not shipped): sign bits of the centred rows, Hamming distance by popcount."""

    name = "binary codes (Hamming) + float32 rescoring of 1,000"
    rescored = 1000

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors, self.center = vectors, vectors.mean(axis=0)
        self.codes = np.packbits(vectors - self.center > 0, axis=1).view(np.uint64)

    def first_pass(self, query: np.ndarray) -> np.ndarray:
        code = np.packbits(query - self.center > 0).view(np.uint64)
        return -np.bitwise_count(self.codes ^ code).sum(axis=1, dtype=np.int32).astype(np.float32)


def percentiles(times: list[float]) -> dict[str, float]:
    return {"p50_ms": float(np.percentile(times, 50)), "p95_ms": float(np.percentile(times, 95)), "n": len(times)}


def timed(search: Any, *args: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    out = search(*args)
    return (time.perf_counter() - started) * 1000, out


def recall(found: np.ndarray, exact: np.ndarray) -> float:
    return len(set(found.tolist()) & set(exact.tolist())) / max(1, len(exact))


def search_figures(kb: Path, queries: np.ndarray, candidate_queries: int) -> dict[str, Any]:
    """Exact search (shipped and whole-product) per caller; the candidate quantised passes on a few queries."""
    from unitrag.rag.store.dense import top_k
    from unitrag.rag.store.artifact_store import ChunkStore

    store = ChunkStore.load(kb)
    vectors, masks = store.vectors, callers(store)
    for query in queries[:5]:  # warm-up: the masks, BLAS threads, the pages of the matrix
        for mask in masks.values():
            top_k(vectors, query, K, mask)
    out: dict[str, Any] = {"kept_rows": {name: int(len(vectors) if m is None else m.sum()) for name, m in masks.items()}}
    for name, mask in masks.items():
        shipped, whole = [], []
        for query in queries:  # interleaved, so load on the shared cores hits both alike
            t_ship, (rows, _) = timed(top_k, vectors, query, K, mask)
            t_whole, (reference, _) = timed(full_product, vectors, query, mask)
            shipped.append(t_ship)
            whole.append(t_whole)
            assert rows.tolist() == reference.tolist(), "the gathered path must return the whole product's top k"
        out[name] = {"exact": percentiles(shipped), "exact whole product": percentiles(whole)}
    for make in (Int8Pass, BinaryPass):
        started = time.perf_counter()
        candidate = make(vectors)
        built_s = time.perf_counter() - started
        for name in ("public", "public zh rule"):
            mask, exact_t, cand_t, recalls = masks[name], [], [], []
            for query in queries[:candidate_queries]:
                t_exact, (exact, _) = timed(top_k, vectors, query, K, mask)
                t_cand, found = timed(candidate, query, mask)
                exact_t.append(t_exact)
                cand_t.append(t_cand)
                recalls.append(recall(found, exact))
            out[name][candidate.name] = {**percentiles(cand_t), "exact_same_queries": percentiles(exact_t),
                                          "recall_at_20": float(np.mean(recalls)), "recall_min": float(np.min(recalls)),
                                          "codes_mib": candidate.codes.nbytes / 2**20, "codes_built_s": built_s}
        del candidate
    return out


def run(kb: Path, embedder: str, n_queries: int, candidate_queries: int, repeat: int) -> dict[str, Any]:
    from open_scale import one_run, summary
    from scifact_data import load_scifact, query_vectors

    _, queries = query_vectors(embedder, load_scifact())
    opened = summary(kb.name, str(kb), str(REPO), [one_run(str(kb), str(REPO), True) for _ in range(repeat)])
    print(f"open {opened['open_s']:.1f} s (store load {opened['load_s']:.1f} s), RSS +{opened['rss_after_open_mib']:.0f} MiB "
          f"(peak +{opened['peak_during_open_mib']:.0f}); float32 matrix {opened['matrix_mib']:.0f} MiB "
          f"({opened['rss_after_open_mib'] / opened['matrix_mib']:.2f}x); later search p50 ms: "
          + ", ".join(f"{arm} {ms:.0f}" for arm, ms in opened["later_p50_ms"].items()), flush=True)
    figures = search_figures(kb, queries[:n_queries], candidate_queries)
    for name, kept in figures["kept_rows"].items():
        row = figures[name]
        exact, whole = row["exact"], row["exact whole product"]
        print(f"{name} ({kept:,} rows kept), {exact['n']} queries: exact p50 {exact['p50_ms']:.0f} / p95 {exact['p95_ms']:.0f} ms; "
              f"whole product p50 {whole['p50_ms']:.0f} / p95 {whole['p95_ms']:.0f} ms ({whole['p50_ms'] / exact['p50_ms']:.2f}x)")
        for label, cand in row.items():
            if label.startswith(("int8", "binary")):
                base = cand["exact_same_queries"]
                print(f"  {label}, {cand['n']} queries: p50 {cand['p50_ms']:.0f} / p95 {cand['p95_ms']:.0f} ms vs exact "
                      f"{base['p50_ms']:.0f} / {base['p95_ms']:.0f} ({cand['p50_ms'] / base['p50_ms']:.2f}x the exact p50); "
                      f"recall@20 {cand['recall_at_20']:.3f} (min {cand['recall_min']:.2f}); codes {cand['codes_mib']:.0f} MiB "
                      f"built in {cand['codes_built_s']:.1f} s")
    return {"machine": machine(), "open": opened, "search": figures}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="step", required=True)
    w = sub.add_parser("write", help="write the synthetic artifact")
    w.add_argument("out", type=Path)
    w.add_argument("--chunks", type=int, default=1_000_000)
    w.add_argument("--base", type=Path, help="artifact whose embeddings are mixed (default: the SciFact eval artifact)")
    w.add_argument("--seed", type=int, default=0)
    w.add_argument("--slice", type=int, default=250_000, help="chunks per write (memory: ~2 GB per 100k at the peak)")
    r = sub.add_parser("run", help="open, search, candidates")
    r.add_argument("kb", type=Path)
    r.add_argument("--embedder", default=DEFAULT_EMBEDDER, help="embeds SciFact's queries (cached)")
    r.add_argument("--queries", type=int, default=200)
    r.add_argument("--candidate-queries", type=int, default=30, help="queries for the (slow) quantised candidates")
    r.add_argument("--repeat", type=int, default=1, help="fresh-process opens (median)")
    r.add_argument("--json", type=Path)
    args = parser.parse_args()
    print(machine(), flush=True)
    if args.step == "write":
        print(json.dumps(write(args.out, args.chunks, args.base, args.seed, args.slice)))
        return
    result = run(args.kb, args.embedder, args.queries, args.candidate_queries, args.repeat)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
