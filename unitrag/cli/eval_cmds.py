"""Measurement commands: eval (BEIR data sets and labelled questions) and calibrate (the answerability gate)."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.table import Table

from ..config import Config, load_config
from ..content.problems import Problem
from ..content.loader import registry_size_limit
from ..content.registry import LoadedQuestion, dev_question_files, is_held_out, load_questions
from ..errors import ContentInvalid, UserError
from .output import ProgressBars, err, out, print_json
from .options import ConfigOpt, JsonOpt

if TYPE_CHECKING:
    from ..eval.report import EvalReport
    from ..rag.calibrate import Calibration



def register(app: typer.Typer) -> None:
    app.command("eval")(eval_cmd)
    app.command("calibrate")(calibrate_cmd)


def eval_cmd(
    beir: Annotated[Optional[Path], typer.Option("--beir", help="A data set in BEIR layout (corpus.jsonl, queries.jsonl, qrels/).")] = None,
    questions: Annotated[Optional[list[Path]], typer.Option(
        "--questions", help="Labelled questions, e.g. content/eval/questions.yaml; repeat it (dev, then test) to compare "
                            "them side by side per category. The --min-* gates read every held-out set among them "
                            "(a *_test.yaml file), or the last one when none is; --min-guard-* those of them that label "
                            "guard outcomes.")] = None,
    split: Annotated[str, typer.Option("--split", help="--beir: the qrels split to score.")] = "test",
    variants: Annotated[Optional[str], typer.Option(
        "--variants", help="Comma-separated: bm25, dense, hybrid, rerank, sparse, full [default: all].")] = None,
    kb: Annotated[Optional[str], typer.Option("--kb", help="--questions: the artifact [config: artifact].")] = None,
    embedder: Annotated[Optional[str], typer.Option("--embedder", help="--beir: embed the corpus with [config: embedder].")] = None,
    reranker: Annotated[Optional[str], typer.Option("--reranker", help="none, fusion, cross-encoder:<path>, flag:<name> or litellm:<model> [config: reranker].")] = None,
    llm: Annotated[Optional[str], typer.Option("--llm", help="--questions: generate answers and check their citations [config: llm].")] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", min=1, help="--beir: only the first N queries.")] = None,
    cache: Annotated[Path, typer.Option("--cache", help="--beir: where built corpora are kept.")] = Path(".unitrag/eval"),
    plot: Annotated[Optional[Path], typer.Option("--plot", help="Write a PNG comparing the variants.")] = None,
    min_ndcg: Annotated[Optional[float], typer.Option("--min-ndcg", help="Exit 1 when nDCG@10 of full is below.")] = None,
    min_notfound_f1: Annotated[Optional[float], typer.Option("--min-notfound-f1", help="Exit 1 when not-found F1 is below.")] = None,
    min_notfound_precision: Annotated[Optional[float], typer.Option(
        "--min-notfound-precision", help="Exit 1 when not-found precision (answerable questions kept from \"not found\") "
                                         "is below.")] = None,
    min_success: Annotated[Optional[float], typer.Option(
        "--min-success", help="--questions: exit 1 when Success@5 of same-language or either cross-lingual "
                               "category is below.")] = None,
    min_guard_recall: Annotated[Optional[float], typer.Option(
        "--min-guard-recall", help="--questions: exit 1 when red-flag recall is below.")] = None,
    min_guard_precision: Annotated[Optional[float], typer.Option(
        "--min-guard-precision", help="--questions: exit 1 when red-flag or out-of-scope precision is below.")] = None,
    min_guard_pass: Annotated[Optional[float], typer.Option(
        "--min-guard-pass", help="--questions: exit 1 when the share of near-misses (guard: pass) let through is below.")] = None,
    min_answer_facts: Annotated[Optional[float], typer.Option(
        "--min-answer-facts", help="--questions: exit 1 when the share of questions with answer_facts whose answer states "
                                   "every fact is below, in any answer mode (extractive; the LLM's with --llm); "
                                   "--unit-questions: the share of content tests that pass.")] = None,
    unit_questions: Annotated[bool, typer.Option(
        "--unit-questions", help="Content tests: ask every unit question written with facts ({q: ..., facts: [...]}) of "
                                 "--kb; each passes when its unit is among the first 5 sources and the answer states "
                                 "every fact. Gate with --min-answer-facts (1 fails on any failing test).")] = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown table (CI job summaries).")] = False,
    config: ConfigOpt = None,
    json: JsonOpt = False,
) -> None:
    """Score every pipeline variant on a BEIR data set or on labelled questions; gate on thresholds."""
    from ..eval.report import category_markdown, gate_failures, gated_reports

    if unit_questions:
        unused = [name for name, value in (
            ("--beir", beir), ("--questions", questions), ("--variants", variants), ("--plot", plot),
            ("--embedder", embedder), ("--limit", limit),
            ("--min-ndcg", min_ndcg), ("--min-notfound-f1", min_notfound_f1), ("--min-success", min_success),
            ("--min-notfound-precision", min_notfound_precision), ("--min-guard-recall", min_guard_recall),
            ("--min-guard-precision", min_guard_precision), ("--min-guard-pass", min_guard_pass)) if value is not None]
        if unused:
            raise UserError(f"--unit-questions runs on its own, asking with the configured search: {', '.join(unused)} "
                            f"{'does' if len(unused) == 1 else 'do'} not apply (gate it with --min-answer-facts)")
        _eval_unit_questions(load_config(config, reranker=reranker, llm=llm), kb, min_answer_facts, json, markdown)
        return
    if (beir is None) == (not questions):
        raise UserError("give exactly one of --beir DIR or --questions FILE (or --unit-questions)")
    if beir is not None and (min_notfound_f1, min_notfound_precision) != (None, None):
        raise UserError("--min-notfound-* need --questions: a BEIR data set has no unanswerable questions")
    if beir is not None and min_success is not None:
        raise UserError("--min-success needs --questions: a BEIR data set has no question categories")
    if beir is not None and min_answer_facts is not None:
        raise UserError("--min-answer-facts needs --questions: a BEIR data set has no answer facts")
    if beir is not None and (min_guard_recall, min_guard_precision, min_guard_pass) != (None, None, None):
        raise UserError("--min-guard-* need --questions: a BEIR data set has no guard labels")
    cfg = load_config(config, embedder=embedder, reranker=reranker, llm=llm)
    with ProgressBars(enabled=not (json or markdown)) as bars:
        reports = [_eval_beir(beir, split, variants, cfg, cache, limit, bars)] if beir is not None else \
            _eval_question_sets(questions or [], variants, cfg, kb, bars)
    report = reports[-1]
    if plot is not None:
        from ..eval.plot import plot_report

        plot_report(report, plot)
    if json:
        print_json(report.to_dict() if len(reports) == 1 else {"sets": [r.to_dict() for r in reports]})
    elif markdown:
        sys.stdout.write("".join(r.markdown() for r in reports))
        if beir is None:
            sys.stdout.write("\n" + category_markdown(reports))
            sys.stdout.write("\n" + _guard_markdown(reports))
    else:
        for r in reports:
            _print_eval(r, plot)
        if beir is None:
            _print_categories(reports)
            _print_guard(reports)
    gated = gated_reports(reports)
    failures = _named_failures(gated, lambda r: gate_failures(r, min_ndcg, min_notfound_f1, min_success,
                                                              min_notfound_precision))
    if beir is None:
        from ..eval.fact_report import fact_failures
        from ..eval.guard_report import guard_failures, has_guard_labels

        failures += _named_failures(gated, lambda r: fact_failures(r.extra.get("answer_facts"), min_answer_facts))

        guarded = [(name, r) for name, r in gated if has_guard_labels(r)] or gated[-1:]
        failures += _named_failures(guarded, lambda r: guard_failures(r, min_guard_recall, min_guard_precision,
                                                                      min_guard_pass))
    for failure in failures:
        err.print(f"[red]gate failed:[/] {failure}")
    if failures:
        raise typer.Exit(1)


def _eval_unit_questions(cfg: Config, kb: str | None, least: float | None, json: bool, markdown: bool) -> None:
    """``--unit-questions``: run the content's content tests (eval.content_tests), print them, gate them."""
    from rich.markup import escape

    from ..eval.content_tests import load_content_tests, run_content_tests
    from ..rag.knowledge_base import KnowledgeBase

    tests = load_content_tests(cfg)
    knowledge_base = KnowledgeBase.open(kb or cfg.artifact, config=cfg)
    with ProgressBars(enabled=not (json or markdown)) as bars:
        report = run_content_tests(knowledge_base, tests, bars.update if bars.enabled else None)
    if json:
        print_json(report.to_dict())
    elif markdown:
        sys.stdout.write(report.markdown())
    else:
        for line in report.summary_lines() + report.failures():
            out.print(escape(line), soft_wrap=True)  # one line per failing test, whole, for grep and editors
    failures = report.gate(least)
    for failure in failures:
        err.print(f"[red]gate failed:[/] {escape(failure)}")
    if failures:
        raise typer.Exit(1)


