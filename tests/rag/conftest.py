"""A small in-memory ChunkStore, assembled from rows as a backend reads them (no build, no artifact file)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from unitrag.config import DEFAULT_EMBEDDER
from unitrag.content.text.tokenize import TOKENIZER_VERSION
from unitrag.rag.store.artifact_store import ChunkStore

EMBEDDER = DEFAULT_EMBEDDER
#: chunk id, unit id, kind, lang, access, topics, title, text
ROWS = [
    ("en-salt", "en-salt", "story", "en", "public", ["sodium"], "Salt and blood pressure", "Adults should eat less than 5 g of salt a day."),
    ("en-salt-how#p1", "en-salt-how", "scene", "en", "public", ["sodium"], "How salt raises blood pressure", "Sodium holds water."),
    ("en-b12-treat#p1", "en-b12-treat", "scene", "en", "clinician", ["vitamin-b12"], "Treating B12 deficiency", "Hydroxocobalamin 1 mg IM."),
    ("en-bp-high", "en-bp-high", "rule", "en", "public", ["sodium"], "High blood pressure", "Systolic 140 or more is high."),
    ("zh-iodine", "zh-iodine", "story", "zh", "public", ["iodine"], "孕妇与碘", "孕妇每天需要230微克碘。"),
    ("zh-iodine-salt#p1", "zh-iodine-salt", "scene", "zh", "public", ["iodine", "sodium"], "加碘盐", "加碘盐是碘的主要来源。"),
]
TOPICS = ["iodine", "sodium", "vitamin-b12"]
#: Each row's BM25 terms as the build stores them (written out here, so making a store loads no segmenter).
TERMS = {
    "en-salt": "salt blood pressur adult eat less 5 g salt day", "en-salt-how#p1": "salt rais blood pressur sodium hold water",
    "en-b12-treat#p1": "treat b12 defici hydroxocobalamin 1 mg im", "en-bp-high": "high blood pressur systol 140 high",
    "zh-iodine": "孕妇 碘 孕妇 每天 230 微克 碘", "zh-iodine-salt#p1": "加碘 碘盐 加碘盐 碘 主要 来源",
}


def topic_row(topic_id: str) -> dict:
    return {"id": topic_id, "is_group": False, "name_en": topic_id, "name_zh": topic_id, "synonyms_en": [],
            "synonyms_zh": [], "members": []}


def make_store(vectors: np.ndarray | None = None, rows: list[tuple] = ROWS) -> ChunkStore:
    """A store of ``rows``; random unit vectors unless ``vectors`` are given."""
    if vectors is None:
        vectors = np.random.default_rng(0).normal(size=(len(rows), 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    columns: dict[str, list] = {
        "chunk_id": [r[0] for r in rows], "unit_id": [r[1] for r in rows], "kind": [r[2] for r in rows],
        "lang": [r[3] for r in rows], "access": [r[4] for r in rows], "topics": [r[5] for r in rows],
        "title": [r[6] for r in rows], "text_for_prompt": [r[7] for r in rows], "citation_ids": [[] for _ in rows],
        "story_id": [r[1] if r[2] == "story" else None for r in rows],
        "scene_id": [r[1] if r[2] == "scene" else None for r in rows], "page": [None for _ in rows],
        "sparse_terms": [TERMS[r[0]] for r in rows],
    }
    units = [{"unit_id": r[1], "kind": r[2], "title": r[6], "story_id": None, "order": None, "trigger": None,
              "severity": None} for r in rows]
    return ChunkStore.assemble(
        manifest={"embedder": {"id": EMBEDDER, "dim": 384}, "sparse_index": {"tokenizer": TOKENIZER_VERSION}}, vectors=vectors, columns=columns, citations=[],
        topics=[topic_row(t) for t in TOPICS], guard_rules=[], prompts={}, units=units, calibration=[],
    )


@pytest.fixture
def tiny_store() -> Callable[..., ChunkStore]:
    return make_store
