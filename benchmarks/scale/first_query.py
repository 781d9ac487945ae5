"""A knowledge base's first search against the same question asked later, in fresh processes, two code trees.

``KnowledgeBase.open`` should leave nothing for the first question to pay (issue 14: "first query as
fast as later ones"). Each measurement is a fresh process that opens the artifact (``ChunkStore.load``
and a ``KnowledgeBase`` over a stub query embedder, as ``open_scale.py``), then times one search of
question Q: "first" asks Q first, "later" asks the other questions first. Different questions cost
differently, so a question is only compared with itself. Code trees alternate, so load on shared
cores falls on both alike.

    git archive HEAD~1 unitrag | tar -x -C /tmp/base
    .venv/bin/python benchmarks/scale/first_query.py --kb /tmp/kb-100k.duckdb --code base=/tmp/base --code this=. --repeat 4
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

QUESTIONS = ["How much vitamin D do older adults need?", "Does metformin lower vitamin B12?", "iron deficiency in pregnancy",
             "老年人每天需要多少维生素D？", "孕妇缺铁怎么办", "folate and neural tube defects"]
TIMED = (0, 2, 4)  # the questions timed first and later (two English, one Chinese)


def child(kb_path: str, code: str, question: int, later: bool) -> float:
    """ms of one search of QUESTIONS[question], first in this process or after the others."""
    sys.path.insert(0, str(Path(code).resolve()))
    from open_scale import stub_encoder
    from unitrag.config import Config
    from unitrag.rag.knowledge_base import KnowledgeBase
    from unitrag.rag.store.artifact_store import ChunkStore

    kb = KnowledgeBase(ChunkStore.load(Path(kb_path)), stub_encoder(kb_path), Config(llm="none"))
    if later:
        for i, q in enumerate(QUESTIONS):
            if i != question:
                kb.search(q)
    started = time.perf_counter()
    kb.search(QUESTIONS[question])
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kb", required=True)
    parser.add_argument("--code", action="append", default=[], help="LABEL=CODE_ROOT (repeatable; the first is the baseline)")
    parser.add_argument("--repeat", type=int, default=4)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)  # CODE QUESTION first|later
    args = parser.parse_args()
    if args.child:
        code, question, when = args.child
        print(child(args.kb, code, int(question), when == "later"))
        return
    codes = [spec.split("=", 1) for spec in args.code] or [["this", "."]]
    times: dict[tuple[str, int, str], list[float]] = {}
    for _ in range(args.repeat):
        for question in TIMED:
            for when in ("first", "later"):
                for label, code in codes:
                    out = subprocess.run([sys.executable, __file__, "--kb", args.kb, "--child", code, str(question), when],
                                         capture_output=True, text=True, check=True).stdout
                    times.setdefault((label, question, when), []).append(float(out.strip().splitlines()[-1]))
    for label, _ in codes:
        cells = []
        for question in TIMED:
            first, later = (statistics.median(times[(label, question, w)]) for w in ("first", "later"))
            cells.append(f"Q{question} {first:.0f}/{later:.0f} ms ({first / later:.2f}×)")
        print(f"{label:>8}: first / later search, median of {args.repeat}: " + "; ".join(cells))


if __name__ == "__main__":
    main()
