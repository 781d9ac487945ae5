"""Publishing an artifact to PostgreSQL: an incremental sync by the build's own hashes, switched in atomically.

The target's chunks are diffed against the artifact's by ``chunk_id``,
``content_hash`` and ``meta_hash`` (the build's plan, one level down): new and
changed chunks are sent with their vectors (binary COPY into a temporary table),
metadata-only chunks get a new row whose vector is copied server-side, deleted
ones are retired; nothing unchanged is sent or touched. Each batch is its own
transaction. Registry tables (units, citations, topics, ...) and the manifest are
replaced in the last transaction, and only when their hash differs. A first
publish loads into the table without its HNSW index and builds the index once at
the end; a publish whose index settings (``index.IndexSettings``) differ from the
built index's rebuilds it, beside the old one, and says so in its report.

Readers see one whole publish, never a mix (issue 22: a publish killed half-way
used to leave the new chunks beside the old manifest, and readers served them).
Design: versioned rows and a manifest pointer (``generations``). Each completed
publish is a numbered generation; every chunk row records the generation that
added it and the one that removed it. A publish writes generation ``g + 1``: new
versions are inserted as ``g + 1`` and the rows they replace (or deleted chunks)
are only marked removed in ``g + 1``, so a reader of ``g`` (who filters
``added_in <= g AND (removed_in IS NULL OR removed_in > g)``) sees nothing of it.
The last transaction writes the registries and the manifest with ``generation:
g + 1``: that commit is the switch. A reader loads the manifest, chunks and
registries in one REPEATABLE READ snapshot, so it gets generation ``g`` or
``g + 1`` whole, and its dense search keeps filtering by the generation it
loaded: a reader opened before the switch keeps its consistent view (reopen to
serve the new one, as with a new artifact file) until the *next* publish starts
and deletes the rows ``g + 1`` replaced; from then its searches miss those rows
and are never shown rows it has not loaded.

Why not a staging copy swapped in by rename: it would copy every unchanged row
and rebuild the whole HNSW graph on each publish (minutes at 1M chunks for a
one-chunk edit); versioned rows keep the publish incremental, the live index is
updated in place, and the readers' cost is one extra condition on rows the index
scan already fetches. The price: a superseded row stays (and is indexed) until
the next publish starts.

Safe to interrupt: a killed publish leaves its committed batches as rows of the
unfinished generation, which no reader sees; the manifest records that
generation (``pending_generation``) and a re-run resumes it, diffing against
what it already wrote (``removed_in IS NULL``), so nothing committed is sent
twice; rows of any later generation are discarded. A session advisory lock keeps
two publishes to one schema from interleaving (``lock``: the second waits up to
``lock_timeout_s``, then fails with a clear message; knowledge bases in other
schemas of the database publish meanwhile); the lock dies with its connection,
so a killed publish never leaves it held.

Refused before anything is written, in a dry run too: another embedder's vectors, an
older build or another knowledge base (``overwrite``) unless the operator says so, and
a database where pgvector is missing and cannot be created.
"""

from __future__ import annotations

import os
import signal
import time
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..artifact.writer import FAULT_ENV
from ..compiler.plan import Plan
from ..errors import InvalidArgument, UserError
from .connect import connect, database_errors, ensure_pgvector, pgvector_would_work, schemas_searched
from .generations import live_generation, pending_generation, prepare_generation, retire_chunks, writing_sql
from .index import IndexSettings
from .lock import take_publish_lock
from .overwrite import check_overwrite
from .schema import (
    CHUNKS, MANIFEST, REGISTRIES, SCHEMA_VERSION, check_tables, dense_index, drop_dense_index, embedding_dim, ensure_dense_index,
    migrate, schema_version,
)
from .source import ArtifactSource, read_source
from .transfer import replace_table, update_metadata, upsert_chunks
from .url import DatabaseUrl