def _named_failures(sets: list[tuple[str, "EvalReport"]], check: Callable[["EvalReport"], list[str]]) -> list[str]:
    """``check``'s failures of each set, prefixed with the set's name when there are several."""
    return [f"{name}: {failure}" if len(sets) > 1 else failure for name, report in sets for failure in check(report)]


def _eval_beir(root: Path, split: str, spec: str | None, cfg: Config, cache: Path, limit: int | None,
               bars: ProgressBars) -> "EvalReport":
    from ..eval.beir import load_beir
    from ..eval.beir_build import beir_artifact
    from ..eval.beir_eval import evaluate_beir
    from ..eval.variants import parse_variants
    from ..rag.knowledge_base import KnowledgeBase

    chosen = parse_variants(spec, cfg.reranker != "none")
    dataset = load_beir(root, split)
    built = beir_artifact(dataset, cfg, cache, progress=bars.task(f"embedding {dataset.name}"))
    knowledge_base = KnowledgeBase.open(built.path, config=cfg)
    return evaluate_beir(knowledge_base, dataset, built.doc_ids, chosen, bars.update if bars.enabled else None, limit)


def _eval_question_sets(
    paths: list[Path], spec: str | None, cfg: Config, kb: str | None, bars: ProgressBars
) -> list["EvalReport"]:
    """One report per labelled-question file, from one opened knowledge base."""
    from ..eval.questions import evaluate_questions
    from ..eval.variants import parse_variants
    from ..rag.knowledge_base import KnowledgeBase

    chosen = parse_variants(spec, cfg.reranker != "none")
    labelled = [_load_questions(path, cfg) for path in paths]
    knowledge_base = KnowledgeBase.open(kb or cfg.artifact, config=cfg)
    if knowledge_base.retriever.gate is None:
        err.print("[yellow]warning:[/] no answerability gate is calibrated for this pipeline, so nothing is \"not found\": "
                  "run `unitrag calibrate --write calibration.json` and rebuild")
    return [evaluate_questions(knowledge_base, [lq.question for lq in questions], chosen,
                               bars.update if bars.enabled else None, dataset=str(path))
            for path, questions in zip(paths, labelled)]


