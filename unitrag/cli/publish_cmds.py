"""Operator-side command: publish the artifact to PostgreSQL + pgvector."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ..config import load_config
from .output import out, print_json, print_table
from .options import ConfigOpt

if TYPE_CHECKING:  # the publisher loads DuckDB and psycopg: only `unitrag publish` itself imports it
    from ..postgres.index import IndexSettings
    from ..postgres.publish import PublishReport


def register(app: typer.Typer) -> None:
    app.command("publish")(publish_cmd)


def publish_cmd(
    to: Annotated[str, typer.Option(
        "--to", envvar="UNITRAG_DATABASE_URL", show_envvar=True,
        help="postgresql://user:password@host:port/dbname (pgvector >= 0.8 on the server).",
    )],
    kb: Annotated[Optional[Path], typer.Option("--kb", help="Artifact to publish [config: artifact].")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the plan against the database; write nothing.")] = False,
    batch_size: Annotated[int, typer.Option("--batch-size", help="Chunks per transaction.")] = 1000,
    lock_timeout: Annotated[float, typer.Option("--lock-timeout", help="Seconds to wait for another publish to finish.")] = 60.0,
    hnsw_m: Annotated[Optional[int], typer.Option(
        "--hnsw-m", help="HNSW graph links per vector, 2-100; larger: better recall, slower build [publish: hnsw_m].")] = None,
    hnsw_ef_construction: Annotated[Optional[int], typer.Option(
        "--hnsw-ef-construction", help="HNSW build candidate list, 4-1000 and >= 2 x m [publish: hnsw_ef_construction].",
    )] = None,
    halfvec: Annotated[Optional[bool], typer.Option(
        "--halfvec/--no-halfvec", help="Index 16-bit copies of the vectors: half the index, faster build [publish: halfvec].",
    )] = None,
    hnsw_ef_search: Annotated[Optional[int], typer.Option(
        "--hnsw-ef-search", help="Search candidate list the runtime uses, 1-1000 [publish: hnsw_ef_search].")] = None,
    allow_older: Annotated[bool, typer.Option(
        "--allow-older", help="Publish a build older than the published one (a rollback; refused otherwise).")] = False,
    replace_kb: Annotated[bool, typer.Option(
        "--replace-kb", help="Replace a knowledge base of another name in this database or schema (refused otherwise).",
    )] = False,
    config: ConfigOpt = None,
    json: Annotated[bool, typer.Option("--json", help="Print one JSON object (plan counts and rows written).")] = False,
) -> None:
    """Sync the artifact into PostgreSQL incrementally: only what changed is sent; re-run after any interruption.

    The HNSW index is built with the given settings (defaults otherwise); an index built with others is rebuilt.
    An older build, or another knowledge base, is refused unless --allow-older or --replace-kb says it is meant.
    """
    from ..postgres.publish import publish
    from ..postgres.settings import load_index_settings
    from ..postgres.url import DatabaseUrl

    url = DatabaseUrl.parse(to)  # first: a bad URL is one line that never shows the password
    cfg = load_config(config, artifact=kb)
    index = load_index_settings(config, hnsw_m=hnsw_m, hnsw_ef_construction=hnsw_ef_construction, halfvec=halfvec,
                                hnsw_ef_search=hnsw_ef_search)
    report = publish(cfg.artifact, url, dry_run=dry_run, batch_size=batch_size, lock_timeout_s=lock_timeout, index=index,
                     allow_older=allow_older, replace_kb=replace_kb)
    if json:
        print_json(report.to_dict())
    else:
        _print(report)


def _print(report: PublishReport) -> None:
    from rich.table import Table

    title = f"Publish plan → {report.target}" + (" (dry run: nothing written)" if report.dry_run else "")
    table = Table(title=title, title_justify="left")
    table.add_column("action")
    table.add_column("chunks", justify="right")
    for action, count in report.plan.counts().items():
        table.add_row(action.replace("_", "-"), str(count))
    print_table(table)
    if report.plan.tables_changed:
        out.print(f"tables changed: {', '.join(report.plan.tables_changed)}")
    out.print(_index_line(report))
    if report.dry_run:
        return
    if not report.rows_written:
        out.print("up to date: nothing written")
        return
    written = ", ".join(f"{name} {n}" for name, n in report.rows_written.items() if n)
    out.print(f"wrote {written or 'nothing'} in {report.batches} transaction(s); readers now see generation "
              f"{report.generation} (the last transaction switched them over)")


def _index_line(report: PublishReport) -> str:
    """The index settings, and whether this publish (re)builds the graph."""
    def said(index: IndexSettings) -> str:
        return f"m {index.m}, ef_construction {index.ef_construction}, {index.storage}"

    now = f"{said(report.index)}, ef_search {report.index.ef_search}"
    if not report.index_rebuild:
        return f"HNSW index: {now} (as built)"
    before = f" (was {said(report.index_before)})" if report.index_before else ""
    verb = "would rebuild" if report.dry_run else "rebuilt"
    return f"HNSW index: {verb} with {now}{before}"
