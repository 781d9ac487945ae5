"""Author-side commands: validate, build, schema, inspect."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..config import Config, load_config
from ..errors import UserError
from .output import ProgressBars, err, out, print_json, print_problems, print_report, print_summary, report_markdown
from .options import ConfigOpt, JsonOpt

ContentOpt = Annotated[Optional[Path], typer.Option("--content", help="Content folder [config: content_dir].")]


def register(app: typer.Typer) -> None:
    app.command("validate")(validate)
    app.command("build")(build_cmd)
    app.command("schema")(schema)
    app.command("inspect")(inspect)


def _calibration_problems(cfg: Config) -> list[Any]:
    """calibration.json as the build reads it: a damaged gate (``"a": 1e400`` would switch "not found" off) fails
    validation in the pull request, not the build after the merge."""
    from ..compiler.calibration_file import read_calibration
    from ..content.files import display_path
    from ..content.problems import Problem

    try:
        read_calibration(cfg.calibration_file)
    except UserError as exc:
        shown = display_path(cfg.calibration_file)
        return [Problem(shown, 1, "file", str(exc).removeprefix(f"{cfg.calibration_file}: "))]
    return []


def validate(content: ContentOpt = None, config: ConfigOpt = None, json: JsonOpt = False) -> None:
    """Check every unit and registry file; print each problem as path:line: field: message."""
    from ..content.unit_cache import UnitCache  # each command imports its own machinery: `--help` stays fast
    from ..content.validate import validate_content

    cfg = load_config(config, content_dir=content)
    cache = UnitCache(cfg.cache_dir)
    result = validate_content(cfg.content_dir, cfg.max_unit_bytes, cache, cfg.max_file_bytes, cfg.languages,
                              cfg.max_question_chars, cfg.restricted_role)
    cache.save()  # the next run reads only the files that changed
    from ..compiler.prompts import prompt_problems  # jinja2 only for this command

    templates, template_problems = prompt_problems(cfg.prompts_dir, cfg.max_prompt_chars)
    problems = sorted([*result.problems, *template_problems, *_calibration_problems(cfg)])
    starters = sum(1 for loaded in result.units if loaded.unit is not None and loaded.unit.starter)
    if json:
        print_json({"ok": not problems, "units": len(result.units), "starter_units": starters,
                    "stale_starter_questions": len(result.stale_starters),
                    "prompt_templates": templates, "problems": [p.to_dict() for p in problems],
                    "notes": [n.to_dict() for n in result.notes]})
        if problems:
            raise typer.Exit(1)
        return
    flawed = {p.path for p in problems}  # a unit that passed its schema may still have a problem between files
    valid = (f"{sum(1 for u in result.units if u.path not in flawed)} units, {len(result.citations)} citations, "
             f"{len(result.taxonomy.topics)} topics, {len(result.guard_rules)} guard rules")
    for note in result.notes:
        err.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)
    if problems:  # validate never writes anything: say what it read instead
        print_problems(problems, f"checked every file in {cfg.content_dir} and {cfg.prompts_dir}; valid: {valid}, "
                                 f"{templates} prompt templates")
        raise typer.Exit(1)
    out.print(f"ok: {valid} in {cfg.content_dir}; {templates} prompt templates in {cfg.prompts_dir}")
    if result.stale_starter_note:
        out.print(f"note: {result.stale_starter_note}", markup=False, highlight=False, soft_wrap=True)
    if starters:
        out.print(f"{starters} starter units (starter: true) are examples from `unitrag init`: replace them with "
                  "your own", markup=False, highlight=False)


def build_cmd(
    content: ContentOpt = None,
    out_path: Annotated[Optional[Path], typer.Option("--out", help="Artifact path [config: artifact].")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the plan; write nothing, load no model.")] = False,
    reconcile: Annotated[bool, typer.Option("--reconcile", help="Apply metadata-only changes and deletes without a model.")] = False,
    full: Annotated[bool, typer.Option("--full", help="Ignore the previous artifact and the cache; embed everything.")] = False,
    embedder: Annotated[Optional[str], typer.Option("--embedder", help="provider:model [config: embedder].")] = None,
    batch_size: Annotated[Optional[int], typer.Option("--batch-size", help="Texts per embedding call [config: batch_size].")] = None,
    chunk_tokens: Annotated[Optional[int], typer.Option("--chunk-tokens", help="Chunk budget in estimated tokens, capped by the embedder's input [config: chunk_tokens].")] = None,
    cache_dir: Annotated[Optional[Path], typer.Option("--cache-dir", help="Embedding cache folder [config: cache_dir].")] = None,
    prompts: Annotated[Optional[Path], typer.Option("--prompts", help="Prompt templates folder [config: prompts_dir].")] = None,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the plan as Markdown (CI job summary).")] = False,
    allow_empty: Annotated[
        bool, typer.Option("--allow-empty", help="Allow an artifact with no units (replacing every unit with new ones needs no flag).")
    ] = False,
    config: ConfigOpt = None,
    json: JsonOpt = False,
) -> None:
    """Compile the content into the artifact, embedding only what changed."""
    from ..compiler.pipeline import build

    cfg = load_config(
        config, content_dir=content, artifact=out_path, embedder=embedder, batch_size=batch_size,
        chunk_tokens=chunk_tokens, cache_dir=cache_dir, prompts_dir=prompts,
    )
    _check_output(cfg)  # before anything is read or planned, dry run or not
    from ..errors import ContentInvalid

    try:
        with ProgressBars(enabled=not json) as bars:
            report = build(
                cfg, dry_run=dry_run, reconcile=reconcile, full=full, allow_empty=allow_empty, progress=bars.task("embedding")
            )
    except ContentInvalid as exc:
        if not json:
            raise
        # --json promises one object: the problems, as `validate --json` gives them (they go to stderr too, as text)
        print_json({"ok": False, "written": False, "problems": [p.to_dict() for p in exc.problems]})
        raise
    report.guard_stops_near_misses = _stopped_whatever_the_framing(report.guard_stops_near_misses)
    if json:
        print_json(report.to_dict())
    elif markdown:
        print(report_markdown(report), end="")
    else:
        print_report(report)
    _warn_uncalibrated(cfg, report.embedder)


def _stopped_whatever_the_framing(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The near-misses a rule's own pattern stops (``compiler.guard_examples.near_misses_stopped``) that the runtime
    stops too: an out-of-scope rule's, and a red flag's unless its framing reads clearly not acute (past, study,
    prevention: answered, with the rule's caution note), as the sample's "a school report on suicide prevention" is."""
    if not any(f.get("type") == "red_flag" for f in found):
        return found
    from ..content.text.unicode_fold import normalize_question
    from ..rag.guard.framing import read_framing

    return [f for f in found
            if f.get("type") != "red_flag" or not read_framing(normalize_question(f["text"])).clearly_not_acute]


