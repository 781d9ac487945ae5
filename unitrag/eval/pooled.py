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
from .report import EvalReport

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
        cat["success@5"] = cat["hits"] / cat["ranked"] if cat["ranked"] else None
        cat["not_found_rate"] = cat["not_found"] / cat["asked"] if cat["asked"] and not cat["ranked"] else None
    found = [r.extra.get("not_found") or {} for r in group]
    tp, fp, fn = (sum(n.get(k, 0) for n in found) for k in ("tp", "fp", "fn"))
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    extra: dict[str, Any] = {
        "by_category": categories,
        "not_found": {"precision": precision, "recall": recall, "f1": 2 * tp / (2 * tp + fp + fn) if tp else 0.0,
                      "tp": tp, "fp": fp, "fn": fn, "questions": sum(n.get("questions", 0) for n in found),
                      "unanswerable": sum(n.get("unanswerable", 0) for n in found)},
        "restricted_leaks": [leak for r in group for leak in r.extra.get("restricted_leaks", [])],
    }
    modes: dict[str, dict[str, Any]] = {}
    for report in group:
        for mode, facts in ((report.extra.get("answer_facts") or {}).get("modes") or {}).items():
            into = modes.setdefault(mode, dict.fromkeys(_FACT_COUNTS, 0))
            for key in _FACT_COUNTS:
                into[key] += facts.get(key, 0)
    for facts in modes.values():
        facts["facts_all"] = facts["all_stated"] / facts["questions"] if facts["questions"] else None
        facts["fact_recall"] = facts["stated"] / facts["facts"] if facts["facts"] else None
    if modes:
        extra["answer_facts"] = {"questions_with_facts": max(m["questions"] for m in modes.values()), "modes": modes}
    return extra
