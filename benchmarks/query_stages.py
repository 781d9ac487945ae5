"""What one latency sample of ``KnowledgeBase.search`` / ``ask`` is, and how samples become p50/p95 per stage.

Shared by the parts of ``query_latency.py``: the questions it times, one timed pass over
them, the per-stage summary, and the way it starts its own fresh child processes (a cold
open or a cold model is only cold in a new process).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

import yaml

from measure import child_json, p50_p95

#: The stages ``search()`` / ``ask()`` report in ``timings_ms``, in pipeline order.
STAGES = ["guard", "broaden", "embed", "dense", "sparse", "fuse", "rerank", "postprocess", "generate", "total"]
ENTRY = Path(__file__).resolve().with_name("query_latency.py")


def run_child(args: list[str], env_extra: dict[str, str] | None = None) -> dict[str, Any]:
    """``query_latency.py`` with a hidden ``--child-*`` flag in a fresh process; its JSON line."""
    return child_json(ENTRY, args, env_extra)


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


def run_pass(call: Callable[[str], Any], questions: list[str]) -> list[dict[str, Any]]:
    """One timed call per question: the stages it reports, the wall time around it, how many queries it ran."""
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

