"""What the preview page says about the knowledge base it serves: its name, description and languages
(``unitrag.toml``, else as the artifact was built), and example questions and topics taken from the artifact, never from the sample.

Example questions are the authors' own questions of units the caller may read
(``KnowledgeBase.example_questions``).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..rag.knowledge_base import KnowledgeBase

#: Topics listed: those the most readable chunks cover.
TOPICS_SHOWN = 8


def about(kb: KnowledgeBase, roles: Collection[str]) -> dict[str, Any]:
    """The knowledge base as the page introduces it to a caller holding ``roles``."""
    identity = kb.identity  # unitrag.toml's, else the one the artifact was built with
    return {"name": identity.name, "description": identity.description,
            "localized": {lang: dict(texts) for lang, texts in identity.localized.items()}, "languages": list(kb.languages),
            "examples": kb.example_questions(roles), "topics": main_topics(kb, roles)}


def main_topics(kb: KnowledgeBase, roles: Collection[str], shown: int = TOPICS_SHOWN) -> list[dict[str, str]]:
    """The topics (not groups) covered by the most chunks the caller may read, most first (ties by id)."""
    store = kb.store
    readable = np.isin(store.access, ["public", *roles])
    chunk_topics = store.columns["topics"].array.filter(pa.array(readable))
    flat = pc.cast(pc.list_flatten(chunk_topics), pa.string())
    covered = {row["values"]: row["counts"] for row in pc.value_counts(flat).to_pylist()}
    topics = [t for t in store.topics if not t.get("is_group") and t["id"] in covered]
    topics.sort(key=lambda t: (-covered[t["id"]], t["id"]))
    return [{"id": t["id"], "name_en": t["name_en"], "name_zh": t["name_zh"]} for t in topics[:shown]]
