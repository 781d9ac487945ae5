"""The measurement command: eval, on BEIR data sets and labelled questions (``calibrate_cmd`` fits the gate)."""

from __future__ import annotations

import math
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.table import Table

from ..config import Config, load_config
from ..errors import ContentInvalid, UserError
from .output import ProgressBars, err, out, print_json, print_table
from .options import ConfigOpt, JsonOpt

if TYPE_CHECKING:  # the content model (pydantic, YAML) loads only when a command runs: `--help` stays fast
    from ..content.problems import Problem
    from ..content.registry import LoadedQuestion
    from ..eval.gates import GateResult
    from ..eval.report import EvalReport
    from ..rag.knowledge_base import KnowledgeBase



def register(app: typer.Typer) -> None:
    app.command("eval")(eval_cmd)


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
    plot: Annotated[Optional[Path], typer.Option("--plot", help="Write a picture comparing the variants (.png, .svg or .pdf, by the name).")] = None,
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
        "--min-guard-pass", help="--questions: exit 1 when the share of near-misses (guard: pass or caution) answered is below.")] = None,
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
    from ..eval.report import category_markdown, gated_reports

    _check_shares({"--min-ndcg": min_ndcg, "--min-notfound-f1": min_notfound_f1, "--min-success": min_success,
                   "--min-notfound-precision": min_notfound_precision, "--min-answer-facts": min_answer_facts,
                   "--min-guard-recall": min_guard_recall, "--min-guard-precision": min_guard_precision,
                   "--min-guard-pass": min_guard_pass})
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
    if plot is not None:  # said now, not after the whole evaluation
        from ..eval.plot import check_plot_path

        check_plot_path(plot)
    cfg = load_config(config, embedder=embedder, reranker=reranker, llm=llm)
    with ProgressBars(enabled=not (json or markdown)) as bars:
        reports = [_eval_beir(beir, split, variants, cfg, cache, limit, bars)] if beir is not None else \
            _eval_question_sets(questions or [], variants, cfg, kb, bars)
    report = reports[-1]
    if plot is not None:
        from ..eval.plot import plot_report

        plot = plot_report(report, plot)  # the file written
    if json:
        from ..eval.pooled import pooled

        print_json(report.to_dict() if len(reports) == 1 else {"sets": [r.to_dict() for r in reports],
                                                                 "pooled": pooled(reports)})
    elif markdown:
        sys.stdout.write("".join(r.markdown() for r in reports))
        if beir is None:
            from ..eval.pooled import pooled_reports

            sys.stdout.write("\n" + category_markdown(reports + pooled_reports(reports)))
            sys.stdout.write("\n" + _guard_markdown(reports))
    else:
        for r in reports:
            _print_eval(r, plot)
        if beir is None:
            _print_categories(reports)
            _print_guard(reports)
    thresholds = {"--min-ndcg": min_ndcg, "--min-notfound-f1": min_notfound_f1, "--min-success": min_success,
                  "--min-notfound-precision": min_notfound_precision, "--min-answer-facts": min_answer_facts,
                  "--min-guard-recall": min_guard_recall, "--min-guard-precision": min_guard_precision,
                  "--min-guard-pass": min_guard_pass}
    verdict = _gate(gated_reports(reports), thresholds, questions=beir is None)
    for warning in verdict.warnings:
        err.print(f"[yellow]gate warning:[/] {warning}")
    for failure in verdict.failures:
        err.print(f"[red]gate failed:[/] {failure}")
    if verdict.failures:
        raise typer.Exit(1)


def _check_shares(thresholds: dict[str, float | None]) -> None:
    """Each gate a finite share, 0 or more: ``nan`` failed every gate with "below nan", and -1 gated nothing. One above 1
    can never be met: it fails the gate on purpose (a test of the gate itself), and is taken."""
    for flag, value in thresholds.items():
        if value is not None and not (math.isfinite(value) and value >= 0.0):
            raise UserError(f"{flag}: expected a share from 0 to 1 (0.8 for 80%), got {value:g}")


def _gate(gated: list[tuple[str, EvalReport]], thresholds: dict[str, float | None], questions: bool) -> GateResult:
    """The ``--min-*`` gates of every gated set (eval.gates: small sets warn unless clearly below), each
    failure or warning prefixed with its set's name when there are several; the guard's on the sets that label it."""
    from ..eval.gates import (
        GateResult,
        fact_figures,
        gate,
        guard_figures,
        retrieval_figures,
    )
    from ..eval.guard_report import has_guard_labels

    verdict = GateResult([], [])
    guarded = [(name, r) for name, r in gated if has_guard_labels(r)] or gated[-1:]
    for name, report in gated:
        figures = retrieval_figures(report) + (fact_figures(report) if questions else [])
        figures += guard_figures(report) if questions and (name, report) in guarded else []
        verdict.extend(gate(figures, thresholds, report), f"{name}: " if len(gated) > 1 else "")
    return verdict


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
    loaded = [_load_questions(path, cfg) for path in paths]  # a bad file is refused before the model loads
    knowledge_base = KnowledgeBase.open(kb or cfg.artifact, config=cfg)
    labelled = [_without_stale_starters(questions, knowledge_base) for questions in loaded]
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
    from ..eval.pooled import pooled_reports
    from ..eval.report import category_rows

    _print_table("By category (Success@5 of the last variant; unanswerable: share answered \"not found\")",
                 *category_rows(reports + pooled_reports(reports)))


def _print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    """One titled table of text cells, each on one line where the width allows (``print_table``: never cut)."""
    table = Table(title=title, title_justify="left")
    for column in header:
        table.add_column(column, no_wrap=True)
    for row in rows:
        table.add_row(*row)
    print_table(table)


