"""How near labelled questions come to an author's question of a unit: the figures behind ``AUTHORED_ANSWERS``.

Usage (after ``unitrag build``; from the repository root, or from an example's folder with its artifact)::

    .venv/bin/python benchmarks/quality/authored_question_cosines.py dist/kb.duckdb content/eval/questions.yaml ...

For every labelled question asked anonymously and without a guard label, the best cosine to an author's
question of a public unit (the knowledge base's own ``questions:``), in one language as the rule compares
them, and lifted by the cross-language correction for comparison. Prints, per threshold, how many
answerable and how many unanswerable questions reach it, and the unanswerable ones nearest it
(docs/benchmarks/quality.md, "An author's own question is answered").
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from unitrag.config import Config
from unitrag.content.registry import load_questions
from unitrag.content.text.lang import detect_lang
from unitrag.rag.knowledge_base import KnowledgeBase

THRESHOLDS = (0.93, 0.94, 0.95, 0.96, 0.97)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb")
    parser.add_argument("questions", nargs="+", type=Path)
    args = parser.parse_args()
    kb = KnowledgeBase.open(args.kb, config=Config(llm="none"))
    exemplars, crosslingual = kb.retriever.exemplars, kb.retriever.crosslingual
    if exemplars is None:
        raise SystemExit(f"{args.kb} holds no authors' questions of units")
    public = exemplars.authored & ~exemplars.clinician
    vectors, langs = exemplars.vectors[public], exemplars.langs[public]
    rows = []
    for loaded in load_questions(args.questions, []):
        q = loaded.question
        if q.guard is not None or q.user is not None:
            continue
        cosines = vectors @ kb.encoder.encode(q.question)
        lifted = cosines.copy()
        lang = detect_lang(q.question)
        if crosslingual is not None:
            for other in set(langs.tolist()) - {lang}:
                lifted = np.where(langs == other, cosines + crosslingual.offset(q.question, other), lifted)
        rows.append((q.answerable, float(cosines.max()), float(lifted.max()), q.question))
    answerable = sum(r[0] for r in rows)
    print(f"{len(rows)} questions ({answerable} answerable, {len(rows) - answerable} unanswerable)")
    for threshold in THRESHOLDS:
        reach = [r for r in rows if r[1] >= threshold]
        reach_lifted = [r for r in rows if r[2] >= threshold]
        print(f"cosine ≥ {threshold}: answerable {sum(r[0] for r in reach)}, unanswerable {sum(not r[0] for r in reach)}"
              f" | lifted across languages: answerable {sum(r[0] for r in reach_lifted)}, "
              f"unanswerable {sum(not r[0] for r in reach_lifted)}")
    nearest = sorted((r for r in rows if not r[0]), key=lambda r: -r[1])[:5]
    print("unanswerable questions nearest an author's question:")
    for _, cosine, _, text in nearest:
        print(f"  {cosine:.3f}  {text[:90]}")


if __name__ == "__main__":
    main()
