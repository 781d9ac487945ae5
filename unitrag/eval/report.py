"""What an evaluation found: per-variant metrics, per-query rows, and the regression gate."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

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
            cells = [f"**{v.metrics[m]:.3f}**" if v.metrics[m] == best[m] else f"{v.metrics[m]:.3f}" for m in names]
            lines.append(f"| {v.name} | " + " | ".join(cells) + f" | {v.qps:.0f} |")
        lines += [""] + [f"- {line}" for line in summary_lines(self)]
        return "\n".join(lines) + "\n"


def summary_lines(report: EvalReport) -> list[str]:
    """One line per answerability figure the report has."""
    lines = []
    nf = report.extra.get("not_found")
    if nf:
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
    unjudged = report.extra.get("unjudged_queries")
    if unjudged:
        lines.append(f"{len(unjudged)} judged queries have no relevant document: left out of the means")
    return lines


def gate_failures(report: EvalReport, min_ndcg: float | None = None, min_notfound_f1: float | None = None) -> list[str]:
    """Why the report fails the regression gate; empty when it passes."""
    failures = []
    if min_ndcg is not None and report.primary.metrics["ndcg@10"] < min_ndcg:
        failures.append(f"nDCG@10 of {report.primary.name} is {report.primary.metrics['ndcg@10']:.4f}, below --min-ndcg {min_ndcg}")
    if min_notfound_f1 is not None:
        nf = report.extra.get("not_found")
        if nf is None or nf["f1"] is None or nf["f1"] < min_notfound_f1:
            failures.append(f"not-found F1 is {_f(nf and nf['f1'])}, below --min-notfound-f1 {min_notfound_f1}")
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