def _print_guard(reports: list["EvalReport"]) -> None:
    from ..eval.guard_report import guard_table
    from ..eval.report import set_names

    _print_table("Guard (P / R (hits/expected); near-misses: guard: pass or caution, answered with a note or without)",
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
    from ..content.loader import registry_size_limit
    from ..content.registry import load_questions, too_long

    paths = [paths] if isinstance(paths, Path) else paths
    for path in paths:
        _check_questions_file(path)
    twice = next((p for i, p in enumerate(paths) if any(p.resolve() == q.resolve() for q in paths[:i])), None)
    if twice is not None:  # else every one of its ids is "defined twice", each pointing at itself
        raise UserError(f"--questions {twice} is given twice: pass each file once")
    problems: list[Problem] = []
    labelled = load_questions(paths, problems, registry_size_limit(cfg.max_file_bytes))
    problems.extend(too_long(labelled, cfg.max_question_chars))
    if problems:
        raise ContentInvalid(problems, "nothing was evaluated")
    if not labelled:
        raise UserError(f"{', '.join(map(str, paths))}: no questions")
    return labelled


def _check_questions_file(path: Path) -> None:
    """A UserError unless ``path`` is a regular file: by its status, before any open (a FIFO would hang)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        from ..content.errors import misspelled_file

        meant = misspelled_file(path)
        hint = f"did you mean {meant}?" if meant else "give the path of a labelled questions file with --questions"
        raise UserError(f"labelled questions {path} not found: {hint}") from None
    except OSError as exc:
        raise UserError(f"labelled questions {path}: cannot read it ({exc.strerror or exc})") from None
    if stat.S_ISDIR(mode):
        raise UserError(f"labelled questions {path} is a directory: pass a YAML file, e.g. {path / 'questions.yaml'}")
    if not stat.S_ISREG(mode):
        raise UserError(f"labelled questions {path} is not a regular file (a FIFO or a device): pass a YAML file")


def _known_ids_problems(labelled: list[LoadedQuestion], knowledge_base: "KnowledgeBase") -> list["Problem"]:
    """What validate says of a question in content/eval naming an id its content lacks, said here of the ids the
    artifact lacks: a question expecting a unit that is not there scores 0 whatever the pipeline does."""
    from ..content.validate import question_id_problems

    known = knowledge_base.known
    rule_types = {rule["id"]: rule.get("type") for rule in knowledge_base.store.guard_rules}
    return sorted(problem for lq in labelled for problem in question_id_problems(
        lq, known.kind_of, lambda unit_id: known.access_of(unit_id) is not None, rule_types, known.topics,
        knowledge_base.restricted_role))


def _without_stale_starters(labelled: list[LoadedQuestion], knowledge_base: "KnowledgeBase") -> list[LoadedQuestion]:
    """The questions but the starter ones about starter units or rules this knowledge base no longer has (noted)."""
    from ..content.registry import stale_starter, stale_starter_note

    rules = {rule["id"] for rule in knowledge_base.store.guard_rules}

    def has_unit(unit_id: str) -> bool:
        return knowledge_base.known.kind_of(unit_id) is not None

    kept: list[LoadedQuestion] = []
    stale: list[LoadedQuestion] = []
    for lq in labelled:
        (stale if stale_starter(lq.question, has_unit, rules.__contains__) else kept).append(lq)
    note = stale_starter_note(stale)
    problems = _known_ids_problems(kept, knowledge_base)  # before any question is asked
    if problems:
        raise ContentInvalid(problems, "nothing was run: the knowledge base does not hold these ids (fix the "
                                       "questions, or build the artifact from the content they are about)")
    if note and not kept:
        raise UserError(f"no questions left: {note}")
    if note:
        err.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)
    return kept


def _print_eval(report: "EvalReport", plot: Path | None) -> None:
    from ..eval.metrics import MEASURES
    from ..eval.report import summary_lines

    title = f"{report.dataset}: {report.primary.queries} scored, {report.pipeline['embedder']}, reranker {report.pipeline['reranker']}"
    if not report.primary.queries:  # guard questions only (or only unanswerable ones): no ranking to show
        out.print(f"{report.dataset}: no question expects a unit, so no retrieval figures; "
                  f"{report.pipeline['embedder']}, reranker {report.pipeline['reranker']}", soft_wrap=True)
    else:
        _print_variants(report, title)
    for line in summary_lines(report):
        out.print(line)
    for leak in report.extra.get("restricted_leaks", [])[:10]:
        out.print(f"  [red]leak[/] {leak['question']} ({leak['where']}): {leak['chunk_id']} is {leak['access']}")
    if report.extra.get("answer_facts"):
        _print_facts(report.extra["answer_facts"])
    if plot is not None:
        out.print(f"wrote {plot}")


def _print_variants(report: "EvalReport", title: str) -> None:
    from ..eval.metrics import MEASURES

    table = Table(title=title, title_justify="left")
    for column in ("variant", *MEASURES, "q/s"):
        table.add_column(column, justify="left" if column == "variant" else "right", min_width=len(column), no_wrap=True)
    best = report.best()
    for v in report.variants.values():
        cells = [v.cell(m, best, "[bold green]{}[/]") for m in MEASURES]
        table.add_row(v.name, *cells, f"{v.qps:.0f}")
    print_table(table)
    if report.pipeline.get("query_embedding_qps"):
        out.print(f"q/s: ranking only; queries were embedded once up front at {report.pipeline['query_embedding_qps']:.0f} q/s")
