"""The artifact in memory: one contiguous float32 matrix and columnar chunk metadata.

Loaded once at ``KnowledgeBase.open``; read-only afterwards, so any number of
threads can search it at once without locks. Prompt texts stay in the artifact and
are fetched for the rows a search returns (``unitrag.rag.store.prompt_texts``).
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...artifact.arrow_numpy import matrix_of, numpy_view, read_whole
from ...artifact.postings import read_postings
from ...artifact.integrity import check_counts
from ...artifact.reader import ArtifactDamaged, has_table, open_artifact, read_manifest, rows_as_dicts
from ...artifact.vectors import TABLE as VECTORS, in_order, read_stored
from ...errors import UserError
from .columns import Column, RowsByKey, categories, columns_of, rows_with_any, table_of
from .dense import top_k
from .keys import KeyIndex
from .prompt_texts import ArtifactTexts, HeldTexts, PromptTexts
from ..types import SearchFilter, Source

#: Filter masks kept (least recently used dropped): the common filters (public, restricted, each
#: language) stay cached, while an app sending arbitrary topic filters cannot grow memory without
#: limit (one bool per chunk each: 256 × 100k chunks is 25 MB at most).
MASK_CACHE_SIZE = 256
#: Rows kept as Python values (least recently used dropped): a result's rows are read from Arrow once, then
#: served from here while they stay popular; a small knowledge base fits whole (4,096 rows × ~0.5 KB: ~2 MB).
ROW_CACHE_SIZE = 4096
#: What the runtime holds of each chunk; the prompt text is fetched per result from an artifact (``prompt_texts``).
METADATA_COLUMNS = "chunk_id, unit_id, kind, title, topics, citation_ids, access, lang, story_id, scene_id, page"
CHUNK_COLUMNS = f"{METADATA_COLUMNS}, text_for_prompt"  # what the runtime reads of each chunk (every backend)
INTERNAL = ("embedding", "chunk_no", "sparse_length")  # read with the metadata for the vectors and BM25, not kept
#: Up to this many chunks an artifact's prompt texts are held (~1 KB each: ~10 MiB), so a small knowledge base
#: pays no query per search for them (sample KB: search p50 12.7 → 17.6 ms under load when fetched).
HOLD_TEXTS_UP_TO = 10_000


@dataclass
class ChunkStore:
    manifest: dict[str, Any]
    ids: Column  # row → chunk_id: the Arrow column itself (a Python list of 100k ids held 7.6 MiB)
    vectors: np.ndarray  # (n, dim) float32, C-contiguous, unit rows
    columns: dict[str, Column]  # Arrow-backed; a value becomes a Python object only when read
    access: np.ndarray  # (n,) object: "public" | the restricted role (one shared str per value)
    lang: np.ndarray
    kind: np.ndarray
    index: Mapping[str, int]  # chunk_id → row: bisects ``ids`` (a KeyIndex; a dict held 13 MiB at 100k chunks)
    citations: dict[str, dict[str, Any]]
    topics: list[dict[str, Any]]
    guard_rules: list[dict[str, Any]]
    prompts: dict[str, str]
    units: Mapping[str, dict[str, Any]]  # unit id → its row (a RowsByKey: Arrow-backed)
    calibration: list[dict[str, Any]] = field(default_factory=list)  # answerability gates (rag.gate), per pipeline
    #: The BM25 index read from the artifact (schema 5); None: ``SparseIndex.build`` makes it from the terms.
    sparse_index: Any = None
    #: Where prompt texts come from: the artifact (``load``) or a ``text_for_prompt`` column (``assemble``).
    texts: PromptTexts | None = None
    #: The guard's classifier (rag.guard.semantic) and the answerability exemplars (rag.store.exemplars), read with the rest.
    semantic_guard: Any = None
    exemplars: Any = None
    #: The authors' questions of units (unit_id, role, lang, text; rag.store.exemplars.UNIT_QUESTIONS_SQL): example questions.
    unit_questions: list[dict[str, Any]] = field(default_factory=list)
    _masks: Any = field(init=False, repr=False, compare=False)  # the LRU of _make_mask (thread-safe)
    _rows: Any = field(init=False, repr=False, compare=False)  # the LRU of _row (thread-safe)

    def __post_init__(self) -> None:
        self._masks = lru_cache(maxsize=MASK_CACHE_SIZE)(self._make_mask)
        self._rows = lru_cache(maxsize=ROW_CACHE_SIZE)(self._row)

    @classmethod
    def load(cls, path: Path, *, hold_texts_up_to: int = HOLD_TEXTS_UP_TO) -> "ChunkStore":
        """Read an artifact: one Arrow read of the chunks, one of the vectors, the stored BM25 index, the registries.

        Rows are in ``chunk_id`` order (the writer stores them so; sorted here when an incremental
        write appended some). Prompt texts are read too up to ``hold_texts_up_to`` chunks; beyond,
        ``prompt_texts`` fetches a result's from the file. An artifact older than schema 5 has no
        stored BM25 index: it is built from the chunks' ``sparse_terms`` or texts (seconds at 100k
        chunks; ``unitrag build --full`` stores it), and its texts are held. jieba's dictionary loads
        in a thread meanwhile when the artifact holds Chinese.
        """
        identity = _file_identity(path) if path.exists() else None  # missing: _read says so
        store = cls._read(path, hold_texts_up_to)
        return_freed_memory()
        if not isinstance(store.texts, ArtifactTexts):
            return store
        if _file_identity(path) != identity:  # replaced while read: the texts' connection may see another file
            store.close()
            store = cls._read(path, hold_texts_up_to)
        return store

    @classmethod
    def _read(cls, path: Path, hold_texts_up_to: int) -> "ChunkStore":
        from .exemplars import UNIT_QUESTIONS_SQL, Exemplars
        from ..guard.semantic import SemanticGuard

        segmenter: threading.Thread | None = None
        with open_artifact(path) as con:
            con.execute("SET enable_progress_bar = false")  # a slow read on a busy machine drew one on stdout
            manifest = read_manifest(con)
            # every table holds what the manifest counts: an artifact with its guard rows deleted was answered with the
            # guard off, and a running server took it as a good reload (a count is kept per row group: milliseconds)
            check_counts(con, path, manifest)
            present = {row[0] for row in con.execute("SELECT column_name FROM duckdb_columns() WHERE table_name = 'chunks'").fetchall()}
            if con.execute("SELECT EXISTS (SELECT 1 FROM chunks WHERE lang = 'zh')").fetchone() == (True,):
                segmenter = _load_segmenter_meanwhile()
            stored = stored_index_usable(manifest, present)
            # without a stored index the sparse arm counts terms (or tokenises texts) at open: texts held, as before
            extra = ", chunk_no, sparse_length" if stored else (", text_for_prompt, sparse_terms" if "sparse_terms" in present
                                                                else ", text_for_prompt")
            if stored and con.execute("SELECT count(*) FROM chunks").fetchone()[0] <= hold_texts_up_to:
                extra += ", text_for_prompt"
            separate = has_table(con, VECTORS)  # schema 6: vectors in their own table, else the embedding column
            extra += ("" if stored else ", chunk_no") if separate else ", embedding"
            # schema 6: the vectors (the biggest read) on a cursor of their own while the metadata and postings
            # are read here; DuckDB releases the GIL (docs/benchmarks/scale.md: open 1.16 -> 0.98 s)
            pool = ThreadPoolExecutor(1, thread_name_prefix="unitrag-vectors") if separate else None
            matrix = pool.submit(read_stored, con.cursor(), int(manifest["embedder"]["dim"])) if pool else None
            try:
                table = in_chunk_order(read_whole(con, f"{METADATA_COLUMNS}{extra}", "chunks"))
                # the metadata as held (held_columns: ~30 ms at 100k chunks, while the vectors are read), and the
                # numbers kept apart, so the batch they came in (26 MiB) is freed before the postings are read
                columns = columns_of(table.drop_columns([c for c in INTERNAL if c in table.column_names]))
                chunk_nos, lengths = (numpy_view(table.column(c)).copy() if c in table.column_names else None
                                      for c in ("chunk_no", "sparse_length"))
                embedding = table.column("embedding") if "embedding" in table.column_names else None
                del table
                grouped = (manifest.get("sparse_index") or {}).get("grouped") is True  # postings in term order
                postings = read_postings(con, grouped=grouped) if stored else None
                vectors = in_order(matrix.result(), chunk_nos) if matrix else matrix_of(embedding)
            except ValueError as exc:
                raise ArtifactDamaged(path, str(exc)) from None
            finally:
                if pool:
                    pool.shutdown(wait=True)  # never leave a read running on a connection about to close
            citations = rows_as_dicts(con, "SELECT * FROM citations")
            topics = rows_as_dicts(con, "SELECT * FROM topics ORDER BY id")
            guard_rules = rows_as_dicts(con, "SELECT * FROM guard_rules ORDER BY id")
            prompts = dict(con.execute("SELECT name, template FROM prompts").fetchall())
            # stored in unit_id order (``unit_rows`` sorts them), which RowsByKey checks (1 ms) and then bisects
            # as it is; an ORDER BY here cost 10-50 ms more at 61k units
            units = con.execute('SELECT unit_id, kind, title, story_id, "order", trigger, severity FROM units').to_arrow_table()
            calibration = rows_as_dicts(con, "SELECT * FROM calibration") if has_table(con, "calibration") else []
            semantic_guard, exemplars = SemanticGuard.read(con), Exemplars.read(con)
            unit_questions = (rows_as_dicts(con, UNIT_QUESTIONS_SQL.format(table="guard_examples"))
                              if has_table(con, "guard_examples") else [])
        sparse_index = None
        if postings is not None:
            from .sparse import SparseIndex

            try:
                sparse_index = SparseIndex.from_stored(postings, chunk_nos, lengths, grouped=grouped)
            except ValueError as exc:
                raise ArtifactDamaged(path, str(exc)) from None
        store = cls.assemble(
            manifest=manifest, vectors=vectors, columns=columns, citations=citations, topics=topics,
            guard_rules=guard_rules, prompts=prompts, units=units, calibration=calibration,
        )
        store.sparse_index, store.semantic_guard, store.exemplars = sparse_index, semantic_guard, exemplars
        store.unit_questions = unit_questions
        if store.texts is None:
            store.texts = ArtifactTexts(path, store.columns["chunk_id"])
            store.texts.warm()
        if segmenter is not None:
            segmenter.join()
        return store

    @classmethod
    def assemble(
        cls, *, manifest: dict[str, Any], vectors: np.ndarray, columns: dict[str, Sequence[Any]],
        citations: list[dict[str, Any]], topics: list[dict[str, Any]], guard_rules: list[dict[str, Any]],
        prompts: dict[str, str], units: list[dict[str, Any]] | pa.Table, calibration: list[dict[str, Any]],
    ) -> "ChunkStore":
        """A store from rows as any backend reads them (JSON columns as text), so every backend serves the same.

        ``columns`` may be lists (a database's rows, a test's) or Arrow-backed ``Column``s. Prompt texts are
        held when ``columns`` has ``text_for_prompt``; else the caller sets ``texts`` (``load`` does).
        """
        if not all(isinstance(values, Column) for values in columns.values()):
            columns = columns_of(table_of(columns))
        arrow: dict[str, Column] = dict(columns)  # type: ignore[arg-type]
        ids = arrow["chunk_id"]
        return cls(
            manifest=manifest, ids=ids, vectors=vectors, columns=arrow,
            access=categories(arrow["access"]), lang=categories(arrow["lang"]), kind=categories(arrow["kind"]),
            index=KeyIndex(ids.array),
            citations={c["id"]: c for c in clickable(citations)}, topics=topics, guard_rules=guard_rules, prompts=prompts,
            units=RowsByKey(units if isinstance(units, pa.Table) else _units_table(units), "unit_id", _parsed_unit),
            calibration=calibration, texts=HeldTexts(arrow["text_for_prompt"]) if "text_for_prompt" in arrow else None,
        )

    def __len__(self) -> int:
        return len(self.ids)

    def close(self) -> None:
        """Close the artifact's connection for prompt texts; a search afterwards is a ``KnowledgeBaseClosed``."""
        if self.texts is not None:
            self.texts.close()

    def dense_search(self, vector: np.ndarray, k: int, where: SearchFilter) -> tuple[np.ndarray, np.ndarray]:
        """Row indexes and cosine scores of the ``k`` best rows ``where`` allows: exact, in memory."""
        return top_k(self.vectors, vector, k, self.filter_mask(where))

    def filter_mask(self, where: SearchFilter) -> np.ndarray | None:
        return self.mask(restricted=where.restricted, lang=where.lang, kinds=list(where.kinds), topics=list(where.topics))

    def mask(
        self, *, restricted: bool, lang: str | None = None, kinds: list[str] | None = None, topics: list[str] | None = None
    ) -> np.ndarray | None:
        """Rows a caller may see and asked for; None when every row qualifies (the fast path).

        Masks are cached by their arguments, least recently used dropped past
        ``MASK_CACHE_SIZE``: the common ones (public / restricted) cost nothing after the first query.
        """
        return self._masks(restricted, lang, tuple(sorted(set(kinds or ()))), tuple(sorted(set(topics or ()))))

    def mask_cache_size(self) -> int:
        """How many filter masks are cached now (at most ``MASK_CACHE_SIZE``)."""
        return int(self._masks.cache_info().currsize)

    def _make_mask(
        self, restricted: bool, lang: str | None, kinds: tuple[str, ...], topics: tuple[str, ...]
    ) -> np.ndarray | None:
        keep = None if restricted else (self.access == "public")
        if lang is not None:
            keep = _and(keep, self.lang == lang)
        if kinds:
            keep = _and(keep, np.isin(self.kind, list(kinds)))
        if topics:
            keep = _and(keep, rows_with_any(self.columns["topics"], topics))
        return keep

    def source(self, i: int, **scores: float) -> Source:
        """Row ``i`` as a Source with ``scores`` (its first value the current score)."""
        return self.sources([i], [scores])[0]

    def sources(self, rows: Sequence[int], scores: Sequence[dict[str, float]]) -> list[Source]:
        """Rows as Sources, their prompt texts fetched in one batch; ``scores[j]`` belongs to ``rows[j]``."""
        texts = self.prompt_texts(rows)
        out = []
        for i, text, scored in zip(rows, texts, scores):
            fields = self._rows(i)
            out.append(Source(
                **{**fields, "topics": list(fields["topics"]), "citation_ids": list(fields["citation_ids"])},
                text=text, scores=dict(scored), score=next(iter(scored.values()), 0.0),
            ))
        return out

    def prompt_texts(self, rows: Sequence[int]) -> list[str]:
        """The prompt texts of ``rows``, in order (one query to the artifact for those not cached)."""
        if self.texts is None:
            raise ValueError("this store has no prompt texts: assemble it with a text_for_prompt column, or load it")
        return self.texts.fetch([int(i) for i in rows])

    def _row(self, i: int) -> dict[str, Any]:
        """Row ``i``'s fields but the text as Python values (read from Arrow; cached by ``_rows``)."""
        c = self.columns
        return {
            "chunk_id": c["chunk_id"][i], "unit_id": c["unit_id"][i], "kind": c["kind"][i], "title": c["title"][i],
            "topics": c["topics"][i], "citation_ids": c["citation_ids"][i],
            "access": c["access"][i], "lang": c["lang"][i], "story_id": c["story_id"][i], "scene_id": c["scene_id"][i],
            "page": c["page"][i],
        }