def _check_output(cfg: Config) -> None:
    """Refuse an artifact path a build must never write: inside the content or prompts folder (it would replace an
    author's file, and be read back as content), a FIFO or a device, or an existing file that is not a DuckDB
    artifact (a YAML file passed as --out by mistake: a damaged artifact keeps DuckDB's header, and --full replaces it)."""
    from ..artifact.reader import refuse_non_artifact

    target = Path(os.path.realpath(cfg.artifact))  # through links: a link into content/ is inside it
    for folder, key in ((cfg.content_dir, "content_dir"), (cfg.prompts_dir, "prompts_dir")):
        if target.is_relative_to(os.path.realpath(folder)):
            raise UserError(f"cannot write the artifact to {cfg.artifact}: it is inside the {key} folder {folder}, "
                            "whose files are the knowledge base's sources; choose an --out (or `artifact` in "
                            "unitrag.toml) outside it, e.g. dist/kb.duckdb")
    from ..compiler.cache import FILE as CACHE_FILE

    if target == Path(os.path.realpath(Path(cfg.cache_dir) / CACHE_FILE)):  # said before "cannot be opened … rebuild"
        raise UserError(f"cannot write the artifact to {cfg.artifact}: it is the embedding cache's file "
                        f"({Path(cfg.cache_dir) / CACHE_FILE}); choose another --out, or another --cache-dir")
    refuse_non_artifact(cfg.artifact)


def _warn_uncalibrated(cfg: Config, embedder: str) -> None:
    """Say (on stderr) when the answerability gate in use will not be one fitted on this content's questions."""
    from ..compiler.tables import read_calibration
    from ..content.loader import registry_size_limit
    from ..content.registry import dev_question_files, load_questions
    from ..rag.gate import pipeline_id
    from ..rag.calibration_file import build_warning

    questions = [lq.question for lq in load_questions(dev_question_files(cfg.content_dir), [],
                                                         registry_size_limit(cfg.max_file_bytes))]
    message = build_warning(read_calibration(cfg.calibration_file), pipeline_id({"embedder": {"id": embedder}}, cfg), questions)
    if message:
        err.print(f"[yellow]warning:[/] {message}")


def schema(
    directory: Annotated[Path, typer.Option("--dir", help="Where to write the JSON Schemas.")] = Path("schema"),
) -> None:
    """Write JSON Schemas for units, citations, topics and guard rules (for editors)."""
    from ..content.json_schema import write_schemas

    for path in write_schemas(directory):
        out.print(f"wrote {path}")


def inspect(
    kb: Annotated[Optional[str], typer.Argument(
        help="Artifact path, or a postgresql:// URL published to [config: artifact].")] = None,
    config: ConfigOpt = None,
    json: JsonOpt = False,
) -> None:
    """Show what an artifact or a published database holds: manifest, counts by kind, language and access.

    An artifact whose tables do not hold what its manifest records is reported damaged (exit 1), as search says."""
    if kb is not None and "://" in kb:  # a URL, as KnowledgeBase.open tells them apart
        from ..postgres.summary import published_summary
        from ..postgres.url import SCHEMES, redacted_location

        if not kb.startswith(SCHEMES):
            raise UserError(f"{redacted_location(kb)}: not a location unitrag opens; give an artifact path "
                            "(dist/kb.duckdb) or a postgresql:// URL published with `unitrag publish`")
        info = published_summary(kb)
        where, note = info["database"], "published"
    else:
        from ..artifact.integrity import check_counts
        from ..artifact.reader import open_artifact, read_manifest

        cfg = load_config(config, artifact=Path(kb) if kb is not None else None)
        with open_artifact(cfg.artifact) as con:
            check_counts(con, cfg.artifact)  # the command an operator checks a file with: damaged tables said, exit 1
            manifest = read_manifest(con)
            by = con.execute("SELECT kind, lang, access, count(*) FROM chunks GROUP BY ALL ORDER BY ALL").fetchall()
        info = {
            "artifact": str(cfg.artifact), "size_bytes": cfg.artifact.stat().st_size, "manifest": manifest,
            "chunks_by": [{"kind": k, "lang": lg, "access": a, "chunks": n} for k, lg, a, n in by],
        }
        where, note = str(cfg.artifact), f"{info['size_bytes'] / 1e6:.1f} MB"
    if json:
        print_json(info)
        return
    print_summary(where, note, info["manifest"], info["chunks_by"])
