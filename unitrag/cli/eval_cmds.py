"""Measurement commands: calibrate the answerability gate on labelled questions."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.table import Table

from ..config import load_config
from ..content.problems import Problem
from ..content.registry import load_questions
from ..errors import ContentInvalid, UserError
from .output import out, print_json

if TYPE_CHECKING:
    from ..rag.calibrate import Calibration

ConfigOpt = Annotated[Optional[Path], typer.Option("--config", help="Config file (default: ./unitrag.toml).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def register(app: typer.Typer) -> None:
    app.command("calibrate")(calibrate_cmd)


def calibrate_cmd(
    kb: Annotated[Optional[str], typer.Option("--kb", help="Artifact path [config: artifact].")] = None,
    questions: Annotated[
        Optional[Path], typer.Option("--questions", help="Labelled questions [default: <content_dir>/questions.yaml].")
    ] = None,
    write: Annotated[
        Optional[Path], typer.Option("--write", help="Add the gate to this calibration file (e.g. calibration.json).")
    ] = None,
    reranker: Annotated[Optional[str], typer.Option("--reranker", help="Calibrate this reranker [config: reranker].")] = None,
    sparse: Annotated[Optional[bool], typer.Option("--sparse/--no-sparse", help="[config: sparse]")] = None,
    config: ConfigOpt = None,
    json: JsonOpt = False,
) -> None:
    """Fit the answerability gate (Platt scaling) for the configured query pipeline; report how well it separates."""
    from ..rag.calibrate import run_calibration
    from ..rag.gate import write_calibration
    from ..rag.knowledge_base import KnowledgeBase

    cfg = load_config(config, reranker=reranker, sparse=sparse)
    path = questions or cfg.content_dir / "questions.yaml"
    if not path.is_file():
        raise UserError(f"labelled questions {path} not found (pass --questions)")
    problems: list[Problem] = []
    labelled = load_questions([path], problems)
    if problems:
        raise ContentInvalid(problems)
    knowledge_base = KnowledgeBase.open(kb or cfg.artifact, config=cfg)
    try:
        result = run_calibration(knowledge_base, labelled)
    except ValueError as exc:
        raise UserError(f"cannot calibrate on {path}: {exc}") from None
    if write is not None:
        write_calibration(write, result.gate)
    if json:
        print_json({**result.to_dict(), "written": str(write) if write else None})
        return
    _print(result, write)


def _print(result: "Calibration", write: Path | None) -> None:
    gate, m = result.gate, result.gate.metrics
    table = Table(title="Candidate features (AUC of the raw score; LOO: of leave-one-out Platt probabilities)",
                  title_justify="left")
    for column in ("feature", "per language", "AUC", "AUC by language", "LOO AUC"):
        table.add_column(column)
    for c in result.candidates:
        chosen = c["feature"] == gate.feature and c["per_lang"] == bool(gate.by_lang)
        by_lang = " ".join(f"{k} {v:.3f}" for k, v in c["auc_by_lang"].items())
        style = "bold green" if chosen else None
        table.add_row(c["feature"], "yes" if c["per_lang"] else "no", f"{c['auc']:.3f}", by_lang, f"{c['loo_auc']:.3f}",
                      style=style)
    out.print(table)
    thresholds = ", ".join(f"{k}: {v:.4f}" for k, v in gate.thresholds.items() if v is not None)
    out.print(f"pipeline   {gate.pipeline_id}")
    out.print(f"gate       p = sigmoid(a·{gate.feature} + b), a={gate.a:.3f} b={gate.b:.3f}; p=0.5 at {thresholds}")
    out.print(f"questions  {gate.n_answerable} answerable, {gate.n_unanswerable} unanswerable"
              f" ({m['guarded']} left out: answered by the guard)")
    out.print(f"in sample  accuracy {m['accuracy']:.3f}, not-found precision {_f(m['not_found_precision'])}"
              f" recall {_f(m['not_found_recall'])}")
    out.print(f"LOO        accuracy {m['loo_accuracy']:.3f}, not-found precision {_f(m['loo_not_found_precision'])}"
              f" recall {_f(m['loo_not_found_recall'])}, AUC {m['loo_auc']:.3f}")
    if m.get("expected_unit_found") is not None:
        out.print(f"retrieval  an expected unit is among the sources for {m['expected_unit_found']:.0%} of answerable questions")
    wrong = [s for s in result.samples if (s.p_loo >= 0.5) != s.answerable]
    if wrong:
        out.print("misjudged (leave-one-out):")
        for s in sorted(wrong, key=lambda s: s.p_loo):
            label = "answerable" if s.answerable else "unanswerable"
            out.print(f"  p={s.p_loo:.2f} {s.id} ({label}; top {s.top_units[0]}, {gate.feature}={s.values[gate.feature]:.4f})")
    if write is not None:
        out.print(f"wrote the gate to {write}; run `unitrag build` to copy it into the artifact")


def _f(value: float) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"