def _and(a: np.ndarray | None, b: np.ndarray) -> np.ndarray:
    return b if a is None else (a & b)


def _parsed_unit(row: dict[str, Any]) -> dict[str, Any]:
    """A unit row with its JSON trigger parsed."""
    return {**row, "trigger": json.loads(row["trigger"]) if row["trigger"] else None}


def _units_table(units: list[dict[str, Any]]) -> pa.Table:
    """Unit rows (a database's, a test's) as the artifact's Arrow read gives them."""
    names = ("unit_id", "kind", "title", "story_id", "order", "trigger", "severity")
    types = (pa.string(), pa.string(), pa.string(), pa.string(), pa.int64(), pa.string(), pa.string())
    return pa.table({name: pa.array([u.get(name) for u in units], type) for name, type in zip(names, types)})


def _file_identity(path: Path) -> tuple[int, int, int, int]:
    """What changes when the file at ``path`` is replaced or rewritten (builds replace it by rename)."""
    st = os.stat(path)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def return_freed_memory() -> None:
    """Hand what the read freed back to the OS: Arrow's pool keeps the postings' term ids (38 MiB at 100k
    chunks) and glibc its heaps' free pages (4-75 MiB in runs at 100k) until told."""
    pa.default_memory_pool().release_unused()
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):  # not glibc (musl)
            pass


