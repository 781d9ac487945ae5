"""What the question-focused extractive answer costs beyond search, cold (first sight of a chunk) and warm.

Issue 23 (item 2) replaced "the first sentences of the top three sources" by spans (sentences, list
items, table rows) of the top five sources scored against the question (``rag.answer.spans``, ``rag.answer.focus``).
For each labelled answerable question the search runs once; then, alternating per question, the
extractive answer is built with a fresh lexicon (every chunk read for the first time: a server's first
questions) and with a warm one (chunks already read: its steady state). The baseline, measured in the
same run on the same questions, is the search itself. Prints p50/p95 of each and the ratios.

Usage (from the repository root; needs a built artifact)::

    .venv/bin/python benchmarks/query/extractive_answer.py --kb dist/kb.duckdb --questions content/eval/questions.yaml
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path


def _quantiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=Path, required=True, help="a built artifact")
    parser.add_argument("--questions", type=Path, required=True, help="labelled questions (answerable ones are used)")
    args = parser.parse_args()

    from dataclasses import replace

    from unitrag.config import Config
    from unitrag.content.registry import load_questions
    from unitrag.rag.answer.extractive import extractive_answer
    from unitrag.rag.knowledge_base import KnowledgeBase

    kb = KnowledgeBase.open(args.kb, config=Config(llm="none"))
    questions = [lq.question for lq in load_questions([args.questions], []) if lq.question.answerable]
    search_ms, cold_ms, warm_ms = [], [], []
    for q in questions:
        started = time.perf_counter()
        sources = kb.search(q.question).sources
        search_ms.append((time.perf_counter() - started) * 1000)
        focus, lexicon = kb.retriever.focus(q.question)
        fresh = replace(lexicon, _readings={})
        started = time.perf_counter()
        extractive_answer(q.question, q.lang, sources, focus=(focus, fresh))
        cold_ms.append((time.perf_counter() - started) * 1000)
        extractive_answer(q.question, q.lang, sources, focus=(focus, lexicon))  # read once, then timed warm
        started = time.perf_counter()
        extractive_answer(q.question, q.lang, sources, focus=(focus, lexicon))
        warm_ms.append((time.perf_counter() - started) * 1000)
    search, cold, warm = _quantiles(search_ms), _quantiles(cold_ms), _quantiles(warm_ms)
    print(f"{len(questions)} questions, load average {os.getloadavg()[0]:.2f}")
    print(f"search (baseline)   p50 {search[0]:7.2f} ms  p95 {search[1]:7.2f} ms")
    print(f"extractive, cold    p50 {cold[0]:7.2f} ms  p95 {cold[1]:7.2f} ms  ({cold[0] / search[0]:.2f}x search)")
    print(f"extractive, warm    p50 {warm[0]:7.2f} ms  p95 {warm[1]:7.2f} ms  ({warm[0] / search[0]:.2f}x search)")


if __name__ == "__main__":
    main()
