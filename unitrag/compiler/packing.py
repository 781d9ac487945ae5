"""Greedy, balanced packing of blocks into chunks under a token budget, with sentence overlap."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .blocks import Block, split_sentences

Counter = Callable[[str], int]


@dataclass(frozen=True)
class _Piece:
    text: str
    kind: str  # the block kind it came from; "sentence" for a sentence of a cut paragraph
    glue: str  # how it joins the piece before it in the same chunk

    @property
    def prose(self) -> bool:
        return self.kind in ("paragraph", "sentence")


def pack_blocks(blocks: list[Block], budget: int, count: Counter, overlap: bool = True) -> list[str]:
    """Join blocks into chunks of at most ``budget`` tokens where possible.

    Atomic blocks (tables, code, lists) are never cut, even when one alone is over
    budget. Prose over budget is cut at sentence ends. A heading never ends a
    chunk. With ``overlap``, a chunk that continues prose starts with the last
    sentence of the chunk before, so a claim split across the boundary keeps its
    context. Sizes are balanced: equal parts rather than full chunks and a stub.
    """
    pieces = _pieces(blocks, budget, count)
    sizes = [count(p.text) for p in pieces]
    greedy = _greedy(pieces, sizes, budget, count, overlap)
    if len(greedy) < 2:
        return [_join(chunk) for chunk in greedy]
    target = int(sum(sizes) / len(greedy) * 1.15)
    balanced = _greedy(pieces, sizes, min(budget, target), count, overlap)
    best = balanced if len(balanced) == len(greedy) else greedy
    return [_join(chunk) for chunk in best]


def _pieces(blocks: list[Block], budget: int, count: Counter) -> list[_Piece]:
    pieces: list[_Piece] = []
    for i, block in enumerate(blocks):
        # a paragraph is cut when it cannot share a chunk with the heading that leads it
        lead = count(blocks[i - 1].text) if i and blocks[i - 1].kind == "heading" else 0
        if count(block.text) + lead <= budget or not block.splittable:
            pieces.append(_Piece(block.text, block.kind, "\n\n"))
            continue
        for i, sentence in enumerate(split_sentences(block.text)):
            glue = "\n\n" if i == 0 else _space(pieces[-1].text, sentence)
            pieces.append(_Piece(sentence, "sentence", glue))
    return pieces


def _greedy(pieces: list[_Piece], sizes: list[int], budget: int, count: Counter, overlap: bool) -> list[list[_Piece]]:
    chunks: list[list[_Piece]] = []
    used = 0
    for piece, size in zip(pieces, sizes):
        if chunks and used + size <= budget:
            chunks[-1].append(piece)
            used += size
            continue
        start: list[_Piece] = []
        if chunks and chunks[-1][-1].kind == "heading":
            start.append(chunks[-1].pop())  # a heading travels with what follows it, even over budget
            if not chunks[-1]:
                chunks.pop()
        elif chunks and overlap and piece.prose:
            carry = _last_sentence(chunks[-1])
            if carry is not None and count(carry.text) + size <= budget:
                start.append(carry)
        chunks.append(start + [piece])
        used = sum(count(p.text) for p in start) + size
    return chunks


def _last_sentence(chunk: list[_Piece]) -> _Piece | None:
    """The last sentence of a chunk ending in prose, if the chunk holds more than it."""
    last = chunk[-1]
    if not last.prose:
        return None
    sentences = split_sentences(last.text)
    if len(sentences) == 1 and len(chunk) == 1:
        return None
    return _Piece(sentences[-1], "sentence", "\n\n")


def _join(chunk: list[_Piece]) -> str:
    return "".join((p.glue if i else "") + p.text for i, p in enumerate(chunk))


def _space(before: str, after: str) -> str:
    return "" if (_is_cjk(before[-1]) or _is_cjk(after[0])) else " "


def _is_cjk(ch: str) -> bool:
    return "\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef"
