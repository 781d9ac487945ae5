"""Rows for the artifact's tables, from the validated content and the prompts folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..content.loader import ContentSet
from ..content.models import Document, Rule, Scene, Story, Taxonomy
from ..content.text.tokenize import indexed_text, sparse_terms
from .hashing import canonical_json
from .plan import HashedChunk
from ..artifact.bounded_sandbox import MAX_PROMPT_CHARS
from .calibration_file import read_calibration  # noqa: F401 - re-exported: `unitrag build` warns from it
from .prompts import read_prompts


def unit_rows(content: ContentSet) -> list[dict[str, Any]]:
    stories = {lu.id: lu.unit for lu in content.units if isinstance(lu.unit, Story)}
    rows = []
    for lu in sorted(content.units, key=lambda u: u.id):
        u = lu.unit
        story = stories.get(u.story) if isinstance(u, Scene) else None
        rows.append({
            "unit_id": u.id, "kind": u.kind, "title": u.title,
            "lang": u.lang or (story.lang if story else "en"),
            "access": u.access or (story.access if story else "public"),
            "story_id": u.story if isinstance(u, Scene) else (u.id if isinstance(u, Story) else None),
            "order": u.order if isinstance(u, Scene) else None,
            "summary": u.summary if isinstance(u, Story) else None,
            "topics": list(u.topics), "citation_ids": list(u.citation_ids),
            "trigger": u.trigger.model_dump_json() if isinstance(u, Rule) else None,
            "severity": u.severity if isinstance(u, Rule) else None,
            "source": u.source if isinstance(u, Document) else None,
            "source_path": lu.rel_path,
        })
    return rows


def chunk_rows(chunks: list[HashedChunk]) -> list[dict[str, Any]]:
    """One ``chunks`` row per chunk (the embedding is added by the writer).

    ``sparse_terms`` are the chunk's BM25 terms, so that opening a large knowledge base
    does not tokenise every chunk again (about a minute per 100k English chunks).
    """
    return [
        {
            "chunk_id": h.chunk.chunk_id, "unit_id": h.chunk.unit_id, "kind": h.chunk.kind,
            "story_id": h.chunk.story_id, "scene_id": h.chunk.scene_id, "page": h.chunk.page,
            "title": h.chunk.title, "lang": h.chunk.lang, "access": h.chunk.access,
            "topics": list(h.chunk.topics), "citation_ids": list(h.chunk.citation_ids),
            "text_for_embedding": h.chunk.text_for_embedding, "text_for_prompt": h.chunk.text_for_prompt,
            "extra": canonical_json(h.chunk.extra), "source_path": h.chunk.source_path,
            "content_hash": h.content_hash, "meta_hash": h.meta_hash,
            "sparse_terms": sparse_terms(indexed_text(h.chunk.title, h.chunk.text_for_prompt)),
        }
        for h in chunks
    ]


def topic_rows(taxonomy: Taxonomy) -> list[dict[str, Any]]:
    """The taxonomy as rows of the artifact's ``topics`` table (what ``Broadener.from_rows`` reads back). A name in a
    language the knowledge base does not declare (``unitrag.toml``) may be left out: the other language's stands in, so
    every reader of the table (broadening, spelling, /v1/about) finds a name in each."""
    return [
        {"id": t.id, "is_group": is_group, "name_en": t.names.get("en"), "name_zh": t.names.get("zh"),
         "synonyms_en": list(t.synonyms.en), "synonyms_zh": list(t.synonyms.zh),
         "members": list(getattr(t, "members", [])), "excludes": list(t.excludes)}
        for is_group, entries in ((False, taxonomy.topics), (True, taxonomy.groups)) for t in entries
    ]


def registry_rows(
    content: ContentSet, prompts_dir: Path, calibration_file: Path | None = None, max_prompt_chars: int = MAX_PROMPT_CHARS,
) -> dict[str, list[dict[str, Any]]]:
    """citations, topics, guard_rules, prompts (each checked within ``max_prompt_chars``) and calibration, ready to insert."""
    topics = topic_rows(content.taxonomy)
    return {
        "citations": [
            {**c.model_dump(exclude={"authors"}), "authors": list(c.authors)}
            for c in sorted(content.citations.values(), key=lambda c: c.id)
        ],
        "topics": topics,
        "guard_rules": [
            {"id": g.id, "type": g.type, "patterns_en": list(g.patterns.en), "patterns_zh": list(g.patterns.zh),
             # a knowledge base of one language writes its rules in that one: the other language's column holds it too
             "response_en": g.response.get("en"), "response_zh": g.response.get("zh"),
             "caution_en": g.caution.get("en") if g.caution else None,
             "caution_zh": g.caution.get("zh") if g.caution else None,
             "similar_without_sign": g.similar_without_sign, "exempt_restricted_role": g.exempt_restricted_role}
            for g in content.guard_rules
        ],
        "prompts": read_prompts(prompts_dir, max_prompt_chars),
        "calibration": read_calibration(calibration_file),
    }

