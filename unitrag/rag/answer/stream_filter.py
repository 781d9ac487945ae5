"""A streamed answer shown without a citation it may not show.

Streamed words cannot be taken back, and a reader (or an app printing the pieces) takes
``<Cite id="made-up"/>`` or ``[1]`` for a reference the moment it appears. So the text after
anything that could begin a citation (``<``, ``[``, ``{``, a character read as one of them, or the
start of an escape: ``&``, ``%``, ``\\``) is held back until it can be judged by the same
tokenizer the faithfulness check uses (``content.text.citation_tags``): an allowed
``<Cite id="..."/>`` passes as written, any other tag or a numbered marker is dropped, and a
character that turned out to start nothing passes. Text without such a character streams as
it comes. The whole answer is still checked at the end (``generate``).

Every other invented reference (``markers``: ``µg²``, ``<sup>2</sup>``, ``②``, ``(2).``, ``(ref. 2)``,
``（来源2）``) is held from where it could begin until the same patterns, read with what came before it
(a citation, a word, a digit), say whether it is one; one is dropped. A line that could head a
reference list ("References", "## Sources", "参考文献：") holds everything after it until the answer
ends, when the list is judged as the whole-answer check judges it: an invented one is dropped whole.
"""

from __future__ import annotations

import re

from ...content.text.citation_tags import find_tags
from ..arguments import CONTROLS
from ...content.text.unicode_fold import read_as
from .markers import (HEADING, LOOKAHEAD_CHARS, MARKER, MARKER_OPENINGS, NUMBERED_MARKER, NUMBERED_MARKER_PREFIX, TAG,
                      first_start, heading_list, inline_at, make_view)

#: Held text longer than this after a possible start is judged whatever follows: no tag, however
#: written, runs longer (a tag is closed within 300 characters, a paired ``<cite>…</cite>`` 200 later).
HOLD_CHARS = 600
#: A possible start followed by this many characters that begin no tag or marker starts nothing.
NOT_A_START_CHARS = 24
#: After a complete ``<cite …>`` that is not self-closed, a ``</cite>`` may still come within this many.
PAIRED_CHARS = 220

#: What is kept of the text already judged, as ``markers`` reads it: what an invented marker follows.
CONTEXT_CHARS = 200

_ESCAPES = frozenset("&%\\")
_NONE = object()  # no invented marker begins here
_SELF_CLOSED = re.compile(r"(?:/\s*>|[\]}])\s*$")
#: The unfinished start of a tag or a bracketed marker the answer ends on ("… and <Ci", "… see [3"): a model cut off
#: mid-word. No reader can use it, and a tag half-written is neither cited nor refused: it is dropped.
_DANGLING = re.compile(r"(?:</?[A-Za-z][^<>]{0,300}|[\[【［]+\^?[\w\s,，、\-–—]{0,40})$")


#: Unicode's tag characters (U+E0000–U+E007F) draw nothing, but spell ASCII to a model or a program that reads them:
#: hidden text an LLM's answer must not carry to its readers ("ASCII smuggling"; an attacker's mock LLM passed them).
#: Control characters but the newline and the tab (an ANSI escape clears a terminal, a carriage return writes over a
#: line) and the bidirectional overrides and isolates (U+202E shows "gnp.live" as "evil.png") are refused in a unit
#: body by ``unitrag validate``; an LLM's answer loses them (a later attacker's mock LLM passed "\x1b[2J" and U+202E),
#: one character at a time, as a question does (``arguments.CONTROLS``), since a stream's pieces may split a sequence.
_HIDDEN = re.compile(f"[\U000E0000-\U000E007F]|{CONTROLS.pattern}")


def without_hidden(text: str) -> str:
    """``text`` without characters that hide or rewrite what a reader sees (``_HIDDEN``)."""
    return _HIDDEN.sub("", text)


def without_dangling(text: str) -> str:
    """``text`` without an unfinished tag or marker at its very end (``_DANGLING``)."""
    found = _DANGLING.search(text)
    return text[:found.start()].rstrip() if found else text


#: A citation tag's name begun: "<", "</ C", "<Ci", "<Cite" (what ``_CITE_BEGUN`` and ``_SPLIT_TAG`` start from)
_CITE_NAME_BEGUN = r"<\s*/?\s*c(?:i(?:t(?:e)?)?)?"
#: The unfinished start of a citation tag ("<Ci", '<Cite id="who-f'), and the id it names when that is written whole.
_CITE_BEGUN = re.compile(_CITE_NAME_BEGUN + r"(?![^\s/>=a-z])", re.IGNORECASE)
_WHOLE_ID = re.compile(r"\bid\s*=\s*(['\"])([^'\"<>]+)\1")


def dangling_citation(text: str, allowed: set[str]) -> str | None:
    """The citation tag an answer ends on unfinished, as written, unless it names an allowed id whole: a model cut off
    (or told to stop) mid-tag cited something no check could read ('… dose 5 mL formalin <Cite id="who-fake"'), which
    is as unchecked as an invented id, not a harmless end; None when the answer ends on no such tag."""
    found = _DANGLING.search(text)
    if found is None or not _CITE_BEGUN.match(found.group(0)):
        return None
    named = _WHOLE_ID.search(found.group(0))
    return None if named is not None and named.group(2).strip() in allowed else found.group(0).strip()[:80]


def _may_start(ch: str) -> bool:
    return ch in _ESCAPES or read_as(ch) in ("<", "[", "{") or ch in MARKER_OPENINGS


