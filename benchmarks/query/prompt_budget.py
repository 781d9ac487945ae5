"""What the bounded sandbox costs a prompt: the artifact's system + user templates rendered with real sources.

Issue 22 (item 7) moved prompt rendering into ``artifact.bounded_sandbox`` (every value and the output
checked against ``max_prompt_chars``). The baseline, measured in the same run and alternated with it, is
Jinja's plain ``SandboxedEnvironment`` rendering the same templates with the same variables (what
``rag.answer.prompt`` used before). Prints each median and the ratio.

Usage (from the repository root; needs a built artifact)::

    .venv/bin/python benchmarks/query/prompt_budget.py --kb dist/kb.duckdb
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=Path, required=True, help="a built artifact")
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--question", default="How much salt should adults eat per day?")
    args = parser.parse_args()

    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    from unitrag.config import Config
    from unitrag.rag.knowledge_base import KnowledgeBase
    from unitrag.rag.answer.prompt import build_messages, source_vars

    kb = KnowledgeBase.open(args.kb, config=Config(llm="none"))
    sources = kb.search(args.question, k=5).sources
    templates = kb.store.prompts
    plain = SandboxedEnvironment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False)
    system, user = plain.from_string(templates["system"]), plain.from_string(templates["user"])
    variables = {"question": args.question, "lang": "en", "sources": source_vars(sources),
                 "allowed_ids": sorted({c for s in sources for c in s.citation_ids or ()})}

    def bounded() -> None:
        build_messages(args.question, "en", sources, templates)

    def baseline() -> None:
        system.render(**variables).strip()
        user.render(**variables).strip()

    times: dict[str, list[float]] = {"bounded": [], "plain sandbox": []}
    for _ in range(args.rounds):
        for name, run in (("bounded", bounded), ("plain sandbox", baseline)):
            started = time.perf_counter()
            run()
            times[name].append((time.perf_counter() - started) * 1e6)
    print(f"load average {os.getloadavg()[0]:.2f}; {len(sources)} sources, "
          f"{sum(len(m['content']) for m in build_messages(args.question, 'en', sources, templates)):,} characters")
    for name, values in times.items():
        print(f"  {name:<14} median {statistics.median(values):8.1f} µs over {len(values)}")
    ratio = statistics.median(times["bounded"]) / statistics.median(times["plain sandbox"])
    print(f"  bounded / plain: {ratio:.2f}x")


if __name__ == "__main__":
    main()