#: The longest --lock-timeout: a day. Past it a wait is a stuck publish, and NaN or a negative number waits not at all.
MAX_LOCK_TIMEOUT_S = 86_400.0


@dataclass
class PublishReport:
    target: str
    plan: Plan
    dry_run: bool
    index: IndexSettings = field(default_factory=IndexSettings)
    #: The settings the database's index was built with before this publish (None: no index yet).
    index_before: IndexSettings | None = None
    batches: int = 0
    rows_written: dict[str, int] = field(default_factory=dict)
    migrations_applied: list[int] = field(default_factory=list)
    timings_s: dict[str, float] = field(default_factory=dict)
    #: The generation this publish wrote and made the one readers see (``generations``); None when it wrote nothing.
    generation: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target, "dry_run": self.dry_run, "plan": self.plan.counts(),
            "ids": self.plan.to_dict()["ids"], "tables_changed": self.plan.tables_changed,
            "index": {**self.index.to_dict(), "rebuild": self.index_rebuild,
                      "before": self.index_before.to_dict() if self.index_before else None},
            "rows_written": self.rows_written, "batches": self.batches, "migrations_applied": self.migrations_applied,
            "generation": self.generation,
            "timings_s": {k: round(v, 3) for k, v in self.timings_s.items()},
        }

    @property
    def index_rebuild(self) -> bool:
        """Whether this publish builds the HNSW graph (there is none yet, or it was built with other settings)."""
        return not self.index.same_graph(self.index_before)


@dataclass
class TargetState:
    """What the database holds: its chunk hashes, embedder, and the last publish's table hashes."""

    dim: int | None
    embedder_id: str | None
    chunks: dict[str, tuple[str, str]]
    publish: dict[str, Any]
    index: IndexSettings | None = None  # as built (read from the catalog)
    recorded_index: dict[str, Any] | None = None  # the manifest's record, ef_search included
    #: The published manifest's identity and build time (what ``overwrite.check_overwrite`` compares).
    published: dict[str, Any] = field(default_factory=dict)

    @property
    def generation(self) -> int:
        """The generation this publish writes (``generations.pending_generation``)."""
        return pending_generation(self.publish)


def publish(
    artifact: Path, url: str | DatabaseUrl, *, dry_run: bool = False, batch_size: int = 1000, lock_timeout_s: float = 60.0,
    index: IndexSettings | None = None, allow_older: bool = False, replace_kb: bool = False,
) -> PublishReport:
    """Sync ``artifact`` into the database at ``url``; ``dry_run`` plans and writes nothing.

    ``index`` is how the dense index must be (None: the defaults); an index built otherwise is rebuilt.
    ``allow_older`` publishes a build older than the published one (a rollback); ``replace_kb`` one whose
    knowledge base has another name (``overwrite``): both are refused otherwise.
    """
    url = DatabaseUrl.parse(url)
    index = IndexSettings() if index is None else index
    if not isinstance(index, IndexSettings):
        raise InvalidArgument(f"index: expected IndexSettings, got {type(index).__name__}")
    if batch_size < 1:
        raise UserError(f"--batch-size must be at least 1, got {batch_size}")
    if not (isinstance(lock_timeout_s, (int, float)) and 0 <= lock_timeout_s <= MAX_LOCK_TIMEOUT_S):
        raise UserError(f"--lock-timeout: expected seconds from 0 to {MAX_LOCK_TIMEOUT_S:,.0f}, got {lock_timeout_s!r}")
    clock = time.perf_counter()
    source = read_source(artifact)
    timings = {"read_artifact": time.perf_counter() - clock}
    with closing(source), connect(url) as conn, database_errors(
            url, "publishing (readers still see the last complete publish; committed batches are kept: re-run to complete)"):
        with database_errors(url, "preparing the publish (nothing was published: readers still see what they did)"):
            schemas_searched(conn)  # a search path naming no schema: said before anything reads or locks it
            if not dry_run:
                take_publish_lock(conn, lock_timeout_s)
            clock = time.perf_counter()
            target = read_target(conn)
            _check_compatible(source, target)
            check_overwrite(target.published, source.manifest, allow_older=allow_older, replace_kb=replace_kb)
            plan = diff(source, target)
            timings["plan"] = time.perf_counter() - clock
            report = PublishReport(url.describe(), plan, dry_run, index, target.index, timings_s=timings)
            current = (not report.index_rebuild and target.recorded_index == index.to_dict()
                       and target.publish.get("state") == "complete")
            if dry_run:
                pgvector_would_work(conn)  # a plan that cannot be carried out is an error, not a plan
                return report
            if plan.is_noop and current:
                return report
            clock = time.perf_counter()
            ensure_pgvector(conn, create=True)
            report.migrations_applied = migrate(conn, source.dim)
            _mark_started(conn, source, target)
        report.generation = target.generation
        if not target.chunks and plan.new:  # a first publish: load everything, then build the index once
            drop_dense_index(conn)
        _apply(conn, source, plan, target.generation, batch_size, report)
        clock_index = time.perf_counter()
        if ensure_dense_index(conn, index, source.dim):
            timings["index"] = time.perf_counter() - clock_index
        if plan.new or plan.deleted:  # fresh statistics, so the planner sizes the table right at once
            conn.execute(f"ANALYZE {CHUNKS}")
        _finish(conn, source, plan, target.generation, report)
        timings["write"] = time.perf_counter() - clock
    return report


