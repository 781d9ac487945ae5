"""Several labelled-question files of one kind, counted as one set: the dev figure a team calibrates on.

The docs ask a team for its dev questions in two or more files (``calibrate`` scores each against the others'
exemplars), and ``eval`` then showed each file apart and no dev figure at all: four new teams added the files up by
hand. Dev files are pooled with dev files and test files with test files, never one with the other, by summing the
counts each file's report holds (not by averaging its shares).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..content.registry import is_held_out
from .fact_report import fact_shares
from .questions import category_shares
from .report import EvalReport, precision_recall

_CATEGORY_COUNTS = ("questions", "hits", "ranked", "not_found", "asked")
_FACT_COUNTS = ("questions", "all_stated", "facts", "stated")


def pooled(reports: list[EvalReport]) -> dict[str, dict[str, Any]]:
    """Per kind (dev, test) that two or more of ``reports`` are of: how many files, and their summed figures."""
    kinds: dict[str, list[EvalReport]] = {}
    for report in reports:
        if report.kind == "questions":
            kinds.setdefault("test" if is_held_out(Path(report.dataset)) else "dev", []).append(report)
    return {kind: {"files": len(group), **_pooled_extra(group)} for kind, group in kinds.items() if len(group) > 1}


def pooled_reports(reports: list[EvalReport]) -> list[EvalReport]:
    """The pooled figures as reports, for a column of their own beside the files' (``report.category_rows``)."""
    return [EvalReport("questions", f"{kind} files pooled ({figures['files']})", {}, {}, [], figures)
            for kind, figures in pooled(reports).items()]


def _pooled_extra(group: list[EvalReport]) -> dict[str, Any]:
    categories: dict[str, dict[str, Any]] = {}
    for report in group:
        for name, cat in report.extra.get("by_category", {}).items():
            into = categories.setdefault(name, dict.fromkeys(_CATEGORY_COUNTS, 0))
            for key in _CATEGORY_COUNTS:
                into[key] += cat.get(key) or 0
    for cat in categories.values():
        category_shares(cat)
    found = [r.extra.get("not_found") or {} for r in group]
    extra: dict[str, Any] = {
        "by_category": categories,
        "not_found": {**precision_recall(*(sum(n.get(k, 0) for n in found) for k in ("tp", "fp", "fn"))),
                      "questions": sum(n.get("questions", 0) for n in found),
                      "unanswerable": sum(n.get("unanswerable", 0) for n in found)},
        "restricted_leaks": [leak for r in group for leak in r.extra.get("restricted_leaks", [])],
    }
    counts: dict[str, dict[str, int]] = {}
    for report in group:
        for mode, facts in ((report.extra.get("answer_facts") or {}).get("modes") or {}).items():
            into = counts.setdefault(mode, dict.fromkeys(_FACT_COUNTS, 0))
            for key in _FACT_COUNTS:
                into[key] += facts.get(key, 0)
    if counts:
        modes = {mode: fact_shares(*(c[key] for key in _FACT_COUNTS)) for mode, c in counts.items()}
        extra["answer_facts"] = {"questions_with_facts": max(m["questions"] for m in modes.values()), "modes": modes}
    return extra
