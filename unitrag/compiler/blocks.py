"""Markdown → atomic blocks, the pieces a chunk boundary may fall between.

A table, a code block or a list (with the sentence that leads into it) is one
block: cutting one in half gives chunks that mean nothing on their own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

PAGE_BREAK = re.compile(r"^\s*<!--\s*page\s*-->\s*$", re.MULTILINE)
_SENTENCE_END = re.compile(r"(?<=[。！？；!?])|(?<=[.;:])\s+")


@dataclass(frozen=True)
class Block:
    kind: str  # heading, paragraph, list, table, code, quote, other
    text: str
    level: int = 0  # heading level (1-6) for headings

    @property
    def splittable(self) -> bool:
        """Only plain prose may be cut, and only at sentence ends."""
        return self.kind == "paragraph"


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # here: a plan whose units all come from the parse cache never needs it

    return MarkdownIt("commonmark").enable("table")


_KINDS = {
    "heading_open": "heading", "paragraph_open": "paragraph", "bullet_list_open": "list",
    "ordered_list_open": "list", "table_open": "table", "fence": "code", "code_block": "code",
    "blockquote_open": "quote",
}


def parse_blocks(markdown: str) -> list[Block]:
    """Top-level blocks in order, each with its exact source text."""
    lines = markdown.split("\n")
    blocks: list[Block] = []
    for token in _parser().parse(markdown):
        if token.level != 0 or token.map is None or token.nesting == -1:
            continue
        start, end = token.map
        text = "\n".join(lines[start:end]).strip()
        if not text:
            continue
        kind = _KINDS.get(token.type, "other")
        level = int(token.tag[1]) if kind == "heading" else 0
        blocks.append(Block(kind, text, level))
    return _attach_list_leads(blocks)


def _attach_list_leads(blocks: list[Block]) -> list[Block]:
    """A paragraph ending in ':' (or '：') travels with the list that follows it."""
    merged: list[Block] = []
    for block in blocks:
        prev = merged[-1] if merged else None
        if block.kind == "list" and prev is not None and prev.kind == "paragraph" and prev.text.rstrip().endswith((":", "：")):
            merged[-1] = Block("list", f"{prev.text}\n{block.text}")
        else:
            merged.append(block)
    return merged


def split_sentences(text: str) -> list[str]:
    """Sentences of a paragraph (Chinese and English punctuation), whitespace kept tidy."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def split_pages(markdown: str) -> list[str]:
    """An author's explicit pages (``<!-- page -->`` lines); empty pages dropped."""
    return [page.strip() for page in PAGE_BREAK.split(markdown) if page.strip()]
