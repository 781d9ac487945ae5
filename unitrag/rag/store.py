"""The artifact in memory: one contiguous float32 matrix and columnar chunk metadata.

Loaded once at ``KnowledgeBase.open``; read-only afterwards, so any number of
threads can search it at once without locks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..artifact.reader import has_table, open_artifact, read_manifest, read_vectors, rows_as_dicts
from .dense import top_k
from .types import SearchFilter, Source

#: Filter masks kept (least recently used dropped): the common filters (public, clinician, each
#: language) stay cached, while an app sending arbitrary topic filters cannot grow memory without
#: limit (one bool per chunk each: 256 × 100k chunks is 25 MB at most).
MASK_CACHE_SIZE = 256
CHUNK_COLUMNS = (  # what the runtime reads of each chunk (every backend)
    "chunk_id, unit_id, kind, title, text_for_prompt, topics, citation_ids, access, lang, story_id, scene_id, page"
)


@dataclass
class ChunkStore:
    manifest: dict[str, Any]
    ids: list[str]
    vectors: np.ndarray  # (n, dim) float32, C-contiguous, unit rows
    columns: dict[str, list[Any]]
    access: np.ndarray  # (n,) object: "public" | "clinician"
    lang: np.ndarray
    kind: np.ndarray
    index: dict[str, int]
    citations: dict[str, dict[str, Any]]
    topics: list[dict[str, Any]]
    guard_rules: list[dict[str, Any]]
    prompts: dict[str, str]
    units: dict[str, dict[str, Any]]
    calibration: list[dict[str, Any]] = field(default_factory=list)  # answerability gates (rag.gate), per pipeline
    _masks: Any = field(init=False, repr=False, compare=False)  # the LRU of _make_mask (thread-safe)

    def __post_init__(self) -> None:
        self._masks = lru_cache(maxsize=MASK_CACHE_SIZE)(self._make_mask)

    @classmethod
    def load(cls, path: Path) -> "ChunkStore":
        with open_artifact(path) as con:
            manifest = read_manifest(con)
            ids, vectors = read_vectors(con)
            present = {row[0] for row in con.execute("SELECT column_name FROM duckdb_columns() WHERE table_name = 'chunks'").fetchall()}
            extra = ", sparse_terms" if "sparse_terms" in present else ""  # artifact schema >= 2
            table = con.execute(f"SELECT {CHUNK_COLUMNS}{extra} FROM chunks ORDER BY chunk_id").to_arrow_table()
            citations = rows_as_dicts(con, "SELECT * FROM citations")
            topics = rows_as_dicts(con, "SELECT * FROM topics ORDER BY id")
            guard_rules = rows_as_dicts(con, "SELECT * FROM guard_rules ORDER BY id")
            prompts = dict(con.execute("SELECT name, template FROM prompts").fetchall())
            units = rows_as_dicts(con, 'SELECT unit_id, kind, title, story_id, "order", trigger, severity FROM units')
            calibration = rows_as_dicts(con, "SELECT * FROM calibration") if has_table(con, "calibration") else []
        columns = {name: table.column(name).to_pylist() for name in table.column_names}
        assert columns["chunk_id"] == ids, "chunk order of metadata and vectors must agree"
        return cls.assemble(
            manifest=manifest, vectors=vectors, columns=columns, citations=citations, topics=topics,
            guard_rules=guard_rules, prompts=prompts, units=units, calibration=calibration,
        )

    @classmethod
    def assemble(
        cls, *, manifest: dict[str, Any], vectors: np.ndarray, columns: dict[str, list[Any]],
        citations: list[dict[str, Any]], topics: list[dict[str, Any]], guard_rules: list[dict[str, Any]],
        prompts: dict[str, str], units: list[dict[str, Any]], calibration: list[dict[str, Any]],
    ) -> "ChunkStore":
        """A store from rows as any backend reads them (JSON columns as text), so every backend serves the same."""
        ids = columns["chunk_id"]
        return cls(
            manifest=manifest, ids=ids, vectors=vectors, columns=columns,
            access=np.array(columns["access"], dtype=object), lang=np.array(columns["lang"], dtype=object),
            kind=np.array(columns["kind"], dtype=object), index={cid: i for i, cid in enumerate(ids)},
            citations={c["id"]: c for c in citations}, topics=topics, guard_rules=guard_rules, prompts=prompts,
            units={u["unit_id"]: {**u, "trigger": json.loads(u["trigger"]) if u["trigger"] else None} for u in units},
            calibration=calibration,
        )

    def __len__(self) -> int:
        return len(self.ids)

    def close(self) -> None:
        """Nothing to release: the artifact was read whole at load."""

    def dense_search(self, vector: np.ndarray, k: int, where: SearchFilter) -> tuple[np.ndarray, np.ndarray]:
        """Row indexes and cosine scores of the ``k`` best rows ``where`` allows: exact, in memory."""
        return top_k(self.vectors, vector, k, self.filter_mask(where))

    def filter_mask(self, where: SearchFilter) -> np.ndarray | None:
        return self.mask(clinician=where.clinician, lang=where.lang, kinds=list(where.kinds), topics=list(where.topics))

    def mask(
        self, *, clinician: bool, lang: str | None = None, kinds: list[str] | None = None, topics: list[str] | None = None
    ) -> np.ndarray | None:
        """Rows a caller may see and asked for; None when every row qualifies (the fast path).

        Masks are cached by their arguments, least recently used dropped past
        ``MASK_CACHE_SIZE``: the common ones (public / clinician) cost nothing after the first query.
        """
        return self._masks(clinician, lang, tuple(sorted(set(kinds or ()))), tuple(sorted(set(topics or ()))))

    def mask_cache_size(self) -> int:
        """How many filter masks are cached now (at most ``MASK_CACHE_SIZE``)."""
        return int(self._masks.cache_info().currsize)

    def _make_mask(
        self, clinician: bool, lang: str | None, kinds: tuple[str, ...], topics: tuple[str, ...]
    ) -> np.ndarray | None:
        keep = None if clinician else (self.access == "public")
        if lang is not None:
            keep = _and(keep, self.lang == lang)
        if kinds:
            keep = _and(keep, np.isin(self.kind, list(kinds)))
        if topics:
            wanted = set(topics)
            keep = _and(keep, np.array([bool(wanted.intersection(t)) for t in self.columns["topics"]]))
        return keep

    def source(self, i: int, **scores: float) -> Source:
        c = self.columns
        return Source(
            chunk_id=c["chunk_id"][i], unit_id=c["unit_id"][i], kind=c["kind"][i], title=c["title"][i],
            text=c["text_for_prompt"][i], topics=list(c["topics"][i]), citation_ids=list(c["citation_ids"][i]),
            access=c["access"][i], lang=c["lang"][i], story_id=c["story_id"][i], scene_id=c["scene_id"][i],
            page=c["page"][i], scores=dict(scores), score=next(iter(scores.values()), 0.0),
        )


def _and(a: np.ndarray | None, b: np.ndarray) -> np.ndarray:
    return b if a is None else (a & b)
