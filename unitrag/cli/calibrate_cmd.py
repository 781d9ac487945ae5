"""``unitrag calibrate``: fit the answerability gate on a knowledge base's own dev questions, keep it only if it is better."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.table import Table

from ..config import load_config
from ..errors import UserError
from .eval_cmds import _load_questions, _without_stale_starters
from .output import out, print_json, print_table
from .options import ConfigOpt, JsonOpt

if TYPE_CHECKING:  # the runtime loads only when the command runs: `--help` stays fast
    from ..rag.calibrate.calibration import Calibration


def register(app: typer.Typer) -> None:
    app.command("calibrate")(calibrate_cmd)


def calibrate_cmd(
    kb: Annotated[Optional[str], typer.Option("--kb", help="Artifact path [config: artifact].")] = None,
    questions: Annotated[Optional[list[Path]], typer.Option(
        "--questions", help="Labelled dev questions; repeat it for several files [default: every <content_dir>/eval/*.yaml "
                            "but the *_test.yaml ones].")] = None,
    write: Annotated[
        Optional[Path], typer.Option("--write", help="Add the gate kept (the fit, or the default gate) to this calibration "
                                                   "file (e.g. calibration.json); nothing when the questions are too few.")
    ] = None,
    reranker: Annotated[Optional[str], typer.Option("--reranker", help="Calibrate this reranker [config: reranker].")] = None,
    sparse: Annotated[Optional[bool], typer.Option("--sparse/--no-sparse", help="Calibrate with or without the BM25 arm [config: sparse].")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also print every candidate feature, why the others "
                                          "are none, and the questions the fit misjudges.")] = False,
    config: ConfigOpt = None,
    json: JsonOpt = False,
) -> None:
    """Fit the answerability gate for the configured query pipeline, and keep it only if it beats the default gate.

    The default gate (the one used without calibration.json) stays when fewer than 10 answerable or 10
    unanswerable dev questions reach the gate (nothing is written, exit 0), or when the fit is no better
    out of sample (k-fold "not found" F1, and a sign test on the questions the two decide differently; --write then
    stores the default gate for these questions).
    """
    from ..content.registry import dev_question_files, is_held_out
    from ..rag.calibrate.calibration import run_calibration
    from ..rag.calibration_file import hushed, write_calibration
    from ..rag.knowledge_base import KnowledgeBase

    cfg = load_config(config, reranker=reranker, sparse=sparse)
    paths = list(questions or dev_question_files(cfg.content_dir))
    if not paths:
        raise UserError(f"no labelled dev questions in {cfg.content_dir / 'eval'}: write eval/questions.yaml "
                        "(or pass --questions FILE)")
    for path in paths:
        if is_held_out(path):
            raise UserError(f"{path} is a held-out test set: calibrate on the dev questions (content/eval/*.yaml but "
                            "the *_test.yaml ones); the test set only reports")
    if write is not None and not write.parent.is_dir():  # said now, not after the fit
        raise UserError(f"--write {write}: folder {write.parent} not found (create it, or write calibration.json here)")
    loaded = _load_questions(paths, cfg)
    with hushed():  # "no gate fitted: run `unitrag calibrate`" is what this command answers
        knowledge_base = KnowledgeBase.open(kb or cfg.artifact, config=cfg)
        labelled = _without_stale_starters(loaded, knowledge_base)
        try:
            result = run_calibration(knowledge_base, labelled)
        except ValueError as exc:
            raise UserError(f"cannot calibrate on {', '.join(map(str, paths))}: {exc}") from None
    written = write is not None and result.gate is not None and not result.verdict.too_few
    if written:
        write_calibration(write, result.gate)
    if json:
        print_json({**result.to_dict(), "questions_files": [str(p) for p in paths], "written": str(write) if written else None})
        return
    out.print(f"questions  {', '.join(map(str, paths))}")
    if verbose and result.candidates:
        _print_candidates(result)
    _print_verdict(result, write if written else None, write)
    if not verbose and result.candidates:
        out.print("more       --verbose: every candidate feature, the one chosen and why, the questions it misjudges")


#: A fit kept on fewer labelled questions than this is said to need a check on held-out ones.
FEW_QUESTIONS = 60


def _print_verdict(result: "Calibration", written: Path | None, asked: Path | None) -> None:
    """A few lines: how many questions, the fit, which gate is kept and why, what was written."""
    verdict, fitted, gate = result.verdict, result.fitted, result.gate
    out.print(f"reach gate {verdict.n_answerable} answerable, {verdict.n_unanswerable} unanswerable"
              f" ({len(result.guarded)} left out: answered by the guard)")
    if fitted is not None:
        m = fitted.metrics
        out.print(f"fitted     {fitted.formula}; leave-one-out AUC {m['loo_auc']:.3f}, not-found precision "
                  f"{_f(m['loo_not_found_precision'])} recall {_f(m['loo_not_found_recall'])}")
    style = "green" if verdict.kept == "fitted" else "yellow"
    out.print(f"[{style}]verdict[/]    {verdict.reason}")
    out.print("           (the gate alone: `unitrag eval` also answers an author's own question, and one a single span "
              "states whole, whatever the gate)", markup=False)
    if verdict.kept != "fitted" and "exemplar" in result.not_candidates:  # what most often keeps a new team's fit out
        out.print("exemplar   not a candidate: split the dev questions over two or more files (questions2.yaml, …)",
                  markup=False)
    if gate is not None:
        out.print(f"gate       {gate.formula} ({'fitted' if verdict.kept == 'fitted' else 'the default'}) for {gate.pipeline_id}")
    if verdict.kept == "fitted" and verdict.n_answerable + verdict.n_unanswerable < FEW_QUESTIONS:
        # a campground's fit won 0.957 to 0.870 out of sample on 29 dev questions and lost 1.00 → 0.86 on its test set
        out.print(f"[yellow]check[/]      a fit on {verdict.n_answerable + verdict.n_unanswerable} questions: after "
                  "`unitrag build`, compare `unitrag eval` on your test questions (content/eval/*_test.yaml) with the "
                  "figure before; if it is lower, delete calibration.json and rebuild (the default gate returns)")
    if written is not None:
        kept = "the fitted gate" if verdict.kept == "fitted" else "the default gate"  # was "the gate": which one?
        out.print(f"wrote {kept} to {written}; run `unitrag build` to copy it into the artifact")
    elif asked is not None:
        out.print(f"nothing written to {asked}" + (": the default gate stays in use until there are enough questions"
                                                   if verdict.too_few else ": this pipeline keeps no gate"))


def _print_candidates(result: "Calibration") -> None:
    """Every candidate, the chosen one marked; the features that are none, and why; the questions misjudged."""
    table = Table(title="Candidate features (AUC of the raw score; LOO: of leave-one-out probabilities). The chosen one "
                        "has the best LOO AUC among those whose raw AUC is above 0.5", title_justify="left")
    for column in ("feature", "per language", "AUC", "AUC by language", "LOO AUC", "LOO not-found F1", ""):
        table.add_column(column)
    for c in result.candidates:
        by_lang = " ".join(f"{k} {v:.3f}" for k, v in c["auc_by_lang"].items())
        table.add_row(" + ".join([c["feature"], *c["mix"]]), "yes" if c["per_lang"] else "no", f"{c['auc']:.3f}", by_lang,
                      f"{c['loo_auc']:.3f}", _f(c["loo_not_found_f1"]), "◀ chosen" if c.get("chosen") else "",
                      style="bold green" if c.get("chosen") else None)
    print_table(table)
    for name, why in result.not_candidates.items():
        out.print(f"not a candidate: {name}: {why}")
    fitted = result.fitted
    if fitted is not None and fitted.lang_offsets:
        kept = result.gate
        line = "offsets    the fit's cross-language cosine corrections " + _offsets(fitted.lang_offsets)
        if kept is not None and kept is not fitted and kept.lang_offsets and kept.lang_offsets != fitted.lang_offsets:
            line += f" (the gate kept has its own: {_offsets(kept.lang_offsets)})"
        out.print(line, markup=False)
    wrong = [s for s in result.samples if (s.p_loo >= 0.5) != s.answerable]
    if fitted is not None and wrong:
        out.print("misjudged by the fit (leave-one-out):")
        for s in sorted(wrong, key=lambda s: s.p_loo):
            label = "answerable" if s.answerable else "unanswerable"
            out.print(f"  p={s.p_loo:.2f} {s.id} ({label}; top {s.top_units[0]}, {fitted.feature}={s.values[fitted.feature]:.4f})")
    m = fitted.metrics if fitted is not None else {}
    if m.get("expected_unit_found") is not None:
        out.print(f"retrieval  an expected unit is among the sources for {m['expected_unit_found']:.0%} of answerable questions")


def _offsets(offsets: dict[str, float]) -> str:
    return ", ".join(f"{k} +{v:.4f}" for k, v in offsets.items())


def _f(value: float) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"
