"""How well the extractive answer chooses its spans, against what choosing could reach.

For each answerable labelled question with answer facts, the question is retrieved once (the set's own
questions left out of the exemplars, as ``unitrag eval`` does), then the spans of its top five sources
are scored three ways and the quoted text is matched against the facts:

* ``now``: the extractive answer as shipped (``rag.answer.focus`` + ``rag.answer.extractive.choose``);
* ``dense xW``: the same, with each span's cosine to the question (the default embedder, the span
  embedded as a passage with its title and heading) added to its relevance at weight ``W``
  (×10 per 0.1 of cosine above 0.78) — span-level dense similarity, measured before building it;
* ``ceiling``: a greedy cover of the facts by the candidate spans within the same length budget and
  span count — what a perfect choice over the same candidates could state.

Prints "every fact stated" and fact recall per row. Accuracy, not time: the load does not matter.

Usage (from the repository root; needs a built artifact)::

    .venv/bin/python benchmarks/quality/extractive_span_choice.py --kb dist/kb.duckdb --questions content/eval/questions.yaml
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

DENSE_WEIGHTS = (0.5, 1.0, 2.0, 4.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=Path, required=True, help="a built artifact")
    parser.add_argument("--questions", type=Path, required=True, help="labelled questions (those with answer facts are used)")
    args = parser.parse_args()

    import numpy as np

    from unitrag.config import Config
    from unitrag.content.registry import load_questions
    from unitrag.eval.answer_facts import fact_stated, missing_facts
    from unitrag.rag.answer import extractive as E
    from unitrag.rag.calibrate.calibration import user_context
    from unitrag.rag.knowledge_base import KnowledgeBase, _Retrieved

    kb = KnowledgeBase.open(args.kb, config=Config(llm="none"))
    questions = [lq.question for lq in load_questions([args.questions], []) if lq.question.answerable and lq.question.answer_facts]
    cases = []
    with kb.retriever.exemplars_without([q.question for q in questions]):
        for q in questions:
            step = kb._retrieve_for_answer(q.question, user_context(q), q.lang)
            if isinstance(step, _Retrieved):
                focus, lexicon = step.focus
                cases.append((q, step.result.sources, focus, lexicon, kb.retriever.encoder.encode(q.question)))
            else:
                cases.append((q, None, None, None, None))
    embedder = kb.retriever.encoder.embedder
    vectors: dict[tuple[str, str], np.ndarray] = {}

    def span_cosine(quote: E.Quote, question_vector: np.ndarray) -> float:
        key = (quote.source.chunk_id, quote.span.words)
        if key not in vectors:
            text = f"{quote.source.title}: {quote.span.context} {quote.span.words}"
            vectors[key] = embedder.embed_passages([text])[0]
        return float(np.dot(vectors[key], question_vector))

    def score(choose_for) -> tuple[float, float]:
        every = stated = total = 0
        for q, sources, focus, lexicon, vector in cases:
            total += len(q.answer_facts)
            if sources is None:
                continue  # answered "not found": states nothing
            left = choose_for(q, E.candidates(focus, sources, lexicon), focus, vector)
            every += not left
            stated += len(q.answer_facts) - len(left)
        return every / len(cases), stated / total

    def shipped(q, quotes, focus, vector, weight=0.0):
        if weight:
            quotes = sorted((replace(c, relevance=c.relevance + (d := weight * (span_cosine(c, vector) - 0.78) * 10),
                                     score=c.score + d) for c in quotes), key=lambda c: (-c.score, c.rank, c.span.position))
        lang = E.answer_lang(q.lang)
        text = "\n".join(E.quoted_lines(E.choose(quotes, lang, focus.asks_list, focus.own, focus.bridge), lang, None))
        return missing_facts(text, q.answer_facts)

    def ceiling(q, quotes, focus, vector):
        left, used, budget = list(q.answer_facts), 0, E.BUDGET_CHARS[E.answer_lang(q.lang)]
        for _ in range(E.MAX_SPANS):
            fits = [(c, [f for f in left if fact_stated(f"{c.span.context} {c.span.words}", f)]) for c in quotes
                    if used + len(c.span.words) <= budget]
            best = max(fits, key=lambda pair: len(pair[1]), default=(None, []))
            if not best[1]:
                break
            left = [f for f in left if f not in best[1]]
            used += len(best[0].span.words)
        return left

    print(f"{args.questions}: {len(cases)} answerable questions with facts")
    rows = [("now", lambda *a: shipped(*a)), *((f"dense x{w}", lambda *a, w=w: shipped(*a, weight=w)) for w in DENSE_WEIGHTS),
            ("ceiling (greedy cover)", ceiling)]
    for name, choose_for in rows:
        every, recall = score(choose_for)
        print(f"{name:24} every fact {every:.3f}  fact recall {recall:.3f}")


if __name__ == "__main__":
    main()
