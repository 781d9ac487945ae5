"""The knowledge base's own labelled questions: retrieval, "not found", the guard, leaks, citations.

Each question goes the way ``ask`` takes it. The guard first: a question it stops is
scored only against its ``guard`` label. Then every variant ranks it (answerable ones
are scored against their expected units), and ``ask`` decides "not found" and, when
an LLM is configured, generates an answer whose citations are checked.

A restricted-content leak is a clinician-only chunk in anything an anonymous caller
got: any variant's ranking, or the sources of an answer. Questions asked as a
clinician are also searched anonymously, since their answer units are the restricted ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..content.models import LabelledQuestion
from ..rag.calibrate import user_context
from ..rag.types import Source, UserContext
from .metrics import score_rankings
from .report import EvalProgress, EvalReport, VariantResult, precision_recall
from .variants import VARIANTS, Variant, rank, warm_up

TOP_SHOWN = 5


def evaluate_questions(
    kb: Any, questions: Sequence[LabelledQuestion], variants: list[Variant], progress: EvalProgress | None = None,
    dataset: str = "questions",
) -> EvalReport:
    """Score ``kb`` on labelled questions; with ``kb.config.llm`` set, generated answers are checked too."""
    depth = kb.config.dense_k
    rankings: dict[str, dict[str, list[str]]] = {v.name: {} for v in variants}
    seconds = dict.fromkeys(rankings, 0.0)
    rows, leaks, answers = [], [], []
    embedding_s = warm_up(kb, [q.question for q in questions], variants, depth)
    for n, q in enumerate(questions, start=1):
        user = user_context(q)
        got_guard = kb.guard.check(q.question, q.lang)
        row: dict[str, Any] = {"id": q.id, "lang": q.lang, "label": _label(q), "question": q.question,
                               "guard": {"expected": q.guard, "got": got_guard.type if got_guard else None}}
        if got_guard is None:
            row["variants"] = {}
            for variant in variants:
                ranking = rank(kb, q.question, variant, depth, user)
                seconds[variant.name] += ranking.seconds
                rankings[variant.name][q.id] = ranking.units
                row["variants"][variant.name] = {"top": ranking.units[:TOP_SHOWN]}
                leaks += _leaks(q, variant.name, ranking.sources, user)
            if user.is_clinician:
                leaks += _leaks(q, "full (anonymous)", rank(kb, q.question, VARIANTS["full"], depth).sources, UserContext())
            answer = kb.ask(q.question, user=user, lang=q.lang)
            leaks += _leaks(q, "ask", answer.sources, user)
            row["not_found"] = {"expected": q.unanswerable, "got": answer.not_found}
            if not answer.not_found and answer.faithfulness is not None:
                answers.append(answer)
                row["answer"] = {"extractive": answer.extractive, "cited": answer.faithfulness.valid_ids,
                                 "invalid": answer.faithfulness.invalid_ids,
                                 "uncited_long": answer.faithfulness.uncited_long_answer}
        rows.append(row)
        if progress is not None:
            progress("questions", n, len(questions))
    qrels = {q.id: dict.fromkeys(q.expected_units, 1) for q in questions if q.answerable}
    results = {}
    for variant in variants:
        scores = score_rankings(rankings[variant.name], qrels)
        results[variant.name] = VariantResult(variant.name, variant.description, scores.means, scores.n, seconds[variant.name])
        for row in rows:
            if row["id"] in scores.per_query:
                row["variants"][variant.name].update({k: round(v, 4) for k, v in scores.per_query[row["id"]].items()})
    extra = {
        "not_found": _not_found(rows), "guard": _guard(rows), "restricted_leaks": leaks,
        "generation": _generation(kb, answers),
    }
    pipeline = {"embedder": kb.store.manifest["embedder"]["id"], "reranker": kb.config.reranker, "sparse": kb.config.sparse,
                "chunks": len(kb.store), "depth": depth,
                "query_embedding_qps": round(len(questions) / embedding_s, 1) if embedding_s else None}
    return EvalReport("questions", dataset, pipeline, results, rows, extra)


def _label(q: LabelledQuestion) -> str:
    return "answerable" if q.answerable else "unanswerable" if q.unanswerable else f"guard:{q.guard}"


def _leaks(q: LabelledQuestion, where: str, sources: list[Source], user: UserContext) -> list[dict[str, str]]:
    if user.is_clinician:
        return []
    return [{"question": q.id, "where": where, "chunk_id": s.chunk_id, "access": s.access} for s in sources if s.access != "public"]


def _not_found(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """"Not found" as a detector of unanswerable questions, over the questions the guard let through."""
    judged = [r["not_found"] for r in rows if "not_found" in r and r["guard"]["expected"] is None]
    tp = sum(j["got"] and j["expected"] for j in judged)
    fp = sum(j["got"] and not j["expected"] for j in judged)
    fn = sum(not j["got"] and j["expected"] for j in judged)
    return {**precision_recall(tp, fp, fn), "questions": len(judged), "unanswerable": sum(j["expected"] for j in judged)}


def _guard(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The guard as a detector: a hit is the expected outcome type; any other stop is a false alarm."""
    pairs = [(r["guard"]["expected"], r["guard"]["got"]) for r in rows]
    tp = sum(e is not None and e == g for e, g in pairs)
    fp = sum(g is not None and e != g for e, g in pairs)
    fn = sum(e is not None and e != g for e, g in pairs)
    return {**precision_recall(tp, fp, fn), "expected": sum(e is not None for e, _ in pairs)}


def _generation(kb: Any, answers: list[Any]) -> dict[str, Any] | None:
    """Citation validity and uncited long answers; only when an LLM writes the answers."""
    llm = kb._get_llm()
    if llm is None:
        return None
    valid = sum(len(a.faithfulness.valid_ids) for a in answers)
    cited = valid + sum(len(a.faithfulness.invalid_ids) for a in answers)
    return {
        "llm": getattr(llm, "id", kb.config.llm), "answers": len(answers),
        "citation_validity": round(valid / cited, 4) if cited else None,
        "uncited_long_share": round(sum(a.faithfulness.uncited_long_answer for a in answers) / len(answers), 4) if answers else None,
        "corrective_retries": sum(a.llm_calls == 2 for a in answers),
        "extractive_fallbacks": sum(a.extractive for a in answers),
        "llm_errors": sorted({a.llm_error for a in answers if a.llm_error}),
    }
