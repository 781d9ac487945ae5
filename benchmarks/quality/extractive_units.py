"""How many units the extractive answer quotes, and at what cost in facts: ``extractive.MAX_UNITS`` against no cap.

A third unit's spans can match a question's words as well as the first two's and still read as unrelated to a
reader. For every answerable labelled question with answer facts (retrieved once, the set's own questions left out
of the exemplars, as ``unitrag eval`` does), the answer is chosen twice in the same run, uncapped and with the
shipped cap, and counted: facts stated, units quoted, units quoted that are not among the question's
``expected_units``, characters quoted. Accuracy, not time: the load does not matter.

Usage (a built artifact, then one or more labelled question files)::

    .venv/bin/python benchmarks/quality/extractive_units.py dist/kb.duckdb content/eval/questions.yaml
"""

from __future__ import annotations

import argparse
from pathlib import Path

UNCAPPED = 10**6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb", type=Path, help="a built artifact")
    parser.add_argument("questions", type=Path, nargs="+", help="labelled questions (those with answer facts are used)")
    args = parser.parse_args()

    from unitrag.config import Config
    from unitrag.content.registry import load_questions
    from unitrag.eval.answer_facts import missing_facts
    from unitrag.rag.answer import extractive as E
    from unitrag.rag.calibrate.calibration import user_context
    from unitrag.rag.knowledge_base import KnowledgeBase, _Retrieved

    kb = KnowledgeBase.open(args.kb, config=Config(llm="none"))
    caps = {"no cap": UNCAPPED, f"MAX_UNITS = {E.MAX_UNITS}": E.MAX_UNITS}
    totals = {name: [0, 0, 0, 0, 0] for name in caps}  # facts stated, facts, units quoted, outside the labels, chars
    shipped = E.MAX_UNITS
    try:
        for path in args.questions:
            questions = [lq.question for lq in load_questions([path], [])
                         if lq.question.answerable and lq.question.answer_facts]
            with kb.retriever.exemplars_without([q.question for q in questions]):
                for q in questions:
                    step = kb._retrieve_for_answer(q.question, user_context(q), q.lang)
                    quotes, focus = None, None
                    if isinstance(step, _Retrieved):
                        focus, lexicon = step.focus
                        quotes = E.candidates(focus, step.result.sources, lexicon)
                    for name, cap in caps.items():
                        total = totals[name]
                        total[1] += len(q.answer_facts)
                        if quotes is None or focus is None:
                            continue  # answered "not found": states nothing
                        E.MAX_UNITS = cap
                        lang = E.answer_lang(q.lang)
                        chosen = E.choose(quotes, lang, focus.asks_list, focus.own, focus.bridge)
                        text = "\n".join(E.quoted_lines(chosen, lang, None))
                        units = {c.source.unit_id for c in chosen}
                        total[0] += len(q.answer_facts) - len(missing_facts(text, q.answer_facts))
                        total[2] += len(units)
                        total[3] += len(units - set(q.expected_units)) if q.expected_units else 0
                        total[4] += len(text)
    finally:
        E.MAX_UNITS = shipped
    for name, (stated, facts, units, outside, chars) in totals.items():
        print(f"{name:14} facts stated {stated}/{facts}  units quoted {units}  outside the labels {outside}  "
              f"characters {chars}")


if __name__ == "__main__":
    main()