def read_target(conn: Any) -> TargetState:
    """The target's state; empty when unitrag has never published to this database."""
    check_tables(conn)
    version = schema_version(conn)
    if version > SCHEMA_VERSION:
        raise UserError(f"the database has unitrag schema {version}, newer than this unitrag knows ({SCHEMA_VERSION}); "
                        "upgrade unitrag")
    if version == 0:
        return TargetState(None, None, {}, {})
    manifest = dict(conn.execute(
        f"SELECT key, value FROM {MANIFEST} WHERE key IN ('embedder', 'publish', 'index', 'identity', 'built_at')").fetchall())
    writing = writing_sql(version)  # the rows of the generation a publish writes, a killed one's batches included
    rows = conn.execute(f"SELECT chunk_id, content_hash, meta_hash FROM {CHUNKS}"
                        + (f" WHERE {writing}" if writing else "")).fetchall()
    return TargetState(
        dim=embedding_dim(conn), embedder_id=(manifest.get("embedder") or {}).get("id"),
        chunks={cid: (ch, mh) for cid, ch, mh in rows}, publish=manifest.get("publish") or {},
        index=dense_index(conn), recorded_index=manifest.get("index"),
        published={key: manifest[key] for key in ("identity", "built_at") if key in manifest},
    )


def diff(source: ArtifactSource, target: TargetState) -> Plan:
    """The plan: what differs between the artifact and the database, chunk by chunk and table by table."""
    plan = Plan()
    for cid, (content, meta) in source.hashes.items():
        old = target.chunks.get(cid)
        if old is None:
            plan.new.append(cid)
        elif old[0] != content:
            plan.changed.append(cid)
        elif old[1] != meta:
            plan.metadata_only.append(cid)
        else:
            plan.unchanged.append(cid)
    plan.deleted = sorted(set(target.chunks) - set(source.hashes))
    published = target.publish.get("table_hashes") or {}
    plan.tables_changed = sorted(name for name, digest in source.table_hashes.items() if published.get(name) != digest)
    return plan


