"""The regression gates of ``unitrag eval --min-*``, steady on small sets of questions.

A new knowledge base starts with a handful of labelled questions: on 16 of them one miss moves
Success@5 by 0.06, and a gate taken from a large set would flip on it. So a figure measured on fewer
than ``SMALL_SET`` items fails only when the set shows it is below the threshold: when neither its
95% Wilson upper bound nor the figure with one more question right reaches the threshold. Otherwise
it is a warning that says to add questions. From ``SMALL_SET`` items on, the figure itself is compared,
as before. Restricted-content leaks always fail: one is one too many, whatever the set's size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .report import RETRIEVAL_CATEGORIES, EvalReport

SMALL_SET = 30  # items a figure is measured on below which its threshold is judged with its confidence bound
Z = 1.96  # two-sided 95%

_CALIBRATE = ("fit the answerability gate on your own labelled questions, dev questions in two or more files "
              "(`unitrag calibrate --write calibration.json && unitrag build`)")
#: Per gate, what its figure measures and the usual fixes: said with each failure and warning, so that a failing gate
#: tells its author where to look, not only that more questions would steady it.
HINTS: dict[str, str] = {
    "--min-ndcg": "nDCG@10 is how high the questions' expected units rank among the first 10 sources. Usual fixes: "
                  "give the units they miss `questions:` in the readers' words and the right topics, split a unit that "
                  "buries the answer, check each question's expected_units",
    "--min-success": "Success@5 is the share of answerable questions with an expected unit among the first 5 sources "
                     "(same language, or each cross-lingual direction). Usual fixes: give the units missed `questions:` "
                     "and topics in the readers' words (in the other language too, for a cross-lingual category), "
                     "check each question's expected_units",
    "--min-notfound-f1": "not-found F1 weighs answering \"not found\" to the questions labelled unanswerable (recall) "
                         "against answering it to answerable ones (precision). Usual fixes: " + _CALIBRATE + "; list "
                         "the topics you do not cover in content/topics.yaml (a topic no unit carries is a declared "
                         "gap, and a question naming one leans to \"not found\"); give units `questions:` in the "
                         "readers' words; check the labels (`unanswerable: true`)",
    "--min-notfound-precision": "not-found precision is the share of \"not found\" answers that went to questions "
                                "labelled unanswerable: below it, answerable questions were answered \"not found\". "
                                "Usual fixes: give the units those questions should find `questions:` in the readers' "
                                "words (or write the unit that is missing); " + _CALIBRATE + "; check the labels (a "
                                "question no unit answers is `unanswerable: true`)",
    "--min-guard-recall": "red-flag recall is the share of questions labelled `guard: red_flag` that a red-flag rule "
                          "stopped. Usual fixes: give the rule in content/guard.yaml more examples in the readers' "
                          "words (6 or more per language) or a pattern for the wording it missed; check the labels",
    "--min-guard-precision": "a stop type's precision is the share of the questions its rules stopped that are "
                             "labelled so: below it, the guard stopped questions it should have answered. Usual fixes: "
                             "narrow the pattern that stopped them, or add near-misses like them to the rule in "
                             "content/guard.yaml; check the labels",
    "--min-guard-pass": "near-misses passed is the share of questions labelled `guard: pass` or `caution` that were "
                        "answered, not stopped. Usual fixes: add near-misses like them to the rule in content/guard.yaml "
                        "(each lowers such scores a little), or narrow the pattern that stops them",
    "--min-answer-facts": "The figure is the share of questions with answer_facts whose answer states every fact (the failing "
                          "questions are listed with their missing facts and the answer). Usual fixes: state the fact "
                          "in the unit in one of its spellings, or add the answer's spelling to answer_facts; check "
                          "that the question finds its unit",
}


def hinted(message: str, option: str) -> str:
    """``message`` followed by what the gate ``option`` measures and its usual fixes (as is for an unknown option)."""
    hint = HINTS.get(option)
    return f"{message}. {hint}" if hint else message


@dataclass(frozen=True)
class Figure:
    """One gated figure: its value, what it was measured on, and how high it could plausibly be."""

    name: str  # "Success@5 of same_lang"
    option: str  # "--min-success"
    value: float | None  # None: not measurable on this set
    n: int  # the items it was measured on
    items: str  # what they are ("questions", "\"not found\" answers")
    optimistic: float | None = None  # max(95% upper bound, the figure with one more item right)
    required: bool = False  # None fails (the old gates' rule for figures a set must have)


@dataclass
class GateResult:
    """What ``unitrag eval`` prints: failures exit 1, warnings do not."""

    failures: list[str]
    warnings: list[str]

    def extend(self, other: GateResult, prefix: str = "") -> None:
        self.failures += [prefix + f for f in other.failures]
        self.warnings += [prefix + w for w in other.warnings]


def wilson_upper(successes: float, n: int, z: float = Z) -> float:
    """Upper end of the Wilson score interval of a proportion; also a safe bound for a mean of values in
    [0, 1] (their variance is at most a proportion's)."""
    if n <= 0:
        return 1.0
    p = successes / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return min(1.0, (centre + spread) / (1 + z * z / n))


def proportion(name: str, option: str, hits: int, n: int, items: str, required: bool = False) -> Figure:
    """A share of ``n`` items (Success@5, precision, recall, pass rate): None when there are none."""
    if n == 0:
        return Figure(name, option, None, 0, items, required=required)
    return Figure(name, option, hits / n, n, items, max(wilson_upper(hits, n), min(hits + 1, n) / n), required)


def f1_figure(name: str, option: str, tp: int, fp: int, fn: int) -> Figure:
    """F1 of a detector: optimistic from the bounds of its precision and recall (F1 rises with both),
    or from one missed or false detection fewer."""
    n = tp + fp + fn
    if tp + fp == 0 or tp + fn == 0:
        return Figure(name, option, None, n, "questions", required=True)
    bounds = _f1(wilson_upper(tp, tp + fp), wilson_upper(tp, tp + fn))
    one_more = max(_f1_counts(tp + 1, fp, fn - 1) if fn else 0.0, _f1_counts(tp, fp - 1, fn) if fp else 0.0)
    return Figure(name, option, _f1_counts(tp, fp, fn), n, "questions it was judged on", max(bounds, one_more), True)


def mean_figure(name: str, option: str, value: float, n: int) -> Figure:
    """A mean of per-question values in [0, 1] (nDCG@10): one more question could add up to 1/n."""
    return Figure(name, option, value, n, "questions", max(wilson_upper(value * n, n), min(1.0, value + 1 / max(n, 1))))


def judge(figure: Figure, least: float | None) -> GateResult:
    """Pass, warn (a small set cannot tell) or fail one figure against its threshold."""
    result = GateResult([], [])
    if least is None:
        return result
    if figure.value is None:
        if figure.required:
            result.failures.append(hinted(f"{figure.name} is n/a, below {figure.option} {least}", figure.option))
        return result
    if figure.value >= least:
        return result
    measured = f"{figure.name} is {figure.value:.4f} on {figure.n} {figure.items}, below {figure.option} {least}"
    if figure.n >= SMALL_SET or figure.optimistic is None:
        result.failures.append(hinted(measured, figure.option))
    elif figure.optimistic < least:  # a small set, but clearly below: a real regression
        result.failures.append(hinted(f"{measured}, and so is its optimistic value {figure.optimistic:.4f} (95% upper "
                                      "bound, or one more right)", figure.option))
    else:
        result.warnings.append(hinted(f"{measured}, but on fewer than {SMALL_SET} {figure.items} that is within noise "
                                      f"(could be {figure.optimistic:.4f}): not failing. Add labelled questions so it "
                                      f"is measured on at least {SMALL_SET} and the gate holds", figure.option))
    return result


def gate(figures: list[Figure], thresholds: dict[str, float | None], report: EvalReport | None = None) -> GateResult:
    """Judge ``figures`` against ``thresholds`` (by option name); with ``report``, its restricted leaks fail too."""
    result = GateResult([], [])
    for figure in figures:
        result.extend(judge(figure, thresholds.get(figure.option)))
    leaks = report.extra.get("restricted_leaks") if report is not None else None
    if leaks:
        result.failures.append(f"{len(leaks)} restricted chunk(s) reached an anonymous caller")
    return result


def retrieval_figures(report: EvalReport) -> list[Figure]:
    """nDCG@10, Success@5 by category and, on labelled questions, "not found" F1 and precision."""
    figures = [mean_figure(f"nDCG@10 of {report.primary.name}", "--min-ndcg", report.primary.metrics["ndcg@10"],
                           report.primary.queries)]
    for name, cat in report.extra.get("by_category", {}).items():
        if name in RETRIEVAL_CATEGORIES:
            figures.append(proportion(f"Success@5 of {name}", "--min-success", cat["hits"], cat["ranked"], "questions"))
    if report.kind != "questions":
        return figures
    nf = report.extra.get("not_found") or {"tp": 0, "fp": 0, "fn": 0}
    return figures + [f1_figure("not-found F1", "--min-notfound-f1", nf["tp"], nf["fp"], nf["fn"]),
                      proportion("not-found precision", "--min-notfound-precision", nf["tp"], nf["tp"] + nf["fp"],
                                 "\"not found\" answers", required=True)]


def guard_figures(report: EvalReport) -> list[Figure]:
    """Red-flag recall, each stop type's precision, the share of near-misses let through."""
    guard = report.extra.get("guard_rules") or {}
    by_type = guard.get("by_type", {})
    red = by_type.get("red_flag") or {"tp": 0, "fn": 0}
    figures = [proportion("red-flag recall", "--min-guard-recall", red["tp"], red["tp"] + red["fn"], "red-flag questions",
                          required=True)]
    figures += [proportion(f"{rule_type} precision", "--min-guard-precision", m["tp"], m["tp"] + m["fp"],
                           f"{rule_type} stops") for rule_type, m in by_type.items()]
    near = guard.get("near_misses") or {}
    if near.get("questions"):
        figures.append(proportion("near-misses passed", "--min-guard-pass", near["passed"], near["questions"], "near-misses"))
    return figures


def fact_figures(report: EvalReport) -> list[Figure]:
    """Per answer mode, the share of questions with answer_facts whose answer states every fact."""
    facts = report.extra.get("answer_facts")
    if not facts or not facts.get("modes"):
        return [Figure("the share of answers stating every fact (no question has answer_facts)", "--min-answer-facts",
                       None, 0, "questions", required=True)]
    return [proportion(f"answers ({mode}) stating every fact", "--min-answer-facts", m["all_stated"], m["questions"],
                       "questions with answer_facts") for mode, m in facts["modes"].items()]


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def _f1_counts(tp: int, fp: int, fn: int) -> float:
    return _f1(tp / (tp + fp), tp / (tp + fn)) if tp else 0.0
