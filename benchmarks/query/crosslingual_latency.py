"""``ask`` latency (hot, extractive) with one part of the query path on and off, interleaved in one process.

Usage (from the repository root, after ``unitrag build``)::

    .venv/bin/python benchmarks/query/crosslingual_latency.py [dist/kb.duckdb] [--questions 60] [--passes 3] [--part probes]

``--part probes``: the cross-lingual probes (``kb.retriever.crosslingual``); ``--part exemplars``: the
answerability exemplars (``kb.retriever.exemplars``). Each of the first N dev questions the guard lets
through is asked once with the part and once without (the attribute set to None) to warm every cache,
then ``--passes`` times each way, alternating, so load on shared cores hits both alike. p50 and p95 in ms.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks" / "common"))  # the shared helpers

from measure import p50_p95  # noqa: E402
from unitrag.config import Config  # noqa: E402
from unitrag.content.registry import load_questions  # noqa: E402
from unitrag.rag.knowledge_base import KnowledgeBase  # noqa: E402


#: What ``--part`` switches off: an attribute of the knowledge base's retriever.
PARTS = {"probes": "crosslingual", "exemplars": "exemplars"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb", nargs="?", default="dist/kb.duckdb")
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--part", choices=sorted(PARTS), default="probes")
    args = parser.parse_args()
    kb = KnowledgeBase.open(args.kb, config=Config(llm="none"))
    labelled = load_questions([REPO / "content/eval/questions.yaml"], [])
    questions = [lq.question.question for lq in labelled if lq.question.guard is None][: args.questions]
    attribute = PARTS[args.part]
    part = getattr(kb.retriever, attribute)
    timings: dict[str, list[float]] = {"on": [], "off": []}
    for n in range(args.passes + 1):
        for question in questions:
            for name, value in (("on", part), ("off", None)):
                setattr(kb.retriever, attribute, value)
                started = time.perf_counter()
                kb.ask(question)
                if n:  # the first pass warms the caches
                    timings[name].append((time.perf_counter() - started) * 1000)
    setattr(kb.retriever, attribute, part)
    for name, values in timings.items():
        p = p50_p95(values)
        print(f"{args.part} {name:3s}: p50 {p['p50']:.2f} ms, p95 {p['p95']:.2f} ms ({p['n']} asks)")


if __name__ == "__main__":
    main()
