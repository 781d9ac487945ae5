"""A quote (a span of a source, scored against the question), and the order a unit's quotes are read in.

The extractive answer chooses its quotes best first; a reader reads a unit's line in the text's order,
with a list's steps in the list's order and a sentence that points back right after the one it points
to. Choosing is ``extractive``; the order is here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..types import Source
from .spans import Span


@dataclass(frozen=True)
class Quote:
    """A candidate span with its source, that source's rank, what of the question it states, and its score."""

    span: Span
    source: Source
    rank: int
    relevance: float
    score: float  # relevance plus the prior (rank, place)


def _grouped(quotes: list[Quote], key: Callable[[Quote], object]) -> list[Quote]:
    """The quotes with those sharing a key (None: none) moved up to the first one's place, in their order."""
    groups: dict[object, list[Quote]] = {}
    for i, quote in enumerate(quotes):
        k = key(quote)
        groups.setdefault(i if k is None else k, []).append(quote)
    return [q for group in groups.values() for q in group]


def in_reading_order(quotes: Sequence[Quote]) -> list[Quote]:
    """A unit's quotes as its line gives them: the best first, then the rest in the text's order, a sentence that points
    back right after the one it points to; the items and
    rows under one context (a heading, a lead-in line) together, after the first of them; two or more steps of one
    numbered list in the list's order, from the place of the first of them (the best step may be the last one)."""
    ordered = [quotes[0], *sorted(quotes[1:], key=lambda q: (q.source.chunk_id, q.span.position))]
    ordered = _grouped(ordered, lambda q: (q.source.chunk_id, q.span.context)
                       if q.span.kind != "sentence" and q.span.context else None)
    ordered = _after_what_it_leans_on(ordered)
    steps = numbered(ordered)
    out = _grouped(ordered, lambda q: list_of(q) if list_of(q) in steps else None)
    for key in steps:  # each list's steps sit together now: put them in the list's order
        at = [i for i, q in enumerate(out) if list_of(q) == key]
        for i, q in zip(at, sorted((out[i] for i in at), key=lambda q: q.span.position)):
            out[i] = q
    return out


def _after_what_it_leans_on(quotes: list[Quote]) -> list[Quote]:
    """Each quote that points back ("Outside those hours, …", "Reserve them …") right after the sentence it points
    back to, when both are quoted: the unit's other quotes, in the text's order, must not come between (a park's
    kiosk sentence came first and the gate hours it meant last; "them", the wheelchairs, read as the buses)."""
    out = list(quotes)
    for quote in quotes:
        if quote.span.leans_on < 0:
            continue
        target = next((q for q in out if q.source.chunk_id == quote.source.chunk_id
                       and q.span.position == quote.span.leans_on), None)
        if target is not None and out.index(target) != out.index(quote) - 1:
            out.remove(quote)
            out.insert(out.index(target) + 1, quote)
    return out


def list_of(quote: Quote) -> tuple[str, int] | None:
    return (quote.source.chunk_id, quote.span.list_no) if quote.span.ordinal else None


def numbered(quotes: Sequence[Quote]) -> set[tuple[str, int]]:
    """The numbered lists two or more of whose steps are quoted (a long step's sentences are one step)."""
    steps: dict[tuple[str, int], set[int]] = {}
    for quote in quotes:
        key = list_of(quote)
        if key is not None:
            steps.setdefault(key, set()).add(quote.span.ordinal)
    return {key for key, numbers in steps.items() if len(numbers) > 1}
