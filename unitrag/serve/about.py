"""What the preview page says about the knowledge base it serves: its name, description and languages
(``unitrag.toml``, else as the artifact was built), and example questions and topics taken from the artifact, never from the sample.

Example questions are the authors' own questions of units (``questions:`` in a unit's frontmatter),
so a new knowledge base shows its own domain from its first build. Only units the caller may read
give one: a restricted unit's question never reaches an anonymous page, where it would tell
what the restricted content covers.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..rag.knowledge_base import KnowledgeBase

#: Example questions per language: enough for a few chips and a placeholder, one per unit, spread over the units.
EXAMPLES_PER_LANG = 6
#: Topics listed: those the most readable chunks cover.
TOPICS_SHOWN = 8


def about(kb: KnowledgeBase, roles: Collection[str]) -> dict[str, Any]:
    """The knowledge base as the page introduces it to a caller holding ``roles``."""
    identity = kb.identity  # unitrag.toml's, else the one the artifact was built with
    return {"name": identity.name, "description": identity.description,
            "localized": {lang: dict(texts) for lang, texts in identity.localized.items()}, "languages": list(kb.languages),
            "examples": example_questions(kb, roles), "topics": main_topics(kb, roles)}


def example_questions(kb: KnowledgeBase, roles: Collection[str], per_lang: int = EXAMPLES_PER_LANG) -> list[dict[str, str]]:
    """Up to ``per_lang`` questions in each language: each unit's first question (by text), from units spread
    evenly over the ids (different stories and topics rather than one story's first scenes)."""
    firsts: dict[str, dict[str, str]] = {}  # language → unit id → its question
    for row in sorted(kb.store.unit_questions, key=lambda r: (r["unit_id"], r["text"])):  # the same on every backend
        unit_id = row["unit_id"]
        if (row["role"] == "unit_question" or roles) and kb.known.visible(unit_id, roles):
            firsts.setdefault(row["lang"], {}).setdefault(unit_id, row["text"])
    examples = []
    for lang, questions in sorted(firsts.items()):
        units = sorted(questions)
        step = len(units) / min(per_lang, len(units))
        examples += [{"text": questions[units[int(i * step)]], "lang": lang, "unit_id": units[int(i * step)]}
                     for i in range(min(per_lang, len(units)))]
    return examples


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
