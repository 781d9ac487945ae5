"""Recursive splitting of a free-form document by its heading structure.

A section that fits the budget is one chunk. One that does not is split at its
highest remaining heading level, and each part is handled the same way; a
section with no headings left is packed block by block. Small neighbouring
sections are merged, so a chunk is never just a heading and one line.
"""

from __future__ import annotations

from dataclasses import dataclass

from .blocks import Block
from .packing import Counter, pack_blocks


@dataclass(frozen=True)
class Section:
    path: tuple[str, ...]  # heading texts from the top, without '#'
    text: str


def split_sections(blocks: list[Block], budget: int, count: Counter, path: tuple[str, ...] = ()) -> list[Section]:
    """Sections of at most ``budget`` tokens (heading path included) where the structure allows it."""
    text = _text(blocks)
    room = budget - path_cost(path, count)
    if count(text) <= room:
        return [Section(path, text)] if text else []
    # below the top, a part's own heading is already in its path
    levels = [b.level for b in (blocks if not path else blocks[1:]) if b.kind == "heading"]
    if not levels:
        return [Section(path, chunk) for chunk in pack_blocks(blocks, room, count)]
    top = min(levels)
    parts: list[list[Block]] = [[]]
    for block in blocks:
        if block.kind == "heading" and block.level == top and parts[-1]:
            parts.append([])
        parts[-1].append(block)
    sections: list[Section] = []
    for part in parts:
        heading = part[0] if part[0].kind == "heading" and part[0].level == top else None
        sub_path = path + (_heading_text(heading),) if heading else path
        sections.extend(split_sections(part, budget, count, sub_path))
    return _merge_small(sections, budget, count)


def _merge_small(sections: list[Section], budget: int, count: Counter) -> list[Section]:
    """Join neighbours while they fit; the merged chunk keeps their common heading path."""
    merged: list[Section] = []
    for section in sections:
        if merged:
            prev = merged[-1]
            joined = f"{prev.text}\n\n{section.text}"
            common = _common(prev.path, section.path)
            if count(joined) + path_cost(common, count) <= budget:
                merged[-1] = Section(common, joined)
                continue
        merged.append(section)
    return merged


def path_cost(path: tuple[str, ...], count: Counter) -> int:
    """Tokens the heading path adds to the embedded text ("Title > H2 > H3")."""
    return count("".join(f" > {heading}" for heading in path)) if path else 0


def _common(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def _heading_text(block: Block) -> str:
    return block.text.lstrip("#").strip()


def _text(blocks: list[Block]) -> str:
    return "\n\n".join(b.text for b in blocks).strip()