def _check_compatible(source: ArtifactSource, target: TargetState) -> None:
    """Vectors of two models (or two sizes) must never share an index: refuse before writing anything."""
    if target.dim is not None and target.dim != source.dim:
        raise UserError(
            f"the database holds {target.dim}-dimensional embeddings ({target.embedder_id or 'unknown embedder'}) but the "
            f"artifact's are {source.dim}-dimensional ({source.embedder_id}); nothing was written. Publish to a fresh "
            "database (or drop the unitrag_* tables) to switch embedders"
        )
    if target.embedder_id is not None and target.embedder_id != source.embedder_id:
        raise UserError(
            f"the database holds embeddings of {target.embedder_id!r} but the artifact's are of {source.embedder_id!r}; "
            "nothing was written. Publish to a fresh database (or drop the unitrag_* tables) to switch embedders"
        )


def _mark_started(conn: Any, source: ArtifactSource, target: TargetState) -> None:
    """Record the embedder at once (a re-run after a crash is checked against it), that a publish is under way and
    the generation it writes; rows no reader needs any more go (``generations.prepare_generation``)."""
    state = {**target.publish, "state": "in_progress", "started_at": _now(),
             "artifact_built_at": source.manifest.get("built_at"), "pending_generation": target.generation}
    with conn.transaction():
        prepare_generation(conn, live_generation(target.publish), target.generation)
        _put_manifest(conn, {"embedder": source.manifest["embedder"], "publish": state})


def _apply(conn: Any, source: ArtifactSource, plan: Plan, generation: int, batch_size: int, report: PublishReport) -> None:
    """Deletes, then new and changed chunks with vectors, then metadata-only updates: one transaction per batch."""
    written = report.rows_written
    for action, ids in (("deleted", plan.deleted), ("upserted", plan.new + plan.changed), ("metadata_only", plan.metadata_only)):
        written[action] = 0
        for start in range(0, len(ids), batch_size):
            batch = ids[start:start + batch_size]
            with conn.transaction():
                if action == "deleted":
                    written[action] += retire_chunks(conn, batch, generation)
                elif action == "upserted":
                    written[action] += upsert_chunks(conn, *source.chunks(batch), generation)
                else:
                    written[action] += update_metadata(conn, source.rows(batch), generation)
            report.batches += 1
            _fault_after_batch(report.batches)
    written["vectors_sent"] = written["upserted"]


def _finish(conn: Any, source: ArtifactSource, plan: Plan, generation: int, report: PublishReport) -> None:
    """Registries whose hash differs, then the manifest that marks the publish complete and makes its
    generation the one readers see (with the index settings, whose ``ef_search`` the runtime uses): one
    transaction, last: the switch."""
    with conn.transaction():
        for name in plan.tables_changed:
            if name in REGISTRIES:  # else the identity: it travels in the manifest below
                report.rows_written[name] = replace_table(conn, f"unitrag_{name}", source.table(name))
        state = {"state": "complete", "completed_at": _now(), "artifact_built_at": source.manifest.get("built_at"),
                 "table_hashes": source.table_hashes, "chunks": len(source.hashes), "generation": generation}
        conn.execute(f"DELETE FROM {MANIFEST}")
        _put_manifest(conn, {**source.manifest, "publish": state, "index": report.index.to_dict()})
    report.batches += 1


def _put_manifest(conn: Any, values: dict[str, Any]) -> None:
    from psycopg.types.json import Jsonb

    for key, value in values.items():
        conn.execute(
            f"INSERT INTO {MANIFEST} (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            [key, Jsonb(value)],
        )


def _fault_after_batch(done: int) -> None:
    """Test hook: ``UNITRAG_FAULT_INJECT=publish-kill-after-batch:N`` SIGKILLs the process after batch N commits;
    ``publish-sleep-after-batch:N`` pauses there for 5 s (to hold the lock while a second publish starts)."""
    hook = os.environ.get(FAULT_ENV, "")
    action, _, after = hook.partition(":")
    if not after.isdigit() or int(after) != done:
        return
    if action == "publish-kill-after-batch":
        os.kill(os.getpid(), signal.SIGKILL)
    elif action == "publish-sleep-after-batch":
        time.sleep(5)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