class CitationStreamFilter:
    """Feed it the pieces as they come; it returns what may be shown now (possibly "")."""

    def __init__(self, allowed: set[str]) -> None:
        self.allowed = allowed
        self._held = ""
        self._before = ""  # the end of what was judged, each tag read as TAG and each [n] marker as MARKER

    def feed(self, piece: str) -> str:
        self._held += without_hidden(piece)
        return self._drain(final=False)

    def finish(self) -> str:
        """What is still held, judged now that nothing more will come (an unfinished tag at the end dropped)."""
        self._held = without_dangling(self._held)
        return self._drain(final=True)

    def _drain(self, final: bool) -> str:
        shown: list[str] = []
        while self._held:
            start = self._next_start(final)
            if start is None:
                shown.append(self._held)
                self._judged(self._held, self._held)
                break
            shown.append(self._held[:start])
            self._judged(self._held[:start], self._held[:start])
            decided = self._judge(final)
            if decided is None:
                break
            shown.append(decided)
        return "".join(shown)

    def _judged(self, taken: str, read_as: str) -> None:
        """``taken`` leaves the held text; what follows reads it as ``read_as``."""
        self._held = self._held[len(taken):]
        self._before = (self._before + read_as)[-CONTEXT_CHARS:]

    def _next_start(self, final: bool) -> int | None:
        """Where the first possible citation, marker or reference list of the held text begins (None: nowhere)."""
        held = self._held
        at = len(self._before)
        heading = HEADING.match(self._before + held, at, partial=not final)
        if heading is not None and heading.end() > at:  # a reference list, held until the answer ends
            return 0
        start = next((i for i, ch in enumerate(held) if _may_start(ch)), None)
        text = self._before + held
        found = first_start(text, at, len(text) if start is None else at + start + HOLD_CHARS, not final)
        return start if found is None or start is not None and found - at >= start else found - at

    def _judge(self, final: bool) -> str | None:
        """What to show of the held text, which begins at a possible start, taking it off; None: wait."""
        held = self._held
        marker = NUMBERED_MARKER.match(held)
        if marker is not None:
            self._judged(marker.group(0), MARKER)
            return ""
        invented = self._invented(final)
        if invented is not _NONE:
            return invented
        split = _SPLIT_TAG.match(held)
        if split is not None:  # a tag's first half, cut by another tag: removing that one would join the halves
            self._judged(split.group(0), "")
            return ""
        tags = [t for t in find_tags(held[:HOLD_CHARS]) if t.start == 0]
        if tags:
            tag = tags[0]
            complete = final or _SELF_CLOSED.search(tag.raw) is not None or len(held) - tag.end >= PAIRED_CHARS
            if not complete:
                return None
            kept = tag.id is not None and tag.id in self.allowed
            self._judged(tag.raw, TAG)
            return tag.raw if kept else ""
        # what starts nothing passes: a character found by ``markers``' patterns alone that none of them matches,
        # or one that could start a tag with no tag or marker begun within NOT_A_START_CHARS
        if (final or not _may_start(held[0])
                or len(held) > NOT_A_START_CHARS and not _marker_prefix(held) and not _UNCLOSED_TAG.match(held)
                or len(held) > HOLD_CHARS):
            self._judged(held[0], held[0])
            return held[0]
        return None

    def _invented(self, final: bool) -> str | None | object:
        """An invented marker or reference list at the start of the held text: "" when it is dropped, the heading
        when it heads no invented list, None to wait, ``_NONE`` when none begins here."""
        at = len(self._before)
        heading = HEADING.match(self._before + self._held, at, partial=not final)
        if heading is not None and heading.end() > at:
            if not final:
                return None  # a reference list is judged when the answer has ended
            view = make_view(self._held)
            text = self._before + view.text
            heading = HEADING.match(text, at)
            if heading is not None:
                listed = heading_list(text, heading)
                stop = (listed.end if listed is not None else heading.end()) - at
                written = self._held[:view.span(0, stop)[1]]
                self._judged(written, view.text[:stop])
                return "" if listed is not None else written
        text = self._before + self._held[:HOLD_CHARS]  # what follows a marker is read as written
        inline = inline_at(text, at, partial=not final)
        if inline is None:
            return _NONE
        if not final and (inline.partial or inline.end() + LOOKAHEAD_CHARS > len(text)):
            return None if len(self._held) <= HOLD_CHARS else _NONE
        self._judged(inline.group(0), inline.group(0))
        return ""


#: An HTML tag begun and not yet closed ('<a href="https://evil.example' so far): held until its ">" (then judged as a
#: tag) or the answer's end (then dropped, ``without_dangling``), never sent half-written. An attacker's mock LLM
#: streamed one that the whole-answer check, reading the answer without it, then passed.
_UNCLOSED_TAG = re.compile(r"</?[A-Za-z][^<>]*$")


#: The start of a tag followed at once by another tag: '<Ci<Cite id="a"/>te id="b"/>' shows "b" cited to a reader who
#: strips the checked tag "a" once (an attacker's LLM answer; the whole-answer check refuses it at the end,
#: ``citation_tags.formed_tags``, but streamed words cannot be taken back). Dropped, so the rest reads as plain text.
_SPLIT_TAG = re.compile(_CITE_NAME_BEGUN + r"\s*(?=<)|<\s*(?=<\s*/?\s*c)", re.IGNORECASE)


def _marker_prefix(held: str) -> bool:
    """The held text could still become a numbered marker (``[1, 2`` so far)."""
    return NUMBERED_MARKER_PREFIX.match(held[:NOT_A_START_CHARS + 1]) is not None
