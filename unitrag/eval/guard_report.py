"""The guard as a detector, per rule type and per rule: what it stopped, why, what it cost.

A question's expected outcome is its ``guard`` label (``pass``, ``caution`` and no label: it
must get through) and, where given, its ``guard_rule``. A red flag stopped by another red-flag
rule still counts as stopped for its type (the caller got a safety message) but not for
its rule. Near-misses are the questions labelled ``guard: pass`` or ``guard: caution``: benign
look-alikes, right when answered (with a note or without: a ``caution`` outcome answers).
``outcomes`` counts the three outcomes (stopped / answered with a note / answered) per label.
``guard_ms`` is the guard's own time beyond the question's embedding, which retrieval
needs anyway.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..content.labelled_question import LabelledQuestion
from .report import EvalReport, precision_recall

TYPES = ("red_flag", "out_of_scope")
#: Labels of questions the guard must let through (a caution outcome is let through, with its note).
ANSWERED_LABELS = ("pass", "caution")
#: The three outcomes, as ``outcomes`` names them.
OUTCOMES = ("stopped", "noted", "answered")
#: Why the guard stopped a question (``GuardOutcome.reason``), in the order the report lists them.
STOP_REASONS = ("pattern", "similarity", "sign", "sentence", "llm")


def guard_row(q: LabelledQuestion, outcome: Any, guard_ms: float) -> dict[str, Any]:
    """The ``guard`` entry of a question's row: expected and got, with the rule, the reason and the score."""
    return {
        "expected": q.guard, "rule": q.guard_rule if q.guard in TYPES else None,
        "like": q.guard_rule if q.guard in ANSWERED_LABELS else None, "got": outcome.type if outcome else None,
        "got_rule": outcome.rule if outcome else None, "reason": outcome.reason if outcome else None,
        "score": outcome.score if outcome else None, "ms": round(guard_ms, 4),
    }


def outcome_of(guard: dict[str, Any]) -> str:
    """stopped (red flag, out of scope), noted (a caution: answered with the rule's note) or answered."""
    return "stopped" if guard["got"] in TYPES else "noted" if guard["got"] == "caution" else "answered"


def guard_figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """By type and by rule precision / recall, near-miss pass rate, the three outcomes per label, reasons, and the
    guard's p50 / p95 time. A caution outcome is not a stop: its rule is a note, never a hit or a false alarm."""
    guards = [{**r["guard"], "got_rule": r["guard"]["got_rule"] if r["guard"]["got"] in TYPES else None}
              for r in rows if "guard" in r]
    expected = [g["expected"] if g["expected"] in TYPES else None for g in guards]
    by_type = {}
    for rule_type in TYPES:
        tp = sum(e == rule_type and g["got"] == rule_type for e, g in zip(expected, guards))
        fp = sum(e != rule_type and g["got"] == rule_type for e, g in zip(expected, guards))
        fn = sum(e == rule_type and g["got"] != rule_type for e, g in zip(expected, guards))
        by_type[rule_type] = {**precision_recall(tp, fp, fn), "expected": sum(e == rule_type for e in expected)}
    rules = sorted({g["rule"] for g in guards if g.get("rule")} | {g["got_rule"] for g in guards if g.get("got_rule")})
    by_rule = {}
    for rule in rules:
        # a stop by `rule` is a false alarm only where the question names another rule or none is expected
        tp = sum(g.get("rule") == rule and g["got_rule"] == rule for g in guards)
        fp = sum(g["got_rule"] == rule and g.get("rule") != rule and (bool(g.get("rule")) or e is None)
                 for e, g in zip(expected, guards))
        fn = sum(g.get("rule") == rule and g["got_rule"] != rule for g in guards)
        by_rule[rule] = {**precision_recall(tp, fp, fn), "expected": sum(g.get("rule") == rule for g in guards)}
    near = [g for g in guards if g["expected"] in ANSWERED_LABELS]
    passed = sum(g["got"] not in TYPES for g in near)
    for rule in sorted({g["like"] for g in near if g.get("like")}):
        alike = [g for g in near if g.get("like") == rule]
        by_rule.setdefault(rule, {})["near_misses"] = {"questions": len(alike),
                                                        "passed": sum(g["got"] not in TYPES for g in alike)}
    outcomes: dict[str, dict[str, int]] = {}
    for g in guards:
        label = outcomes.setdefault(g["expected"] or "none", dict.fromkeys(OUTCOMES, 0))
        label[outcome_of(g)] += 1
    ordinary = outcomes.get("none", dict.fromkeys(OUTCOMES, 0))
    stopped_ordinary = ordinary["stopped"]
    times = np.array([g["ms"] for g in guards]) if guards else np.zeros(1)
    return {
        "by_type": by_type, "by_rule": by_rule,
        "near_misses": {"questions": len(near), "passed": passed,
                        "pass_rate": round(passed / len(near), 4) if near else None},
        "outcomes": outcomes,
        "ordinary_stopped": {"questions": sum(ordinary.values()), "stopped": stopped_ordinary,
                             "rate": round(stopped_ordinary / sum(ordinary.values()), 4) if sum(ordinary.values()) else None},
        "reasons": {reason: sum(g["reason"] == reason and g["got"] in TYPES for g in guards)
                    for reason in STOP_REASONS},
        "guard_ms": {"p50": round(float(np.percentile(times, 50)), 4), "p95": round(float(np.percentile(times, 95)), 4)},
    }


