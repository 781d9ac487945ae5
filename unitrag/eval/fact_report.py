"""Answer facts in an evaluation: does each answer mode state what a labelled question's ``answer_facts`` list?

Ranking and "not found" say whether the right unit was found; this says whether the reader was told.
Each mode is scored on the text a reader sees, citation tags stripped:

- ``extractive``: the answer without an LLM (what the demo, an app without a key and every outage show);
- ``llm``: with ``--llm``, the answer ``ask`` returns (the LLM's, or the extractive fallback when it failed).

A question counts once per mode when it has facts; one the guard stopped or answered "not found"
states none of them. Questions without facts are left out (the report says how many had facts).
"""

from __future__ import annotations

from typing import Any

from ..content.labelled_question import LabelledQuestion
from ..content.text.excerpt import excerpt
from ..rag.answer.citations import strip_citations
from ..rag.answer.extractive import extractive_answer
from .answer_facts import missing_facts

MODES = ("extractive", "llm")
#: Failing questions listed per mode in the table output (JSON and Markdown list all of them).
SHOWN_FAILING = 15
#: The most of an answer a failing line shows, on one line: enough to see what it said instead of a fact.
ANSWER_EXCERPT = 160


def answer_texts(answer: Any, llm_configured: bool, focus: Any = None) -> dict[str, str]:
    """What a reader sees in each mode, from one ``ask`` answer; with an LLM configured, the extractive
    answer is built from the same sources (it is what the reader gets when the LLM is down)."""
    shown = strip_citations(answer.answer)
    if answer.not_found:  # its first line says nothing was found; the closest material it names is titles, no fact
        shown = shown.split("\n", 1)[0]
    if not llm_configured:
        return {"extractive": shown}
    if answer.not_found or answer.guard is not None or answer.extractive:
        return {"extractive": shown, "llm": shown}
    return {"extractive": strip_citations(extractive_answer(answer.question, answer.lang, answer.sources, focus=focus)), "llm": shown}


def fact_row(q: LabelledQuestion, texts: dict[str, str]) -> dict[str, Any]:
    """Per mode: how many of ``q``'s facts the text states, and the missing ones (each as its spellings)."""
    row = {}
    for mode, text in texts.items():
        missing = missing_facts(text, q.answer_facts)
        row[mode] = {"facts": len(q.answer_facts), "stated": len(q.answer_facts) - len(missing), "missing": missing,
                     "answer": text}  # whole: a new team read its answers through the API, as --json cut them at 300
    return row


def answer_excerpt(text: str, limit: int = ANSWER_EXCERPT) -> str:
    """``text`` on one line (each run of whitespace one space), cut to ``limit`` characters with "…": a failing line
    names a missing fact, and only the answer beside it shows why ("shuts down" written for "shut down")."""
    return excerpt(" ".join(text.split()), limit)


def fact_figures(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Per mode: the share of questions stating every fact (``facts_all``), fact recall, the same per
    category, and the failing questions with their missing facts; None when no question has facts."""
    scored = [r for r in rows if "answer_facts" in r]
    if not scored:
        return None
    modes = {}
    for mode in MODES:
        mine = [(r, r["answer_facts"][mode]) for r in scored if mode in r["answer_facts"]]
        if not mine:
            continue
        categories: dict[str, list[dict[str, Any]]] = {}
        for r, got in mine:
            categories.setdefault(r["category"], []).append(got)
        modes[mode] = {
            **_shares([got for _, got in mine]),
            "by_category": {name: _shares(got) for name, got in sorted(categories.items())},
            "failing": [{"id": r["id"], "category": r["category"], "missing": got["missing"], "answer": got["answer"]}
                        for r, got in mine if got["missing"]],
        }
    return {"questions_with_facts": len(scored), "modes": modes}


def _shares(scored: list[dict[str, Any]]) -> dict[str, Any]:
    return fact_shares(len(scored), sum(not s["missing"] for s in scored), sum(s["facts"] for s in scored),
                       sum(s["stated"] for s in scored))


def fact_shares(questions: int, all_stated: int, facts: int, stated: int) -> dict[str, Any]:
    """The counts and the shares of them: one file's questions, or several files' pooled (``pooled``)."""
    return {"questions": questions, "all_stated": all_stated,
            "facts_all": round(all_stated / questions, 4) if questions else None,
            "facts": facts, "stated": stated, "fact_recall": round(stated / facts, 4) if facts else None}


def fact_lines(figures: dict[str, Any] | None) -> list[str]:
    """One summary line per mode."""
    if not figures:
        return []
    return [f"answer facts ({mode}): every fact stated {m['facts_all']:.3f} ({m['all_stated']}/{m['questions']}), "
            f"fact recall {_f(m['fact_recall'])} ({m['stated']}/{m['facts']}); "
            f"{figures['questions_with_facts']} question(s) have facts" for mode, m in figures["modes"].items()]


def fact_table(figures: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows: per category, each mode's share stating every fact and its fact recall."""
    modes = list(figures["modes"])
    header = ["category", *modes]
    names = sorted({c for m in figures["modes"].values() for c in m["by_category"]})
    rows = [[name, *(_cell(figures["modes"][mode]["by_category"].get(name)) for mode in modes)] for name in names]
    rows.append(["all", *(_cell(figures["modes"][mode]) for mode in modes)])
    return header, rows


def failing_lines(figures: dict[str, Any], limit: int | None = None) -> list[str]:
    """``mode id (category): missing "spelling" / "spelling"; ... (the answer: "...")`` per failing question, ``limit``
    per mode: the answer's start beside the missing facts, so that the author sees why they were not matched."""
    lines = []
    for mode, m in figures["modes"].items():
        for fail in m["failing"][:limit]:
            missing = "; ".join(" / ".join(f'"{s}"' for s in spellings) for spellings in fail["missing"])
            lines.append(f"{mode} {fail['id']} ({fail['category']}): missing {missing} "
                         f"(the answer: \"{answer_excerpt(fail.get('answer', ''))}\")")
        if limit is not None and len(m["failing"]) > limit:
            lines.append(f"{mode}: {len(m['failing']) - limit} more failing (see --json)")
    return lines


def fact_markdown(figures: dict[str, Any] | None) -> str:
    """The per-category table and every failing question, for a CI job summary."""
    if not figures:
        return ""
    header, rows = fact_table(figures)
    lines = ["Answer facts (every fact stated (questions) / fact recall):", "",
             "| " + " | ".join(header) + " |", "|---" * len(header) + "|"] + ["| " + " | ".join(r) + " |" for r in rows]
    failing = failing_lines(figures)
    if failing:
        lines += ["", "Failing questions:", ""] + [f"- {line}" for line in failing]
    return "\n".join(lines) + "\n"


def fact_failures(figures: dict[str, Any] | None, least: float | None) -> list[str]:
    """``--min-answer-facts``: every mode's share of questions stating every fact must reach ``least``."""
    if least is None:
        return []
    if not figures or not figures["modes"]:
        return [f"no question has answer_facts, so the share stating every fact is n/a, below --min-answer-facts {least}"]
    return [f"answers ({mode}) state every fact for {m['facts_all']:.4f} of {m['questions']} questions, "
            f"below --min-answer-facts {least}" for mode, m in figures["modes"].items() if m["facts_all"] < least]


def _cell(m: dict[str, Any] | None) -> str:
    if m is None:
        return ""
    return f"{m['facts_all']:.3f} ({m['all_stated']}/{m['questions']}) / {_f(m['fact_recall'])}"


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
