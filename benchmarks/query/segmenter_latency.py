"""``ask`` latency with jieba's hashed dictionary (what a knowledge base loads) against its full dict.

Each run is a fresh process that loads one of the two, opens the artifact, answers the first
``--questions`` dev questions twice (hot, extractive, no LLM) and reports the p50 of each pass:
the first pass segments everything for the first time, the second finds the hashed
dictionary's lookups remembered. Processes alternate (lean, full, lean, full...).

    .venv/bin/python benchmarks/query/segmenter_latency.py --kb dist/kb.duckdb --runs 2
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

QUESTIONS = Path(__file__).resolve().parents[2] / "content" / "eval" / "questions.yaml"

_CHILD = r"""
import json, statistics, sys, time, yaml
lean, kb_path, n = sys.argv[1] == "lean", sys.argv[2], int(sys.argv[3])
from unitrag.content.text import tokenize
tokenize.load_segmenter(lean=lean)
from unitrag.config import Config
from unitrag.rag.knowledge_base import KnowledgeBase
kb = KnowledgeBase.open(kb_path, config=Config(llm="none"))
questions = [q["question"] for q in yaml.safe_load(open(sys.argv[4], encoding="utf-8"))][:n]
passes = []
for _ in range(2):
    times = []
    for q in questions:
        t = time.perf_counter(); kb.ask(q); times.append((time.perf_counter() - t) * 1000)
    passes.append(statistics.median(times))
rss = int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) // 1024
print(json.dumps({"first_p50_ms": passes[0], "second_p50_ms": passes[1], "rss_mib": rss,
                  "segmenter": type(getattr(tokenize._jieba, "FREQ", None) or tokenize._jieba.dt.FREQ).__name__}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", default="dist/kb.duckdb")
    parser.add_argument("--questions", type=int, default=80)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    for run in range(args.runs):
        for mode in ("lean", "full"):
            done = subprocess.run([sys.executable, "-c", _CHILD, mode, args.kb, str(args.questions), str(QUESTIONS)],
                                  capture_output=True, text=True, check=True)
            row = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"run {run + 1} {mode:4} ({row['segmenter']}): ask p50 first pass {row['first_p50_ms']:.1f} ms, "
                  f"second {row['second_p50_ms']:.1f} ms, RSS {row['rss_mib']} MiB")


if __name__ == "__main__":
    main()
