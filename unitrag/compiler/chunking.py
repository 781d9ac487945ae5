"""Units → chunks. Authors define the boundaries: a unit is a chunk, except where it can't be.

* story → one chunk: title + summary (the intro body goes to the prompt only);
* scene → one chunk, or one per page (author ``<!-- page -->`` breaks, or packing
  when a page is over the embedder's input budget);
* rule → one chunk: title + body, with its trigger as metadata;
* document → chunks from its heading structure (``sections.py``).

What is embedded (``text_for_embedding``) has the inline ``<Cite/>`` tags removed:
a citation edit is then metadata, not content, and costs no embedding.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..content.text.citation_tags import strip_tags
from ..content.loader import ContentSet, LoadedUnit
from ..content.models import Document, Rule, Scene, Story
from .blocks import parse_blocks, split_pages
from .packing import pack_blocks
from .sections import split_sections
from .tokens import estimate_tokens

#: Bump when chunk boundaries or texts change for the same content: every chunk is re-embedded.
CHUNKER_VERSION = "1"


@dataclass(frozen=True)
class Chunk:
    chunk_id: str
    unit_id: str
    kind: str
    title: str
    lang: str
    access: str
    text_for_embedding: str
    text_for_prompt: str
    topics: tuple[str, ...]
    citation_ids: tuple[str, ...]
    story_id: str | None = None
    scene_id: str | None = None
    page: int | None = None
    source_path: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # kind-specific: order, trigger, severity, heading path...


def strip_citations(text: str) -> str:
    """The text without its ``<Cite/>`` tags, found by the same tokenizer as validation and the runtime."""
    return strip_tags(text)


def chunk_content(content: ContentSet, budget: int) -> list[Chunk]:
    """Every chunk of a validated content set, in a stable order."""
    stories = {lu.id: lu.unit for lu in content.units if isinstance(lu.unit, Story)}
    chunks: list[Chunk] = []
    for lu in sorted(content.units, key=lambda u: u.id):
        chunks.extend(chunk_unit(lu, stories, budget))
    return chunks


def chunk_unit(lu: LoadedUnit, stories: dict[str, Story], budget: int) -> list[Chunk]:
    unit = lu.unit
    body = lu.body.strip()
    common: dict[str, Any] = {
        "unit_id": unit.id, "kind": unit.kind, "title": unit.title, "topics": tuple(unit.topics),
        "citation_ids": tuple(unit.citation_ids), "source_path": lu.rel_path,
    }
    if isinstance(unit, Story):
        head = f"{unit.title}\n{unit.summary}"
        prompt = f"{head}\n\n{body}".strip()
        return [Chunk(chunk_id=unit.id, lang=unit.lang, access=unit.access, story_id=unit.id,
                      text_for_embedding=head, text_for_prompt=prompt, **common)]
    if isinstance(unit, Scene):
        story = stories[unit.story]
        title = f"{story.title} — {unit.title}"
        pages = _scene_pages(body, budget - estimate_tokens(title))
        return [
            Chunk(
                chunk_id=unit.id if len(pages) == 1 else f"{unit.id}#p{n}",
                lang=unit.lang or story.lang, access=unit.access or story.access,
                story_id=story.id, scene_id=unit.id, page=None if len(pages) == 1 else n,
                text_for_embedding=f"{title}\n{strip_citations(page)}", text_for_prompt=page,
                extra={"order": unit.order, "pages": len(pages)}, **common,
            )
            for n, page in enumerate(pages, start=1)
        ]
    if isinstance(unit, Rule):
        return [Chunk(
            chunk_id=unit.id, lang=unit.lang, access=unit.access,
            text_for_embedding=f"{unit.title}\n{strip_citations(body)}", text_for_prompt=body,
            extra={"trigger": unit.trigger.model_dump(), "severity": unit.severity}, **common,
        )]
    assert isinstance(unit, Document)
    sections = split_sections(parse_blocks(body), budget - estimate_tokens(unit.title), estimate_tokens)
    return [
        Chunk(
            chunk_id=unit.id if len(sections) == 1 else f"{unit.id}#s{n}",
            lang=unit.lang, access=unit.access, page=None if len(sections) == 1 else n,
            text_for_embedding="\n".join([" > ".join((unit.title,) + s.path), strip_citations(s.text)]),
            text_for_prompt=s.text, extra={"headings": list(s.path), "source": unit.source}, **common,
        )
        for n, s in enumerate(sections, start=1)
    ]


def _scene_pages(body: str, budget: int) -> list[str]:
    """Author pages first; a page over budget is packed into several."""
    pages: list[str] = []
    for page in split_pages(body) or [body]:
        if estimate_tokens(strip_citations(page)) <= budget:
            pages.append(page)
        else:
            pages.extend(pack_blocks(parse_blocks(page), budget, lambda t: estimate_tokens(strip_citations(t))))
    return pages
