"""A streamed answer shown without a citation it may not show.

Streamed words cannot be taken back, and a reader (or an app printing the pieces) takes
``<Cite id="made-up"/>`` or ``[1]`` for a reference the moment it appears. So the text after
anything that could begin a citation (``<``, ``[``, ``{``, a character read as one of them, or the
start of an escape: ``&``, ``%``, ``\\``) is held back until it can be judged by the same
tokenizer the faithfulness check uses (``content.text.citation_tags``): an allowed
``<Cite id="..."/>`` passes as written, any other tag or a numbered marker is dropped, and a
character that turned out to start nothing passes. Text without such a character streams as
it comes. The whole answer is still checked at the end (``generate``).
"""

from __future__ import annotations

import re

from ...content.text.citation_tags import find_tags
from ...content.text.unicode_fold import read_as
from .citations import MARKER_OPENINGS, NUMBERED_MARKER, NUMBERED_MARKER_PREFIX

#: Held text longer than this after a possible start is judged whatever follows: no tag, however
#: written, runs longer (a tag is closed within 300 characters, a paired ``<cite>…</cite>`` 200 later).
HOLD_CHARS = 600
#: A possible start followed by this many characters that begin no tag or marker starts nothing.
NOT_A_START_CHARS = 24
#: After a complete ``<cite …>`` that is not self-closed, a ``</cite>`` may still come within this many.
PAIRED_CHARS = 220

_ESCAPES = frozenset("&%\\")
_SELF_CLOSED = re.compile(r"(?:/\s*>|[\]}])\s*$")


def _may_start(ch: str) -> bool:
    return ch in _ESCAPES or read_as(ch) in ("<", "[", "{") or ch in MARKER_OPENINGS


class CitationStreamFilter:
    """Feed it the pieces as they come; it returns what may be shown now (possibly "")."""

    def __init__(self, allowed: set[str]) -> None:
        self.allowed = allowed
        self._held = ""

    def feed(self, piece: str) -> str:
        self._held += piece
        return self._drain(final=False)

    def finish(self) -> str:
        """What is still held, judged now that nothing more will come."""
        return self._drain(final=True)

    def _drain(self, final: bool) -> str:
        shown: list[str] = []
        while self._held:
            start = next((i for i, ch in enumerate(self._held) if _may_start(ch)), None)
            if start is None:
                shown.append(self._held)
                self._held = ""
                break
            shown.append(self._held[:start])
            self._held = self._held[start:]
            decided = self._judge(final)
            if decided is None:
                break
            text, rest = decided
            shown.append(text)
            self._held = rest
        return "".join(shown)

    def _judge(self, final: bool) -> tuple[str, str] | None:
        """(what to show, what is left) for the held text, which begins at a possible start; None: wait."""
        held = self._held
        marker = NUMBERED_MARKER.match(held)
        if marker is not None:
            return "", held[marker.end():]
        tags = [t for t in find_tags(held[:HOLD_CHARS]) if t.start == 0]
        if tags:
            tag = tags[0]
            complete = final or _SELF_CLOSED.search(tag.raw) is not None or len(held) - tag.end >= PAIRED_CHARS
            if not complete:
                return None
            kept = tag.id is not None and tag.id in self.allowed
            return (tag.raw if kept else ""), held[tag.end:]
        if final or len(held) > NOT_A_START_CHARS and not _marker_prefix(held):
            return held[0], held[1:]
        return None if len(held) <= HOLD_CHARS else (held[0], held[1:])


def _marker_prefix(held: str) -> bool:
    """The held text could still become a numbered marker (``[1, 2`` so far)."""
    return NUMBERED_MARKER_PREFIX.match(held[:NOT_A_START_CHARS + 1]) is not None