def _print_facts(figures: dict) -> None:
    from rich.markup import escape

    from ..eval.fact_report import SHOWN_FAILING, failing_lines, fact_table

    _print_table("Answer facts (every fact stated (questions) / fact recall)", *fact_table(figures))
    for line in failing_lines(figures, SHOWN_FAILING):
        out.print(f"  {escape(line)}")


def _print_categories(reports: list["EvalReport"]) -> None:
    from ..eval.report import category_rows

    _print_table("By category (Success@5 of the last variant; unanswerable: share answered \"not found\")",
                 *category_rows(reports))


def _print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    """One titled table of text cells, never narrower than 100 columns (a pipe to a file keeps it whole)."""
    table = Table(title=title, title_justify="left")
    for column in header:
        table.add_column(column, no_wrap=True)
    for row in rows:
        table.add_row(*row)
    out.print(table, width=max(out.width, 100))


def _print_guard(reports: list["EvalReport"]) -> None:
    from ..eval.guard_report import guard_table
    from ..eval.report import set_names

    _print_table("Guard (P / R (hits/expected); near-misses: guard: pass)",
                 *guard_table(reports, set_names([r.dataset for r in reports])))


def _guard_markdown(reports: list["EvalReport"]) -> str:
    from ..eval.guard_report import guard_table
    from ..eval.report import set_names

    header, rows = guard_table(reports, set_names([r.dataset for r in reports]))
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"] + ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _load_questions(paths: Path | list[Path], cfg: Config) -> list[LoadedQuestion]:
    """Labelled questions from one file or several (an id defined in two of them is a problem), each
    read no further than ``max_file_bytes``, like the content's own."""
    paths = [paths] if isinstance(paths, Path) else paths
    for path in paths:
        if not path.is_file():
            raise UserError(f"labelled questions {path} not found (pass --questions)")
    problems: list[Problem] = []
    labelled = load_questions(paths, problems, registry_size_limit(cfg.max_file_bytes))
    if problems:
        raise ContentInvalid(problems)
    if not labelled:
        raise UserError(f"{', '.join(map(str, paths))}: no questions")
    return labelled