def _load_segmenter_meanwhile() -> threading.Thread:
    """jieba's hashed dictionary (``content.text.jieba_lean``: ~0.1 s, 6 MB) loading in a thread while DuckDB reads
    the artifact; the runtime segments only questions (and the chunks of artifacts without a stored index)."""
    from ...content.text.tokenize import load_segmenter

    thread = threading.Thread(target=load_segmenter, kwargs={"lean": True}, name="unitrag-jieba", daemon=True)
    thread.start()
    return thread


def stored_index_usable(manifest: dict[str, Any], chunk_columns: set[str]) -> bool:
    """The artifact holds a BM25 index made by this tokenizer for every chunk (schema 5)."""
    from ...content.text.tokenize import terms_current

    return "sparse_index" in manifest and "chunk_no" in chunk_columns and terms_current(manifest)


def in_chunk_order(table: pa.Table) -> pa.Table:
    """``table`` sorted by chunk_id (a no-op check when it already is, as a full write leaves it)."""
    ids = table.column("chunk_id")
    if len(ids) < 2:
        return table
    ordered = pc.all(pc.less(ids.slice(0, len(ids) - 1), ids.slice(1))).as_py()
    return table if ordered else table.take(pc.sort_indices(ids))


def clickable(citations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The citations as stored, each URL one a reader may be sent to (``content.urls.check_url``, as ``validate``
    holds the registry to): a ``javascript:`` URL written into an artifact or a published database after the build
    was served as every answer's reference link. A tampered one is refused at open, as a tampered role is."""
    from ...content.urls import check_url

    for citation in citations:
        url = citation.get("url")
        if url is None:
            continue
        try:
            check_url(url) if isinstance(url, str) else check_url(repr(url))
        except ValueError as exc:
            raise UserError(f"citation {citation.get('id')!r} has a URL no reader may be sent to ({exc}); it was "
                            "changed after `unitrag build`: rebuild the artifact (and publish it again)") from None
    return citations

