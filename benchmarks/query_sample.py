"""Part 1 of ``query_latency.py``: the bundled sample content, built once, timed cold and hot through ``search`` and ``ask``."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from measure import omp_env
from query_embedder import fresh_query_cache
from query_stages import run_pass, summarize
from scifact_corpus import REPO


def build_sample(work: Path) -> tuple[Path, float]:
    """``unitrag build`` of the repository's content into ``work/sample``: (artifact, seconds)."""
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
    """Open, a first search, warm-up; then ``search`` and ``ask`` each with a cold query cache and ``repeat`` hot passes."""
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
