"""Printing for the CLI: JSON for machines, rich tables for people, Markdown for CI summaries."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Console

if TYPE_CHECKING:  # the compiler and the runtime load NumPy and DuckDB: `unitrag --help` must not wait for them
    from rich.table import Table

    from ..compiler.pipeline import BuildReport
    from ..content.problems import Problem
    from ..rag.knowledge_base import Answer

out = Console()
if not out.is_terminal:  # a pipe or a CI log: text wraps at 120 columns; a table is printed whole (print_table)
    out = Console(width=120)
err = Console(stderr=True)
#: The widest a table is measured off a terminal: past any real table, short of a runaway one.
FULL_WIDTH = 100_000
#: The widest a column is printed off a terminal: a row of the usual tables stays on one line, however many columns,
#: and a cell of hundreds of characters (a list of unit ids) wraps in its column, whole, rather than making
#: 500-character lines of a CI log.
LOG_COLUMN_WIDTH = 100


class ProgressBars:
    """Rich progress bars on stderr, one per named task, shown only once there is work."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._bar: Any = None
        self._tasks: dict[str, Any] = {}

    def __enter__(self) -> "ProgressBars":
        return self

    def task(self, name: str) -> Callable[[int, int], None] | None:
        """A ``(done, total)`` callback for one task (None when disabled: nothing is drawn)."""
        return (lambda done, total: self.update(name, done, total)) if self.enabled else None

    def update(self, name: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            from rich.progress import Progress

            self._bar = Progress(console=err, transient=False)
            self._bar.start()
        if name not in self._tasks:
            self._tasks[name] = self._bar.add_task(name, total=total)
        self._bar.update(self._tasks[name], completed=done, total=total)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()


def print_table(table: Table) -> None:
    """Print ``table`` with no cell ever cut to "…". A file or a CI log gets it at its full width, however wide (nobody
    can widen a log afterwards, and ``COLUMNS`` does not reach a pipe), a cell past ``LOG_COLUMN_WIDTH`` wrapped in its
    column; a terminal gets its cells wrapped to fit. A word too long for its column is folded."""
    for column in table.columns:
        column.overflow = "fold"
        column.no_wrap = column.no_wrap and not out.is_terminal
        if not out.is_terminal:
            column.max_width = min(column.max_width or LOG_COLUMN_WIDTH, LOG_COLUMN_WIDTH)
    if out.is_terminal:
        out.print(table)
        return
    from rich.measure import Measurement
    from rich.segment import Segments

    width = max(out.width, Measurement.get(out, out.options.update_width(FULL_WIDTH), table).maximum)
    out.print(Segments(out.render(table, out.options.update_width(width))), crop=False)  # past the console's width


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def print_problems(problems: list[Problem], outcome: str = "nothing was written") -> None:
    """Each problem as path:line: field: message, then a count and ``outcome`` (what the command did instead)."""
    for p in problems:
        print(str(p), file=sys.stderr)
    files = len({p.path for p in problems})
    print(f"{len(problems)} problem(s) in {files} file(s); {outcome}", file=sys.stderr)


#: What ``print_answer`` says around an answer, in the answer's language: a Chinese reader gets no English headings.
ANSWER_HEADINGS = {
    "en": {"read_as": "Read as", "caution": "Safety note", "cited": "Answered from these units:",
           "others": "Also retrieved (not cited):", "none_cited": "Retrieved (the answer cites none of them):"},
    "zh": {"read_as": "按此理解", "caution": "安全提示", "cited": "回答依据的内容单元：",
           "others": "也检索到（未引用）：", "none_cited": "检索到（回答未引用其中任何一个）："},
}


def print_answer(answer: "Answer") -> None:
    """An answer for reading: ``[n]`` markers, the numbered references they point to, and the
    units it was answered from (``--json`` prints the raw answer with its ``<Cite/>`` tags)."""
    from rich.markup import escape

    from ..rag.answer.citations import number_citations

    text, references = number_citations(answer.answer, answer.citations)
    said = ANSWER_HEADINGS["zh" if answer.lang == "zh" else "en"]
    if answer.corrected:  # a misspelled topic word was read as the knowledge base's own (rag.search.spelling)
        out.print(f"[dim]{said['read_as']}: {escape(answer.corrected)}[/]\n", soft_wrap=True)
    out.print(escape(text), soft_wrap=True)  # the terminal wraps: rich would break before a long CJK run
    if answer.caution is not None:  # a red flag framed as not acute: the rule's safety line, set apart
        out.print(f"\n[bold yellow]{said['caution']}:[/] {escape(answer.caution.response)}", soft_wrap=True)
    if references:
        out.print("")
        for ref in references:
            link = f" {ref.link}" if ref.link else ""
            out.print(escape(f"[{ref.number}] {ref.citation.title} ({ref.citation.year}){link}"), soft_wrap=True)
    units = {s.unit_id: s.title for s in answer.sources}
    if units and answer.guard is None and not answer.not_found:
        cited = answer.cited_units
        others = [unit_id for unit_id in units if unit_id not in cited]
        headings = ((said["cited"], cited), (said["others"], others)) if cited else ((said["none_cited"], others),)
        for heading, ids in headings:
            if ids:
                out.print(f"\n[dim]{heading}[/]")
                for unit_id in ids:
                    out.print(f"[dim]  {escape(unit_id)}: {escape(units[unit_id])}[/]")
    if answer.extractive and answer.llm_error:
        out.print(f"\n[dim](extractive answer: {escape(answer.llm_error)})[/]")


def print_summary(location: str, note: str, manifest: dict[str, Any], chunks_by: list[dict[str, Any]]) -> None:
    """``unitrag inspect``: a knowledge base's location (a path, or a URL already redacted), its manifest and its
    chunks by kind, language and access; keys a publish in progress has not written yet show as ``?``."""
    from rich.markup import escape

    embedder, chunker = manifest.get("embedder") or {}, manifest.get("chunker") or {}
    out.print(f"[bold]{escape(location)}[/] ({escape(note)}), schema v{manifest.get('schema_version', '?')}")
    out.print(escape(f"embedder {embedder.get('id', '?')} ({embedder.get('dim', '?')} dims), chunker v{chunker.get('version', '?')}, "
                     f"built {manifest.get('built_at', '?')}, {_commit(manifest)}"))
    identity = manifest.get("identity")
    if isinstance(identity, dict) and identity.get("name"):  # built before identities were recorded: nothing to say
        described = f": {identity['description']}" if identity.get("description") else ""
        out.print(escape(f"knowledge base \"{identity['name']}\"{described}"))
        localized = identity.get("localized")
        for lang, texts in (localized.items() if isinstance(localized, dict) else ()):
            if isinstance(texts, dict):
                said = "; ".join(f"{key} \"{texts[key]}\"" for key in ("name", "description") if texts.get(key))
                out.print(escape(f"  in {lang}: {said}"))
    publish = manifest.get("publish")
    if isinstance(publish, dict):
        generation = f", generation {publish['generation']}" if publish.get("generation") is not None else ""
        when = publish.get("completed_at") if publish.get("state") == "complete" else f"started {publish.get('started_at', '?')}"
        out.print(escape(f"publish: {publish.get('state', '?')} ({when}{generation})"))
    counts = manifest.get("counts") or {}
    out.print("counts: " + ", ".join(f"{k} {v}" for k, v in counts.items() if not isinstance(v, dict)))
    for row in chunks_by:
        out.print(escape(f"  {row['kind']:<9} {row['lang']:<3} {row['access']:<10} {row['chunks']}"))


def _commit(manifest: dict[str, Any]) -> str:
    """The content's git commit, or why there is none (built outside a git checkout)."""
    commit = manifest.get("git_commit")
    return f"commit {commit}" if commit else "no git commit recorded (the content was not in a committed git checkout when built)"


def _lines(report: BuildReport, limit: int = 20) -> list[tuple[str, int, str]]:
    plan = report.plan
    rows = []
    for action in ("new", "changed", "metadata_only", "deleted", "unchanged"):
        ids: list[str] = getattr(plan, action)
        shown = "" if action == "unchanged" else ", ".join(ids[:limit]) + (f" … (+{len(ids) - limit})" if len(ids) > limit else "")
        rows.append((action.replace("_", "-"), len(ids), shown))
    return rows


def _access_lines(report: BuildReport, limit: int = 20) -> list[tuple[str, str]]:
    """(label, text) for the plan's access changes: units becoming public first, then the others, each from → to."""
    changes = report.plan.access_changes
    public = [c for c in changes if c["to"] == "public"]
    others = [c for c in changes if c["to"] != "public"]

    def listed(items: list[dict[str, str]]) -> str:
        shown = ", ".join(f"{c['unit']} ({c['from']} → {c['to']})" for c in items[:limit])
        return shown + (f" … (+{len(items) - limit})" if len(items) > limit else "")

    lines = []
    if public:
        lines.append(("MADE PUBLIC", f"{len(public)} unit(s) that were restricted will be served to anyone: {listed(public)}"))
    if others:
        lines.append(("access changed", f"{len(others)} unit(s): {listed(others)}"))
    return lines


def print_report(report: BuildReport) -> None:
    from rich.table import Table

    plan = report.plan
    title = "Build plan (dry run: nothing written)" if report.dry_run else "Build plan"
    table = Table(title=title, title_justify="left")
    table.add_column("action")
    table.add_column("chunks", justify="right")
    table.add_column("ids")
    for action, count, ids in _lines(report):
        table.add_row(action, str(count), ids)
    print_table(table)
    from rich.markup import escape

    for label, text in _access_lines(report):
        style = "bold red" if label == "MADE PUBLIC" else "yellow"
        out.print(f"[{style}]{label}:[/] {escape(text)}", soft_wrap=True)
    if plan.full_reembed_reason:
        out.print(f"[bold yellow]FULL RE-EMBED:[/] {plan.full_reembed_reason}")
    if plan.tables_changed:
        out.print(f"tables changed: {', '.join(plan.tables_changed)}")
    if not plan.sweep_deletes:
        out.print("[yellow]deletes not swept: part of the content tree could not be read[/]")
    if report.gaps:
        out.print(f"declared gaps ({len(report.gaps)} topics no unit carries; a question naming one leans to "
                  f"\"not found\"): {', '.join(report.gaps)}")
    if report.starter_note:
        err.print(f"note: {report.starter_note}", markup=False, highlight=False, soft_wrap=True)
    _print_guard_stops_own(report.guard_stops_own)
    _print_near_misses_stopped(report.guard_stops_near_misses)
    if report.red_flags_without_examples:
        err.print(f"[yellow]warning:[/] red-flag rule(s) with no examples stop only what their patterns foresaw, not "
                  f"a question put another way: {', '.join(report.red_flags_without_examples)}; give each 6+ examples "
                  "per language (docs/authoring.md, guard rules)", soft_wrap=True)
    if report.dry_run:
        out.print(report.estimate.describe(report.embedder) if report.estimate else f"would embed {len(plan.to_embed)} chunk(s) with {report.embedder}")
        return
    if not report.written:
        out.print(f"up to date: {report.artifact} ({report.chunks} chunks, {report.units} units)")
        return
    out.print(
        f"embedded {report.embedded} chunk(s), {report.from_cache} from cache, with {report.embedder} "
        f"→ {report.artifact} ({report.chunks} chunks, {report.units} units)"
    )
    if report.pending:
        out.print(f"[yellow]pending (content changed, needs embedding):[/] {', '.join(report.pending)}")


def report_markdown(report: BuildReport) -> str:
    """The plan as a Markdown table, for a CI job summary."""
    lines = [f"### unitrag build plan ({report.embedder})", "", "| action | chunks | ids |", "| --- | ---: | --- |"]
    lines += [f"| {a} | {n} | {ids} |" for a, n, ids in _lines(report)]
    for label, text in _access_lines(report):
        lines += ["", f"**{label}:** {text}"]
    if report.plan.full_reembed_reason:
        lines += ["", f"**Full re-embed:** {report.plan.full_reembed_reason}"]
    if report.estimate is not None and report.estimate.chunks:
        lines += ["", report.estimate.describe(report.embedder)]
    if report.gaps:
        lines += ["", f"Declared gaps (topics no unit carries): {', '.join(report.gaps)}"]
    return "\n".join(lines) + "\n"


def as_written(pattern: str) -> str:
    """``pattern`` in single quotes as its author wrote it, to paste back into guard.yaml: its backslashes single, not
    doubled as ``repr`` shows them; only what cannot be seen (a newline, a tab, a zero-width space) escaped as ``repr``
    does, so the message stays one line."""
    return "'" + "".join(c if c.isprintable() else repr(c)[1:-1] for c in pattern) + "'"


def _print_guard_stops_own(found: list[dict[str, Any]]) -> None:
    """The units' own questions a guard rule would stop, with what to do about each kind: the questions one pattern
    stops in one line, with the pattern and one of them (an artifact built before patterns were named: each alone)."""
    if not found:
        return
    err.print(f"[yellow]warning:[/] the guard would stop {len(found)} of the units' own questions (before reading "
              "their framing); a unit answers each, so unless it describes an emergency it should not be stopped:")
    by_pattern: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for f in found:
        if f["by"] == "pattern" and f.get("pattern") is not None:
            by_pattern.setdefault((f["rule"], f["pattern"]), []).append(f)
    for (rule, pattern), stopped in by_pattern.items():
        first = stopped[0]
        of = f"{len(stopped)} of them, e.g. " if len(stopped) > 1 else ""
        err.print(f"  {rule}: pattern {as_written(pattern)} stops {of}{first['unit']}: {first['text']!r}: "
                  f"narrow this pattern in guard.yaml{_OR_EXEMPT if first.get('restricted') else ''}",
                  markup=False, highlight=False, soft_wrap=True)
    for f in found:
        if f["by"] == "pattern" and f.get("pattern") is not None:
            continue
        how = ("narrow the rule's pattern in guard.yaml" if f["by"] == "pattern"
               else "add near-misses like it to the rule in guard.yaml (each lowers such scores a little)")
        err.print(f"  {f['unit']}: {f['text']!r} → {f['rule']} ({f['by']}): {how}"
                  f"{_OR_EXEMPT if f.get('restricted') else ''}", markup=False, highlight=False, soft_wrap=True)


#: What a restricted unit's question stopped by a rule may also need: the staff's own procedure behind the public's stop.
_OR_EXEMPT = (", or, if the restricted role should be answered past the rule (its own procedure for what the public "
              "is stopped for), mark the rule exempt_restricted_role: true")


def _print_near_misses_stopped(found: list[dict[str, Any]]) -> None:
    """Near-misses (questions a rule's authors say must pass) that one of the rule's own patterns stops."""
    if not found:
        return
    err.print(f"[yellow]warning:[/] {len(found)} near-miss(es) in guard.yaml, questions its authors say must pass, "
              "are stopped by their own rule's pattern (the classifier cannot undo a pattern's match):")
    for f in found:
        err.print(f"  {f['rule']}: pattern {as_written(f['pattern'])} stops the near-miss {f['text']!r}: "
                  "narrow this pattern, or drop the near-miss if the rule should stop it", markup=False, highlight=False, soft_wrap=True)
