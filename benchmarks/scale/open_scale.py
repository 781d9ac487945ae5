"""How long ``KnowledgeBase.open`` takes and how much memory it holds, against a baseline in the same run.

Each measurement runs in a fresh process (so nothing is warm in Python, and RSS means
something): import unitrag from ``--code`` (a checkout, e.g. ``git archive HEAD~5 unitrag |
tar -x -C /tmp/base``, for the baseline), then load the artifact (``ChunkStore.load``) and make the
``KnowledgeBase`` over it with a stub query embedder (the manifest's id, deterministic
vectors: the model's own load is not what is measured), which is what ``KnowledgeBase.open``
does; then time the first and later searches (whole ``search``, the dense arm, the BM25 arm).
``search`` includes whatever the query path of that checkout does (broadening, rerank).

    .venv/bin/python benchmarks/scale/open_scale.py --kb new=/tmp/kb-v4.duckdb@. --kb base=/tmp/kb-v3.duckdb@/tmp/base \\
        --repeat 3 --json open.json

RSS is the process's resident set after open minus before (after imports), and the peak
(VmHWM) minus the same; the float32 matrix size is reported beside them. RSS after the
searches too: what the runtime holds once queries ran (caches, the texts' buffer pool).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

QUESTIONS = {
    "en": ["How much vitamin D do older adults need?", "Does metformin lower vitamin B12?", "iron deficiency in pregnancy",
           "iodine intake for pregnant women", "folate and neural tube defects", "salt and blood pressure"],
    "zh": ["老年人每天需要多少维生素D？", "二甲双胍会降低维生素B12吗？", "孕妇缺铁怎么办", "孕妇每天需要多少碘？", "叶酸和神经管缺陷", "盐和血压"],
}


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def stub_encoder(kb_path: str) -> Any:
    """A ``QueryEncoder`` over a stub with the artifact's embedder id, vectors from a hash of the text: no model
    to load (import unitrag from the code under test first)."""
    import numpy as np

    from unitrag.artifact.reader import open_artifact, read_manifest
    from unitrag.providers.embedders.base import Embedder
    from unitrag.rag.search.query_embedding import QueryEncoder

    with open_artifact(Path(kb_path)) as con:
        manifest = read_manifest(con)
    provider, model = manifest["embedder"]["id"].split(":", 1)
    dim = int(manifest["embedder"]["dim"])

    class Stub(Embedder):
        @property
        def id(self) -> str:
            return f"{provider}:{model}"

        @property
        def dim(self) -> int:
            return dim

        def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
            out = np.stack([np.random.default_rng(int(hashlib.sha256(t.encode()).hexdigest()[:8], 16))
                            .standard_normal(dim).astype(np.float32) for t in texts])
            return out / np.linalg.norm(out, axis=1, keepdims=True)

    Stub.provider = provider
    Stub(model).embed(["warm-up"])  # the stub's own first call imports numpy.random (~20 ms): not the runtime's cost
    return QueryEncoder(Stub(model))


def child(kb_path: str, code: str, sparse: bool) -> dict[str, Any]:
    """One measurement, in this (fresh) process."""
    sys.path.insert(0, str(Path(code).resolve()))
    from unitrag.config import Config
    from unitrag.rag.knowledge_base import KnowledgeBase

    encoder = stub_encoder(kb_path)
    from unitrag.rag.store.artifact_store import ChunkStore
    from unitrag.rag.types import SearchFilter

    rss0 = _status_kib("VmRSS")
    started = time.perf_counter()
    store = ChunkStore.load(Path(kb_path))
    load_s = time.perf_counter() - started
    kb = KnowledgeBase(store, encoder, Config(llm="none", sparse=sparse))  # what open() does next
    open_s = time.perf_counter() - started
    rss1, hwm = _status_kib("VmRSS"), _status_kib("VmHWM")
    index = kb.retriever.sparse_index
    where = SearchFilter(clinician=False, lang=None, kinds=(), topics=())
    arms: dict[str, list[float]] = {"search": [], "dense": [], "sparse": []}
    for questions in QUESTIONS.values():
        for question in questions:
            vector = kb.encoder.encode(question)
            for arm, run in (("search", lambda: kb.search(question)),
                             ("dense", lambda: store.dense_search(vector, 20, where)),
                             ("sparse", lambda: index.search(question, 20, store.filter_mask(where)) if index else None)):
                t = time.perf_counter()
                run()
                arms[arm].append((time.perf_counter() - t) * 1000)
    return {
        "load_s": load_s, "open_s": open_s, "rss_after_open_mib": (rss1 - rss0) / 1024,
        "rss_after_searches_mib": (_status_kib("VmRSS") - rss0) / 1024,
        "peak_during_open_mib": (hwm - rss0) / 1024, "matrix_mib": store.vectors.nbytes / 2**20,
        "chunks": len(store), "stored_bm25": getattr(store, "sparse_index", None) is not None,
        "first_ms": {arm: times[0] for arm, times in arms.items()},
        "later_p50_ms": {arm: statistics.median(times[1:]) for arm, times in arms.items()},
    }


def one_run(kb_path: str, code: str, sparse: bool) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--child", kb_path, "--code", code] + ([] if sparse else ["--no-sparse"]),
                         capture_output=True, text=True, check=True, env={**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "2")})
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def summary(label: str, kb_path: str, code: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    med = lambda key: statistics.median(r[key] for r in runs)  # noqa: E731
    mid = sorted(runs, key=lambda r: r["open_s"])[len(runs) // 2]
    return {"label": label, "kb": kb_path, "code": code, "runs": runs, "load_s": med("load_s"), "open_s": med("open_s"),
            "rss_after_open_mib": med("rss_after_open_mib"), "peak_during_open_mib": med("peak_during_open_mib"),
            "rss_after_searches_mib": med("rss_after_searches_mib"),
            "matrix_mib": runs[0]["matrix_mib"], "first_ms": mid["first_ms"], "later_p50_ms": mid["later_p50_ms"],
            "stored_bm25": runs[0]["stored_bm25"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kb", action="append", default=[], help="LABEL=ARTIFACT@CODE_ROOT (repeatable; the first is the baseline)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-sparse", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--code", default=".", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.code, not args.no_sparse)))
        return
    specs = []
    for spec in args.kb:
        label, rest = spec.split("=", 1)
        specs.append((label, *(rest.rsplit("@", 1) if "@" in rest else (rest, "."))))
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label, _, _ in specs}
    for _ in range(args.repeat):  # interleaved, so a change in the machine's load falls on every variant alike
        for label, kb_path, code in specs:
            runs[label].append(one_run(kb_path, code, not args.no_sparse))
    results = []
    for label, kb_path, code in specs:
        results.append(summary(label, kb_path, code, runs[label]))
        r = results[-1]
        each = ", ".join(f"{x['open_s']:.2f}" for x in r["runs"])
        arms = ", ".join(f"{arm} {r['first_ms'][arm]:.0f}/{r['later_p50_ms'][arm]:.1f}" for arm in r["first_ms"])
        print(f"{label:>14}: store load {r['load_s']:.2f} s, open {r['open_s']:.2f} s ({each}), "
              f"RSS +{r['rss_after_open_mib']:.0f} MiB (peak +{r['peak_during_open_mib']:.0f}; matrix {r['matrix_mib']:.0f} MiB, "
              f"{r['rss_after_open_mib'] / r['matrix_mib']:.2f}×; +{r['rss_after_searches_mib']:.0f} after the searches); "
              f"first/later p50 ms: {arms}; stored BM25 {r['stored_bm25']}",
              flush=True)
    base = results[0]
    for r in results[1:]:
        print(f"{r['label']} vs {base['label']}: open {base['open_s'] / r['open_s']:.1f}× faster, "
              f"RSS {r['rss_after_open_mib'] / base['rss_after_open_mib']:.2f}× of the baseline's, "
              f"search p50 {r['later_p50_ms']['search'] / base['later_p50_ms']['search']:.2f}× the baseline's")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
