"""What an evaluation found: per-variant metrics, per-query rows, and the regression gate."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..content.registry import is_held_out
from ..rag.store.exemplars import AUTHORED_ANSWERS
from .fact_report import fact_lines, fact_markdown
from .metrics import MEASURES

#: (task, done, total): called as queries are run, for a progress bar.
EvalProgress = Callable[[str, int, int], None]


@dataclass
class VariantResult:
    name: str
    description: str
    metrics: dict[str, float]
    queries: int  # queries scored (with a relevant document)
    seconds: float  # ranking time of every query of the run

    @property
    def qps(self) -> float:
        return self.queries / self.seconds if self.seconds > 0 else math.inf

    def shown(self, measure: str) -> str:
        """``measure`` for a table: "n/a" when no question had a relevant unit (a guard-only set), never a 0.000."""
        return f"{self.metrics[measure]:.3f}" if self.queries else "n/a"

    def cell(self, measure: str, best: dict[str, float], mark: str) -> str:
        """``shown``, put in ``mark`` (a format with one ``{}``: bold) when it is the best of the variants run."""
        text = self.shown(measure)
        return mark.format(text) if self.queries and self.metrics[measure] == best[measure] else text

    def to_dict(self) -> dict[str, Any]:
        return {**{k: round(v, 4) for k, v in self.metrics.items()}, "queries": self.queries,
                "seconds": round(self.seconds, 3), "qps": round(self.qps, 1), "description": self.description}


@dataclass
class EvalReport:
    kind: str  # "beir" | "questions"
    dataset: str
    pipeline: dict[str, Any]
    variants: dict[str, VariantResult]
    rows: list[dict[str, Any]]  # per query / per question
    extra: dict[str, Any] = field(default_factory=dict)  # not_found, guard, restricted_leaks, generation, ...

    @property
    def primary(self) -> VariantResult:
        """The variant the regression gate reads: ``full`` when run, else the last one."""
        return self.variants.get("full") or list(self.variants.values())[-1]

    def best(self) -> dict[str, float]:
        """The best value of each measure across the variants (what tables and the plot highlight)."""
        return {m: max(v.metrics[m] for v in self.variants.values()) for m in MEASURES}

    def to_dict(self) -> dict[str, Any]:
        rows_key = "queries" if self.kind == "beir" else "questions"
        return {
            "kind": self.kind, "dataset": self.dataset, "pipeline": self.pipeline,
            "variants": {name: v.to_dict() for name, v in self.variants.items()},
            **self.extra, rows_key: self.rows,
        }

    def markdown(self) -> str:
        """The variants table (and the answerability lines), for a CI job summary."""
        names, best = list(MEASURES), self.best()
        lines = [f"### unitrag eval: {self.dataset}", "",
                 "| variant | " + " | ".join(names) + " | q/s |", "|---" * (len(names) + 2) + "|"]
        for v in self.variants.values():
            cells = [v.cell(m, best, "**{}**") for m in names]
            lines.append(f"| {v.name} | " + " | ".join(cells) + f" | {v.qps:.0f} |")
        lines += [""] + [f"- {line}" for line in summary_lines(self)]
        facts = fact_markdown(self.extra.get("answer_facts"))
        return "\n".join(lines) + "\n" + (f"\n{facts}" if facts else "")


def summary_lines(report: EvalReport) -> list[str]:
    """One line per answerability figure the report has."""
    lines = []
    nf = report.extra.get("not_found")
    if nf and nf.get("questions"):  # a guard set asks nothing the gate decides
        lines.append(f"not found: precision {_f(nf['precision'])}, recall {_f(nf['recall'])}, F1 {_f(nf['f1'])} "
                     f"({nf['unanswerable']} unanswerable of {nf['questions']})")
    guard = report.extra.get("guard")
    if guard:
        lines.append(f"guard: precision {_f(guard['precision'])}, recall {_f(guard['recall'])} ({guard['expected']} expected)")
    if "restricted_leaks" in report.extra:
        lines.append(f"restricted-content leaks: {len(report.extra['restricted_leaks'])}")
    generation = report.extra.get("generation")
    if generation:
        lines.append(f"generation ({generation['llm']}): citation validity {_f(generation['citation_validity'])}, "
                     f"uncited long answers {_f(generation['uncited_long_share'])}, "
                     f"extractive fallbacks {generation['extractive_fallbacks']} of {generation['answers']}")
    lines += fact_lines(report.extra.get("answer_facts"))
    copies = report.extra.get("near_copies")
    if copies:  # a new team copied its test wordings into the units' questions: test F1 0.923, 0.857 once reworded
        shown = ", ".join(copies[:5]) + (f" and {len(copies) - 5} more" if len(copies) > 5 else "")
        lines.append(f"{len(copies)} question(s) nearly copy a unit's own `questions:` entry (cosine >= {AUTHORED_ANSWERS}) "
                     f"and are answered whatever the gate, so they measure that entry, not the knowledge base: {shown}; "
                     "reword the question or the unit's entry")
    unjudged = report.extra.get("unjudged_queries")
    if unjudged:
        lines.append(f"{len(unjudged)} judged queries have no relevant document: left out of the means")
    return lines


#: The retrieval categories ``--min-success`` gates (restricted and user-context questions are reported, not gated:
#: too few of them for a stable threshold).
RETRIEVAL_CATEGORIES = ("same_lang", "cross_en_zh", "cross_zh_en")


def category_rows(reports: list[EvalReport]) -> tuple[list[str], list[list[str]]]:
    """Header and rows comparing labelled-question sets (dev, test) side by side, per category.

    Answerable categories show Success@5 of the gated variant and how many were answered "not found"
    (ranked right and still refused); unanswerable ones the share answered "not found"; then not-found precision / recall / F1 and leaks of each set.
    """
    header = ["category", *set_names([r.dataset for r in reports])]
    names = sorted({c for r in reports for c in r.extra.get("by_category", {})})
    rows = []
    for name in names:
        cells = []
        for r in reports:
            cat = r.extra.get("by_category", {}).get(name)
            if cat is None:
                cells.append("")
            elif name.startswith("guard_"):  # scored in the guard's own table (a look-alike answered is its pass)
                cells.append(f"{cat['questions']} (guard)")
            elif cat["success@5"] is not None:  # an answerable question refused is a miss a reader sees, whatever the rank
                refused = f", {cat['not_found']} answered \"not found\"" if cat.get("not_found") else ""
                cells.append(f"S@5 {cat['success@5']:.3f} ({cat['hits']}/{cat['ranked']}){refused}")
            elif cat["not_found_rate"] is not None:
                cells.append(f"not found {cat['not_found_rate']:.3f} ({cat['not_found']}/{cat['asked']})")
            else:
                cells.append(f"{cat['questions']} (guard)")
        rows.append([name, *cells])
    nf = [r.extra.get("not_found") or {} for r in reports]
    if any(n.get("questions") for n in nf):
        rows.append(["not found P / R / F1", *(f"{_f(n.get('precision'))} / {_f(n.get('recall'))} / {_f(n.get('f1'))}" for n in nf)])
    rows.append(["restricted leaks", *(str(len(r.extra.get("restricted_leaks", []))) for r in reports)])
    return header, rows


def category_markdown(reports: list[EvalReport]) -> str:
    header, rows = category_rows(reports)
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"] + ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def set_names(datasets: list[str]) -> list[str]:
    """Column names for labelled-question files: dev, test, or each file's stem where two of a kind would share one
    (questions.yaml beside questions2.yaml is "questions", not "dev" beside "questions2")."""
    names = [Path(d).name for d in datasets]
    held_out = [is_held_out(Path(d)) for d in datasets]
    labels = ["test" if out else "dev" if n == "questions.yaml" and held_out.count(False) == 1 else n.removesuffix(".yaml")
              for n, out in zip(names, held_out)]
    if labels.count("test") > 1:  # several test sets: name each by its file
        labels = [n.removesuffix(".yaml") if label == "test" else label for n, label in zip(names, labels)]
    if len(set(labels)) < len(labels):  # files of one name in different folders: their folders tell them apart
        labels = [f"{Path(d).parent.name}/{label}" if labels.count(label) > 1 else label for d, label in zip(datasets, labels)]
    return labels


def gated_reports(reports: list[EvalReport]) -> list[tuple[str, EvalReport]]:
    """The reports the regression gates read, by file name: every held-out set, else the last report.

    Several test sets written by different people disagree more than one set with itself: a PR must
    not regress any of them.
    """
    named = [(Path(r.dataset).name, r) for r in reports]
    return [(name, r) for name, r in named if is_held_out(Path(r.dataset))] or named[-1:]


def gate_failures(
    report: EvalReport, min_ndcg: float | None = None, min_notfound_f1: float | None = None,
    min_success: float | None = None, min_notfound_precision: float | None = None,
) -> list[str]:
    """Why the report fails the regression gate; empty when it passes.

    ``min_success``: Success@5 of same-language questions and of each cross-lingual direction.
    """
    failures = []
    for name, cat in report.extra.get("by_category", {}).items():
        if min_success is not None and name in RETRIEVAL_CATEGORIES and cat["success@5"] is not None \
                and cat["success@5"] < min_success:
            failures.append(f"Success@5 of {name} is {cat['success@5']:.4f}, below --min-success {min_success}")
    if min_ndcg is not None and report.primary.metrics["ndcg@10"] < min_ndcg:
        failures.append(f"nDCG@10 of {report.primary.name} is {report.primary.metrics['ndcg@10']:.4f}, below --min-ndcg {min_ndcg}")
    nf = report.extra.get("not_found")
    for measure, shown, least in (("f1", "F1", min_notfound_f1), ("precision", "precision", min_notfound_precision)):
        if least is not None and (nf is None or nf[measure] is None or nf[measure] < least):
            failures.append(f"not-found {shown} is {_f(nf and nf[measure])}, below --min-notfound-{measure} {least}")
    if report.extra.get("restricted_leaks"):
        failures.append(f"{len(report.extra['restricted_leaks'])} restricted chunk(s) reached an anonymous caller")
    return failures


def precision_recall(tp: int, fp: int, fn: int) -> dict[str, float | None]:
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    f1 = 2 * precision * recall / (precision + recall) if precision and recall else (0.0 if tp + fp and tp + fn else None)
    return {"precision": _r(precision), "recall": _r(recall), "f1": _r(f1), "tp": tp, "fp": fp, "fn": fn}


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
