"""Where does "one span states the question whole" (rag/stated_questions.py) hold, and for which labels?

Usage (each folder built with ``unitrag build``; its content/eval/questions*.yaml are read)::

    .venv/bin/python benchmarks/quality/stated_questions.py . examples/* benchmarks/teams/*

Every labelled question is searched as ``ask`` searches it (anonymously, or with the context it names; those the
guard stops are left out). Printed: per label (answerable, unanswerable) and per gate decision, how many questions
one span of the first sources states whole, then each such question the gate alone refused or that is unanswerable.
A rule that answers whatever the gate says must hold for no unanswerable question.
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path

from unitrag.config import load_config
from unitrag.content.registry import load_questions
from unitrag.content.text.lang import detect_lang
from unitrag.rag.calibrate.calibration import user_context
from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.rag.stated_questions import states_the_question


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    args = parser.parse_args()
    counts: Counter[tuple[str, str]] = Counter()
    asked = 0
    start = Path.cwd()
    for folder in (f.resolve() for f in args.folders if f.is_dir()):
        os.chdir(folder)
        try:
            config = load_config()
            kb = KnowledgeBase.open(folder / config.artifact, config=config)
            problems: list = []
            for item in load_questions(sorted(Path("content/eval").glob("questions*.yaml")), problems):
                q = item.question
                user = user_context(q)
                stopped = kb.screen(q.question, detect_lang(q.question), None, user)
                if q.guard is not None or (stopped is not None and stopped.stops):
                    continue
                sources = kb.search(q.question, user=user).sources
                asked += 1
                if not sources or not states_the_question(q.question, sources):
                    continue
                label = "answerable" if q.answerable else "unanswerable"
                gate = "gate answers" if kb.retriever.answerable(sources) else "gate refuses"
                counts[(label, gate)] += 1
                if gate == "gate refuses" or not q.answerable:
                    print(f"{label:<12} {gate:<12} {folder.name}/{Path(item.path).name}: {q.question}")
        finally:
            os.chdir(start)
    print(f"\n{asked} questions searched; one span states the question whole for:")
    for (label, gate), n in sorted(counts.items()):
        print(f"  {label:<12} {gate:<12} {n}")


if __name__ == "__main__":
    main()