def _print_eval(report: "EvalReport", plot: Path | None) -> None:
    from ..eval.metrics import MEASURES
    from ..eval.report import summary_lines

    title = f"{report.dataset}: {report.primary.queries} scored, {report.pipeline['embedder']}, reranker {report.pipeline['reranker']}"
    table = Table(title=title, title_justify="left")
    for column in ("variant", *MEASURES, "q/s"):
        table.add_column(column, justify="left" if column == "variant" else "right", min_width=len(column), no_wrap=True)
    best = report.best()
    for v in report.variants.values():
        cells = [f"[bold green]{v.metrics[m]:.3f}[/]" if v.metrics[m] == best[m] else f"{v.metrics[m]:.3f}" for m in MEASURES]
        table.add_row(v.name, *cells, f"{v.qps:.0f}")
    out.print(table, width=max(out.width, 100))
    if report.pipeline.get("query_embedding_qps"):
        out.print(f"q/s: ranking only; queries were embedded once up front at {report.pipeline['query_embedding_qps']:.0f} q/s")
    for line in summary_lines(report):
        out.print(line)
    for leak in report.extra.get("restricted_leaks", [])[:10]:
        out.print(f"  [red]leak[/] {leak['question']} ({leak['where']}): {leak['chunk_id']} is {leak['access']}")
    if report.extra.get("answer_facts"):
        _print_facts(report.extra["answer_facts"])
    if plot is not None:
        out.print(f"wrote {plot}")


def calibrate_cmd(
    kb: Annotated[Optional[str], typer.Option("--kb", help="Artifact path [config: artifact].")] = None,
    questions: Annotated[Optional[list[Path]], typer.Option(
        "--questions", help="Labelled dev questions; repeat it for several files [default: every <content_dir>/eval/*.yaml "
                            "but the *_test.yaml ones].")] = None,
    write: Annotated[
        Optional[Path], typer.Option("--write", help="Add the gate to this calibration file (e.g. calibration.json).")
    ] = None,
    reranker: Annotated[Optional[str], typer.Option("--reranker", help="Calibrate this reranker [config: reranker].")] = None,
    sparse: Annotated[Optional[bool], typer.Option("--sparse/--no-sparse", help="Calibrate with or without the BM25 arm [config: sparse].")] = None,
    config: ConfigOpt = None,
    json: JsonOpt = False,
) -> None:
    """Fit the answerability gate (Platt scaling) for the configured query pipeline; report how well it separates."""
    from ..rag.calibrate import run_calibration
    from ..rag.gate import write_calibration
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
    labelled = _load_questions(paths, cfg)
    knowledge_base = KnowledgeBase.open(kb or cfg.artifact, config=cfg)
    try:
        result = run_calibration(knowledge_base, labelled)
    except ValueError as exc:
        raise UserError(f"cannot calibrate on {', '.join(map(str, paths))}: {exc}") from None
    if write is not None:
        write_calibration(write, result.gate)
    if json:
        print_json({**result.to_dict(), "questions_files": [str(p) for p in paths], "written": str(write) if write else None})
        return
    out.print(f"fitted on  {', '.join(map(str, paths))}")
    _print(result, write)


def _print(result: "Calibration", write: Path | None) -> None:
    gate, m = result.gate, result.gate.metrics
    table = Table(title="Candidate features (AUC of the raw score; LOO: of leave-one-out Platt probabilities)",
                  title_justify="left")
    for column in ("feature", "per language", "AUC", "AUC by language", "LOO AUC"):
        table.add_column(column)
    for c in result.candidates:
        chosen = c["feature"] == gate.feature and c["per_lang"] == bool(gate.by_lang) and set(c["mix"]) == set(gate.mix)
        by_lang = " ".join(f"{k} {v:.3f}" for k, v in c["auc_by_lang"].items())
        style = "bold green" if chosen else None
        table.add_row(" + ".join([c["feature"], *c["mix"]]), "yes" if c["per_lang"] else "no", f"{c['auc']:.3f}", by_lang, f"{c['loo_auc']:.3f}",
                      style=style)
    out.print(table)
    thresholds = ", ".join(f"{k}: {v:.4f}" for k, v in gate.thresholds.items() if v is not None)
    out.print(f"pipeline   {gate.pipeline_id}")
    mixed = "".join(f" + {w:.4f}·{name}" for name, w in gate.mix.items())
    out.print(f"gate       p = sigmoid(a·({gate.feature}{mixed}) + b), a={gate.a:.3f} b={gate.b:.3f}; p=0.5 at {thresholds}")
    if gate.lang_offsets:
        out.print("offsets    cross-language cosine corrections " + ", ".join(f"{k} +{v:.4f}" for k, v in gate.lang_offsets.items()))
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
