"""The build: load → validate → chunk → hash → plan → embed what changed → write atomically."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..version import __version__
from ..artifact.reader import PreviousState, open_artifact, read_previous, read_vectors, rows_as_dicts
from ..artifact.schema import SCHEMA_VERSION
from ..config import Config, identity_hash, identity_record
from ..content.unit_cache import UnitCache
from ..content.validate import validate_content
from ..errors import ContentInvalid, UserError
from ..providers.embedders import Embedder, embedder_class, embedder_id, load_embedder
from ..content.text.tokenize import TOKENIZER_VERSION
from .build_lock import artifact_lock
from .cache import cached_hashes, usable_cache_dir
from .chunking import CHUNKER_VERSION
from .estimate import EmbedEstimate, estimate_embedding, measured_rate
from .guard_examples import (
    embed_and_fit, guard_example_rows, guard_table_hash, near_misses_stopped, own_questions_flagged,
)
from .hashing import digest
from .parse_cache import cached_chunks
from .plan import HashedChunk, Plan, make_plan
from .tables import chunk_rows, registry_rows, unit_rows

if TYPE_CHECKING:
    from .cache import EmbeddingCache

Progress = Callable[[int, int], None]


@dataclass
class BuildReport:
    plan: Plan
    artifact: Path
    embedder: str
    dry_run: bool = False
    reconcile: bool = False
    written: bool = False
    embedded: int = 0  # chunks sent to the model in this run
    from_cache: int = 0  # chunks whose vectors came from the embedding cache
    pending: list[str] = field(default_factory=list)  # --reconcile: content changes not applied
    chunks: int = 0
    units: int = 0
    timings_s: dict[str, float] = field(default_factory=dict)
    #: What the plan's embedding would take (chunks, seconds at a measured rate); see compiler.estimate.
    estimate: EmbedEstimate | None = None
    #: Chunks per second this build embedded at, when it embedded enough to measure.
    embed_rate: float | None = None
    #: The change was applied to a copy of the previous artifact (unitrag.artifact.incremental), not a full rewrite.
    delta: bool = False
    #: Units whose chunks came from the parse cache (hits) or were chunked and hashed again (misses).
    parse_cache: dict[str, int] = field(default_factory=dict)
    #: Unit files validation took from the unit cache unread (stat) or after one read (same bytes), or read and checked.
    unit_cache: dict[str, int] = field(default_factory=dict)
    #: Topics no unit carries (declared gaps): a question naming one leans to "not found".
    gaps: list[str] = field(default_factory=list)
    #: Starter questions left out because the starter content they name was removed (ContentSet.stale_starter_note).
    starter_note: str | None = None
    #: The units' own questions a guard rule would stop (compiler.guard_examples.own_questions_stopped).
    guard_stops_own: list[dict[str, Any]] = field(default_factory=list)
    #: Near-misses (a rule's "must pass" questions) one of the rule's own patterns stops (guard_examples.near_misses_stopped).
    guard_stops_near_misses: list[dict[str, Any]] = field(default_factory=list)
    #: Red-flag rules with no examples: they stop only the phrasings their patterns foresaw.
    red_flags_without_examples: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "plan": self.plan.to_dict(), "embedded": self.embedded, "from_cache": self.from_cache,
            "artifact": str(self.artifact), "embedder": self.embedder, "dry_run": self.dry_run,
            "reconcile": self.reconcile, "written": self.written, "pending": self.pending,
            "chunks": self.chunks, "units": self.units,
            "estimate": self.estimate.to_dict() if self.estimate else None,
            "parse_cache": self.parse_cache, "unit_cache": self.unit_cache, "delta": self.delta, "gaps": self.gaps,
            "starter_note": self.starter_note,
            "guard_stops_own": self.guard_stops_own, "guard_stops_near_misses": self.guard_stops_near_misses,
            "red_flags_without_examples": self.red_flags_without_examples,
            "timings_s": {k: round(v, 4) for k, v in self.timings_s.items()},
        }


def build(
    config: Config, *, dry_run: bool = False, reconcile: bool = False, full: bool = False,
    embedder: Embedder | None = None, progress: Progress | None = None, allow_empty: bool = False,
) -> BuildReport:
    """Compile ``config.content_dir`` into ``config.artifact``; see the module docstring.

    ``dry_run`` plans without writing or loading a model; ``reconcile`` applies
    metadata-only changes and deletes (and cached vectors) without a model;
    ``full`` ignores the previous artifact and the cache and embeds everything;
    ``allow_empty`` lets a build write an artifact with no units (refused otherwise: it is almost always a
    wrong path); replacing every unit of the previous one with new ones needs no flag.
    """
    if dry_run and reconcile:
        raise UserError("--dry-run and --reconcile cannot be combined: --dry-run already shows what --reconcile would apply")
    if dry_run:  # writes no artifact: no lock
        return _build(config, dry_run=True, reconcile=False, full=full, embedder=embedder, progress=progress,
                      allow_empty=allow_empty)
    # before the previous artifact is read: a plan made against one another build is replacing would be wrong
    with artifact_lock(config.artifact):
        return _build(config, dry_run=False, reconcile=reconcile, full=full, embedder=embedder, progress=progress,
                      allow_empty=allow_empty)


def _build(
    config: Config, *, dry_run: bool, reconcile: bool, full: bool, embedder: Embedder | None,
    progress: Progress | None, allow_empty: bool,
) -> BuildReport:
    timings: dict[str, float] = {}
    clock = time.perf_counter()
    model_id = embedder.id if embedder is not None else embedder_id(config.embedder)
    # chunks must fit the model's input; known from the class, so --dry-run needs no model
    max_tokens = embedder.max_tokens if embedder is not None else embedder_class(config.embedder).max_tokens
    budget = min(config.chunk_tokens, max_tokens)
    cache_dir = None if full else usable_cache_dir(config.cache_dir)  # a file there: warned once, built without it
    unit_cache = UnitCache(cache_dir)
    content = validate_content(config.content_dir, config.max_unit_bytes, unit_cache, config.max_file_bytes,
                               config.languages, config.max_question_chars, config.restricted_role)
    if content.problems:
        unit_cache.save()  # the next run replays these problems without reading the files again
        raise ContentInvalid(content.problems)
    timings["validate"] = time.perf_counter() - clock
    step = time.perf_counter()
    hashed, parse_cache = cached_chunks(content, budget, cache_dir, save=False)
    timings["chunk"] = time.perf_counter() - step
    step = time.perf_counter()
    tables = {"units": unit_rows(content),
              **registry_rows(content, config.prompts_dir, config.calibration_file, config.max_prompt_chars),
              "guard_examples": guard_example_rows(content)}
    table_hashes = {name: digest(rows) for name, rows in tables.items()}
    table_hashes["guard_examples"] = guard_table_hash(tables["guard_examples"], tables["guard_rules"])
    table_hashes["sparse_terms"] = f"tokenizer {TOKENIZER_VERSION}"  # a new tokenizer rewrites every chunk's terms
    table_hashes["identity"] = identity_hash(identity_record(config))  # a renamed knowledge base is written again
    timings["tables"] = time.perf_counter() - step
    step = time.perf_counter()
    previous = None if full else read_previous(config.artifact)
    plan = make_plan(hashed, previous, model_id, table_hashes, complete=content.complete)
    if not allow_empty:
        _refuse_emptying(config, hashed, previous)
    estimate = _estimate(cache_dir, plan, hashed, previous, model_id, consult_cache=dry_run and not full)
    timings["compare"] = time.perf_counter() - step
    timings["plan"] = time.perf_counter() - clock
    report = BuildReport(plan=plan, artifact=config.artifact, embedder=model_id, dry_run=dry_run,
                         reconcile=reconcile, chunks=len(hashed), units=len(content.units), timings_s=timings,
                         parse_cache={"hits": parse_cache.hits, "misses": parse_cache.misses},
                         unit_cache={"unread": unit_cache.stat_hits, "same_bytes": unit_cache.hash_hits,
                                     "read": unit_cache.misses},
                         estimate=estimate, gaps=content.gap_topics,
                         starter_note=content.stale_starter_note,
                         red_flags_without_examples=[r.id for r in content.guard_rules
                                                     if r.type == "red_flag" and not r.examples.items()],
                         guard_stops_near_misses=near_misses_stopped(content.guard_rules))
    if dry_run or (previous is not None and plan.is_noop):
        unit_cache.save()
        parse_cache.save()
        return report
    if reconcile and (previous is None or plan.full_reembed_reason):
        raise UserError("--reconcile needs an artifact built with the same embedder; run `unitrag build` first")
    # The writing half's modules (pyarrow and the writers, ~0.2 s to import) load only here: a plan never needs them.
    from ..artifact.incremental import can_write_incrementally
    from ..artifact.writer import check_destination, write_artifact
    from .cache import EmbeddingCache

    check_destination(config.artifact)  # before any embedding: minutes of work must not end in "cannot write"
    unit_cache.save()  # after the destination check: a build that cannot write leaves no cache folder behind
    parse_cache.save()

    clock = time.perf_counter()
    # a current previous artifact takes the change as a delta (unitrag.artifact.incremental): no full rewrite
    delta = previous is not None and not plan.full_reembed_reason and can_write_incrementally(
        previous.path, model_id, previous.dim)
    cache = EmbeddingCache(cache_dir)
    try:
        vectors = _carry_over(previous, plan, plan.metadata_only if delta else None)
        wanted = set(plan.to_embed)
        to_embed = [h for h in hashed if h.chunk.chunk_id in wanted]
        cached = cache.get_many(model_id, [h.content_hash for h in to_embed])
        missing: list[HashedChunk] = []
        for h in to_embed:
            if h.content_hash in cached:
                vectors[h.chunk.chunk_id] = cached[h.content_hash]
                report.from_cache += 1
            else:
                missing.append(h)
        report.estimate = estimate_embedding(len(missing), model_id, previous, report.from_cache)  # as it turned out
        if reconcile:
            report.pending = [h.chunk.chunk_id for h in missing]
        elif missing:
            embedder = embedder or load_embedder(config.embedder)
            started = time.perf_counter()
            _embed(embedder, missing, vectors, cache, config.batch_size, progress)
            report.embedded = len(missing)
            report.embed_rate = measured_rate(len(missing), time.perf_counter() - started)
        report.pending += embed_and_fit(  # the semantic guard: its examples' vectors and the fitted classifier
            tables, model_id=model_id, previous=previous, cache=cache,
            embedder=None if reconcile else lambda: embedder or load_embedder(config.embedder),
            refit=previous is None or bool(plan.full_reembed_reason) or "guard_examples" in plan.tables_changed)
        report.guard_stops_own = own_questions_flagged(tables.get("guard_model", []))
    finally:
        cache.close()
    timings["embed"] = time.perf_counter() - clock

    clock = time.perf_counter()
    # reconcile: a changed chunk keeps its old row until it is embedded, as restricted as either version
    held, held_vectors = _held_rows(previous, [cid for cid in report.pending if cid in plan.changed], hashed)
    if delta:
        assert previous is not None
        _write_delta(config, report, plan, hashed, vectors, previous, model_id, budget, tables, table_hashes,
                     held, held_vectors)
        timings["write"] = time.perf_counter() - clock
        return report
    kept = [h for h in hashed if h.chunk.chunk_id in vectors]
    rows = chunk_rows(kept) + held
    vectors.update(held_vectors)
    if not vectors and previous is None:  # an empty first build (--allow-empty): the model gives the dimension
        embedder = embedder or load_embedder(config.embedder)
    dim = _dimension(previous, vectors, embedder)
    matrix = np.stack([vectors[r["chunk_id"]] for r in rows]) if rows else np.zeros((0, dim), np.float32)
    rate = report.embed_rate or (previous.embed_rate if previous and previous.embedder_id == model_id else None)
    manifest = _manifest(config, model_id, budget, dim, tables, table_hashes, rows, rate)
    write_artifact(config.artifact, dim=dim, manifest=manifest, tables=tables, chunk_rows=rows, embeddings=matrix)
    report.written = True
    timings["write"] = time.perf_counter() - clock
    return report


def _estimate(cache_dir: Path | None, plan: Plan, hashed: list[HashedChunk], previous: PreviousState | None,
              model_id: str, consult_cache: bool) -> EmbedEstimate:
    """The plan's embedding estimate; with ``consult_cache`` (a dry run), the chunks whose vectors the embedding
    cache holds (by content hash: no model) are counted apart, as the build would take them from it."""
    wanted = set(plan.to_embed)
    hashes = [h.content_hash for h in hashed if h.chunk.chunk_id in wanted]
    if not consult_cache:
        return estimate_embedding(len(hashes), model_id, previous, None if hashes else 0)
    cached = cached_hashes(cache_dir, model_id, hashes)
    if cached is None:  # the cache could not be read: every chunk, an upper bound
        return estimate_embedding(len(hashes), model_id, previous, None)
    hits = sum(1 for h in hashes if h in cached)
    return estimate_embedding(len(hashes) - hits, model_id, previous, hits)


def _refuse_emptying(config: Config, hashed: list[HashedChunk], previous: PreviousState | None) -> None:
    """An artifact with no units is refused: a wrong folder, not an edit. Replacing every unit with new ones
    (a new knowledge base's starter units, say) is an ordinary build."""
    if hashed:
        return
    last = (f" (the last build of {config.artifact} had {len(previous.chunks)} chunks)"
            if previous is not None and previous.chunks else "")
    raise UserError(f"{config.content_dir} has no units: the artifact would be empty{last}; is it the right content "
                    "folder? If an empty artifact is really what you want, pass --allow-empty")


def _write_delta(
    config: Config, report: BuildReport, plan: Plan, hashed: list[HashedChunk], vectors: dict[str, np.ndarray],
    previous: PreviousState, model_id: str, budget: int, tables: dict[str, list[dict[str, Any]]],
    table_hashes: dict[str, str], held: list[dict[str, Any]], held_vectors: dict[str, np.ndarray],
) -> None:
    """New, changed (embedded) and metadata-only chunks replace their rows, and reconcile's ``held`` rows theirs (their
    access made as restricted as the new version's); deleted ones go; registries are replaced."""
    from ..artifact.incremental import write_delta  # the writing half: see build

    touched = set(plan.new) | set(plan.changed) | set(plan.metadata_only)
    rows = chunk_rows([h for h in hashed if h.chunk.chunk_id in touched and h.chunk.chunk_id in vectors]) + held
    vectors = {**vectors, **held_vectors}
    matrix = np.stack([vectors[r["chunk_id"]] for r in rows]) if rows else np.zeros((0, previous.dim), np.float32)
    rate = report.embed_rate or previous.embed_rate
    manifest = _manifest(config, model_id, budget, previous.dim, tables, table_hashes, rows, rate)  # counts: recomputed
    write_delta(config.artifact, dim=previous.dim, manifest=manifest, tables=tables, upserts=rows, embeddings=matrix,
                deletes=plan.deleted)
    report.written = report.delta = True


def _carry_over(previous: PreviousState | None, plan: Plan, only: list[str] | None = None) -> dict[str, np.ndarray]:
    """Vectors of unchanged and metadata-only chunks (or of ``only`` these), straight from the last artifact."""
    keep = plan.unchanged + plan.metadata_only if only is None else only
    if previous is None or not keep:
        return {}
    with open_artifact(previous.path) as con:
        if only is None:
            ids, matrix = read_vectors(con)
        else:
            ids, matrix = read_vectors(con, "WHERE list_contains(?, chunk_id)", [only])
    wanted = set(keep)
    return {cid: matrix[i] for i, cid in enumerate(ids) if cid in wanted}


def _embed(
    embedder: Embedder, missing: list[HashedChunk], vectors: dict[str, np.ndarray], cache: EmbeddingCache,
    batch_size: int, progress: Progress | None,
) -> None:
    total, done = len(missing), 0
    for batch in access_batches(missing, batch_size):
        out = embedder.embed_passages([h.chunk.text_for_embedding for h in batch])
        for h, vector in zip(batch, out):
            vectors[h.chunk.chunk_id] = vector
        cache.put_many(embedder.id, [h.content_hash for h in batch], out)
        done += len(batch)
        if progress is not None:
            progress(done, total)


def access_batches(chunks: list[HashedChunk], batch_size: int) -> list[list[HashedChunk]]:
    """Batches of ``batch_size`` chunks, never a public chunk with a restricted one: a bf16 embedder's vectors
    move slightly with what else is in the batch (~1e-4), and a public chunk's vector, which a public caller reads
    in every dense score, must not move with the text of restricted ones."""
    batches = []
    for public in (True, False):
        group = [h for h in chunks if (h.chunk.access == "public") is public]
        batches += [group[start:start + batch_size] for start in range(0, len(group), batch_size)]
    return batches


def _held_rows(previous: PreviousState | None, chunk_ids: list[str],
               hashed: list[HashedChunk]) -> tuple[list[dict[str, Any]], dict[str, np.ndarray]]:
    """The last artifact's rows and vectors of the chunks ``--reconcile`` leaves for a later build to embed, each as
    restricted as the new version of its unit: a unit made restricted in the same edit as its body kept its old text
    public (an attacker's audit), and one made public keeps its old text restricted until the new one is embedded."""
    if previous is None or not chunk_ids:
        return [], {}
    with open_artifact(previous.path) as con:
        rows = rows_as_dicts(
            con, "SELECT * EXCLUDE (embedding, chunk_no, sparse_length) FROM chunks WHERE list_contains(?, chunk_id) "
            "ORDER BY chunk_id", [chunk_ids]
        )
        ids, matrix = read_vectors(con, "WHERE list_contains(?, chunk_id)", [chunk_ids])
    now = {h.chunk.chunk_id: h.chunk.access for h in hashed}
    for row in rows:
        if now.get(row["chunk_id"], "public") != "public":
            row["access"] = now[row["chunk_id"]]
    return rows, {cid: matrix[i] for i, cid in enumerate(ids)}


def _dimension(previous: PreviousState | None, vectors: dict[str, np.ndarray], embedder: Embedder | None) -> int:
    if vectors:
        return int(next(iter(vectors.values())).shape[0])
    if embedder is not None:
        return embedder.dim
    if previous is not None:
        return previous.dim
    raise UserError("the content has no chunks to build")


def _manifest(
    config: Config, model_id: str, budget: int, dim: int, tables: dict[str, list[dict[str, Any]]],
    table_hashes: dict[str, str], rows: list[dict[str, Any]], embed_rate: float | None,
) -> dict[str, Any]:
    by_kind: dict[str, int] = {}
    for row in rows:
        by_kind[row["kind"]] = by_kind.get(row["kind"], 0) + 1
    return {
        "schema_version": SCHEMA_VERSION,
        "unitrag_version": __version__,
        "embedder": {"id": model_id, "dim": dim},
        "chunker": {"version": CHUNKER_VERSION, "chunk_tokens": budget},
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "git_commit": _git_commit(config.content_dir),
        "identity": identity_record(config),
        "counts": {"chunks": len(rows), "chunks_by_kind": by_kind, **{k: len(v) for k, v in tables.items()}},
        "table_hashes": table_hashes,
        **({"embed_rate": {"chunks_per_s": embed_rate}} if embed_rate else {}),
    }


def _git_commit(directory: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(directory), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None