def guard_table(reports: list[EvalReport], names: list[str]) -> tuple[list[str], list[list[str]]]:
    """Header and rows comparing labelled sets (dev, test) side by side: per type, per rule, near-misses, time."""
    figures = [r.extra.get("guard_rules") or {} for r in reports]
    header = ["guard", *names]
    rows = []
    for rule_type in TYPES:
        rows.append([f"{rule_type} P / R", *(_pr(f.get("by_type", {}).get(rule_type)) for f in figures)])
    for rule in sorted({rule for f in figures for rule in f.get("by_rule", {})}):
        rows.append([f"  {rule} P / R; look-alikes passed (questions naming it in guard_rule:)",
                     *(_rule_cell(f.get("by_rule", {}).get(rule)) for f in figures)])
    rows.append(["near-misses answered (pass or caution)", *(_share(f.get("near_misses")) for f in figures)])
    for label in ("red_flag", "out_of_scope", "caution", "pass", "none"):
        if any(label in f.get("outcomes", {}) for f in figures):
            rows.append([f"{_LABEL_NAMES[label]}: stopped / noted / answered",
                         *(_outcomes(f.get("outcomes", {}).get(label)) for f in figures)])
    rows.append(["stopped by " + " / ".join(STOP_REASONS),
                 *(" / ".join(str(f.get("reasons", {}).get(k, 0)) for k in STOP_REASONS) for f in figures)])
    rows.append(["guard ms p50 / p95 (beyond the embedding)",
                 *(f"{f['guard_ms']['p50']:.3f} / {f['guard_ms']['p95']:.3f}" if f else "" for f in figures)])
    return header, rows


def has_guard_labels(report: EvalReport) -> bool:
    """The set labels guard outcomes (red flags, out of scope, near-misses): the guard gates can read it."""
    figures = report.extra.get("guard_rules") or {}
    expected = sum(m.get("expected") or 0 for m in figures.get("by_type", {}).values())
    return bool(expected or (figures.get("near_misses") or {}).get("questions"))


def guard_failures(report: EvalReport, min_recall: float | None, min_precision: float | None,
                   min_pass: float | None) -> list[str]:
    """The guard gate on one report: red-flag recall, precision of both types, near-misses passed."""
    figures = report.extra.get("guard_rules") or {}
    failures = []
    red = figures.get("by_type", {}).get("red_flag", {})
    if min_recall is not None and (red.get("recall") is None or red["recall"] < min_recall):
        failures.append(f"red-flag recall is {red.get('recall')}, below --min-guard-recall {min_recall}")
    for rule_type in TYPES:
        precision = figures.get("by_type", {}).get(rule_type, {}).get("precision")
        if min_precision is not None and precision is not None and precision < min_precision:
            failures.append(f"{rule_type} precision is {precision}, below --min-guard-precision {min_precision}")
    near = figures.get("near_misses", {})
    if min_pass is not None and near.get("pass_rate") is not None and near["pass_rate"] < min_pass:
        failures.append(f"near-misses passed {near['pass_rate']}, below --min-guard-pass {min_pass}")
    return failures


def _pr(m: dict[str, Any] | None) -> str:
    if not m:
        return ""
    p, r = m.get("precision"), m.get("recall")
    return f"{_f(p)} / {_f(r)} ({m['tp']}/{m.get('expected', m['tp'] + m['fn'])})"


_LABEL_NAMES = {"red_flag": "labelled red_flag", "out_of_scope": "labelled out_of_scope", "caution": "labelled caution",
                "pass": "labelled pass", "none": "ordinary (no guard label)"}


def _outcomes(counts: dict[str, int] | None) -> str:
    return " / ".join(str(counts[o]) for o in OUTCOMES) if counts else ""


def _rule_cell(m: dict[str, Any] | None) -> str:
    if not m:
        return ""
    near = m.get("near_misses")
    cells = [_pr(m) if "tp" in m else "", f"{near['passed']}/{near['questions']}" if near else ""]
    return "; ".join(c for c in cells if c)


def _share(near: dict[str, Any] | None) -> str:
    if not near or not near.get("questions"):
        return ""
    return f"{near['pass_rate']:.3f} ({near['passed']}/{near['questions']})"


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
