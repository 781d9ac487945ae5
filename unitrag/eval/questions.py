"""The knowledge base's own labelled questions: retrieval, "not found", the guard, leaks, citations.

Each question goes the way ``ask`` takes it. The guard first: a question it stops is
scored only against its ``guard`` label. Then every variant ranks it (answerable ones
are scored against their expected units), and ``ask`` decides "not found" and, when
an LLM is configured, generates an answer whose citations are checked.

A restricted-content leak is a restricted chunk in anything an anonymous caller got:
any variant's ranking, or the sources of an answer. Questions asked holding the
restricted role are also searched anonymously, since their answer units are the restricted ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..content.labelled_question import LabelledQuestion
from ..rag.calibrate.calibration import user_context
from ..rag.store.exemplars import AUTHORED_ANSWERS
from ..rag.types import Source, UserContext
from .fact_report import answer_texts, fact_figures, fact_row
from .guard_report import guard_figures, guard_row
from .metrics import MEASURES, score_rankings
from .report import EvalProgress, EvalReport, VariantResult, precision_recall
from .variants import VARIANTS, Variant, rank, warm_up

TOP_SHOWN = 5


def evaluate_questions(
    kb: Any, questions: Sequence[LabelledQuestion], variants: list[Variant], progress: EvalProgress | None = None,
    dataset: str = "questions",
) -> EvalReport:
    """Score ``kb`` on labelled questions; with ``kb.config.llm`` set, generated answers are checked too.

    The set's own questions are left out of the answerability exemplars (rag.store.exemplars) while it is
    scored: a dev question must not be its own neighbour (a held-out one never is one).
    """
    with kb.retriever.exemplars_without([q.question for q in questions]):
        return _evaluate(kb, questions, variants, progress, dataset)


def _evaluate(
    kb: Any, questions: Sequence[LabelledQuestion], variants: list[Variant], progress: EvalProgress | None, dataset: str,
) -> EvalReport:
    depth = kb.config.dense_k
    rankings: dict[str, dict[str, list[str]]] = {v.name: {} for v in variants}
    seconds = dict.fromkeys(rankings, 0.0)
    rows, leaks, answers = [], [], []
    embedding_s = warm_up(kb, [q.question for q in questions], variants, depth)
    unit_langs = unit_languages(kb.store)
    llm_configured = kb._get_llm() is not None
    for n, q in enumerate(questions, start=1):
        user = user_context(q)
        guard_timings: dict[str, float] = {}
        got_guard = kb.screen(q.question, q.lang, guard_timings, user)
        row: dict[str, Any] = {"id": q.id, "lang": q.lang, "label": _label(q), "category": category(q, unit_langs),
                               "question": q.question,
                               "guard": guard_row(q, got_guard, guard_timings.get("guard", 0.0))}
        if got_guard is None or not got_guard.stops:  # a caution is answered as any question (with its note)
            row["variants"] = {}
            for variant in variants:
                ranking = rank(kb, q.question, variant, depth, user)
                seconds[variant.name] += ranking.seconds
                rankings[variant.name][q.id] = ranking.units
                row["variants"][variant.name] = {"top": ranking.units[:TOP_SHOWN]}
                leaks += _leaks(q, variant.name, ranking.sources, user, kb.restricted_role)
            if user.holds(kb.restricted_role):
                leaks += _leaks(q, "full (anonymous)", rank(kb, q.question, VARIANTS["full"], depth).sources, UserContext(),
                                kb.restricted_role)
            # asked as a caller asks, naming no language: the label's ``lang`` is the question's, for the figures, and
            # an English-only help desk's eval scored a Chinese-framed answer its readers never got
            answer = kb.ask(q.question, user=user)
            leaks += _leaks(q, "ask", answer.sources, user, kb.restricted_role)
            row["not_found"] = {"expected": q.unanswerable, "got": answer.not_found}
            # what the reader got, whole, and what the gate read of it: an author reading why a near miss was answered,
            # or a covered question refused, had to ask each one again (a new team's campground, stop 58)
            row["reply"], row["gate"] = answer.answer, answer.gate
            if answer.sources and answer.sources[0].scores.get("authored", 0.0) >= AUTHORED_ANSWERS:
                row["near_copy"] = True  # of a unit's own question: answered whatever the gate (rag.store.exemplars)
            if not answer.not_found and answer.faithfulness is not None:
                answers.append(answer)
                row["answer"] = {"extractive": answer.extractive, "cited": answer.faithfulness.valid_ids,
                                 "invalid": answer.faithfulness.invalid_ids,
                                 "uncited_long": answer.faithfulness.uncited_long_answer}
            if q.answer_facts:
                focus = kb.retriever.focus(q.question, user) if llm_configured else None  # only the LLM mode rebuilds it
                row["answer_facts"] = fact_row(q, answer_texts(answer, llm_configured, focus))
        elif q.answer_facts:  # stopped by the guard: every mode shows the guard's response
            row["answer_facts"] = fact_row(q, dict.fromkeys(("extractive", "llm") if llm_configured else ("extractive",),
                                                            got_guard.response))
        rows.append(row)
        if progress is not None:
            progress("questions", n, len(questions))
    qrels = {q.id: dict.fromkeys(q.expected_units, 1) for q in questions if q.answerable}
    results = {}
    for variant in variants:
        if not qrels:  # a guard-only set (eval/guard_test.yaml): nothing to rank against
            results[variant.name] = VariantResult(variant.name, variant.description, dict.fromkeys(MEASURES, 0.0), 0,
                                                  seconds[variant.name])
            continue
        scores = score_rankings(rankings[variant.name], qrels)
        results[variant.name] = VariantResult(variant.name, variant.description, scores.means, scores.n, seconds[variant.name])
        for row in rows:
            if row["id"] in scores.per_query and "variants" in row:  # an answerable question the guard stopped has none
                row["variants"][variant.name].update({k: round(v, 4) for k, v in scores.per_query[row["id"]].items()})
    extra = {
        "not_found": _not_found(rows), "guard": _guard(rows), "guard_rules": guard_figures(rows), "restricted_leaks": leaks,
        "generation": _generation(kb, answers), "answer_facts": fact_figures(rows),
        "by_category": by_category(rows, variants[-1].name),
        "near_copies": [row["id"] for row in rows if row.get("near_copy")],
    }
    pipeline = {"embedder": kb.store.manifest["embedder"]["id"], "reranker": kb.config.reranker, "sparse": kb.config.sparse,
                "chunks": len(kb.store), "depth": depth,
                "query_embedding_qps": round(len(questions) / embedding_s, 1) if embedding_s else None}
    return EvalReport("questions", dataset, pipeline, results, rows, extra)


def unit_languages(store: Any) -> dict[str, set[str]]:
    """unit id (and story id) → the languages of its chunks."""
    langs: dict[str, set[str]] = {}
    for i in range(len(store)):
        for uid in (store.columns["unit_id"][i], store.columns["story_id"][i]):
            if uid:
                langs.setdefault(uid, set()).add(str(store.lang[i]))
    return langs


def category(q: LabelledQuestion, unit_langs: dict[str, set[str]]) -> str:
    """What a question tests: its ``category`` (test set), else derived the same way from its labels.

    cross_en_zh: asked in English, answered only by Chinese units (and the reverse); restricted:
    asked holding the restricted role; user_context: with a current topic, triggered rules or recent scenes.
    """
    if q.category is not None:
        return q.category
    if q.guard is not None:
        return f"guard_{q.guard}"
    if q.unanswerable:
        return "unanswerable"
    if q.user is not None and q.user.roles:  # validation allows the knowledge base's restricted role only
        return "restricted"
    if q.user is not None:
        return "user_context"
    langs = set().union(*(unit_langs.get(u, set()) for u in q.expected_units))
    if q.lang in langs or not langs:
        return "same_lang"
    return f"cross_{q.lang}_{sorted(langs)[0]}"


def by_category(rows: list[dict[str, Any]], variant: str) -> dict[str, dict[str, Any]]:
    """Per category: questions, Success@5 of ``variant`` (answerable ones), and how often "not found" was said."""
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        cat = out.setdefault(row["category"], {"questions": 0, "hits": 0, "ranked": 0, "not_found": 0, "asked": 0})
        cat["questions"] += 1
        scored = row.get("variants", {}).get(variant, {})
        if "success@5" in scored:
            cat["ranked"] += 1
            cat["hits"] += scored["success@5"] > 0
        elif row["label"] == "answerable" and "variants" not in row:  # stopped by the guard: a miss
            cat["ranked"] += 1
        if "not_found" in row:
            cat["asked"] += 1
            cat["not_found"] += bool(row["not_found"]["got"])
    for cat in out.values():
        category_shares(cat)
    return dict(sorted(out.items()))


def category_shares(cat: dict[str, Any]) -> None:
    """A category's Success@5 and share answered "not found", from its counts (``hits``, ``ranked``, ``not_found``,
    ``asked``): one file's, or several pooled (``pooled``)."""
    cat["success@5"] = round(cat["hits"] / cat["ranked"], 4) if cat["ranked"] else None
    cat["not_found_rate"] = round(cat["not_found"] / cat["asked"], 4) if cat["asked"] else None


def _label(q: LabelledQuestion) -> str:
    return "answerable" if q.answerable else "unanswerable" if q.unanswerable else f"guard:{q.guard}"


def _leaks(q: LabelledQuestion, where: str, sources: list[Source], user: UserContext, role: str) -> list[dict[str, str]]:
    if user.holds(role):
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
    """The guard as a detector: a hit is the expected outcome type; any other stop is a false alarm.

    Only stops count: a ``pass`` or ``caution`` label expects none, and a caution outcome is none."""
    def stop(label: str | None) -> str | None:
        return None if label in ("pass", "caution") else label

    pairs = [(stop(r["guard"]["expected"]), stop(r["guard"]["got"])) for r in rows]
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
