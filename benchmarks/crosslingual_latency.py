"""``ask`` latency (hot, extractive) with the cross-lingual probes on and off, interleaved in one process.

Usage (from the repository root, after ``unitrag build``)::

    .venv/bin/python benchmarks/crosslingual_latency.py [dist/kb.duckdb] [--questions 60] [--passes 3]

Each of the first N dev questions the guard lets through is asked once with the probes and once
without (``kb.retriever.crosslingual = None``) to warm every cache, then ``--passes`` times each
way, alternating, so load on shared cores hits both alike. p50 and p95 in ms.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from measure import p50_p95
from unitrag.config import Config
from unitrag.content.registry import load_questions
from unitrag.rag.knowledge_base import KnowledgeBase


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb", nargs="?", default="dist/kb.duckdb")
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    kb = KnowledgeBase.open(args.kb, config=Config(llm="none"))
    labelled = load_questions([Path("content/eval/questions.yaml")], [])
    questions = [lq.question.question for lq in labelled if lq.question.guard is None][: args.questions]
    probes = kb.retriever.crosslingual
    timings: dict[str, list[float]] = {"on": [], "off": []}
    for n in range(args.passes + 1):
        for question in questions:
            for name, value in (("on", probes), ("off", None)):
                kb.retriever.crosslingual = value
                started = time.perf_counter()
                kb.ask(question)
                if n:  # the first pass warms the caches
                    timings[name].append((time.perf_counter() - started) * 1000)
    kb.retriever.crosslingual = probes
    for name, values in timings.items():
        p = p50_p95(values)
        print(f"probes {name:3s}: p50 {p['p50']:.2f} ms, p95 {p['p95']:.2f} ms ({p['n']} asks)")


if __name__ == "__main__":
    main()
