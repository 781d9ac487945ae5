"""The faithfulness check: an answer may only cite what its sources cite.

The LLM is told to cite with ``<Cite id="..."/>`` using ids from the sources it was
given; the whitelist is the union of those sources' citation ids. An id outside it
is invented or borrowed and is reported, never shown as a reference. A long answer
with no citation at all is flagged too: it is most likely the model's own knowledge.

What counts as a citation is decided by one tokenizer (``unitrag.content.text.citation_tags``,
shared with content validation): anything that looks like a citation, however it is
spelled, escaped or disguised, is checked. Models write the tag loosely, so case,
whitespace, quote style and ``/>``, ``>`` or ``></Cite>`` endings are accepted; any other
spelling (another attribute, no quotes, HTML-escaped, full-width, ``[cite ...]``...) is
invalid even when the id inside is allowed, and is reported by the tag as written,
since the id alone would read as allowed.

A numbered marker the model writes itself (``[1]``, ``[^2]``, ``［3］``, ``【4】``, ``[1, 2]``) is invalid
too: ``number_citations`` turns checked tags into exactly such markers, so one written by the model
would read as a checked reference to whatever entry carries its number. So is every other way of
numbering a reference (``µg²``, ``<sup>2</sup>``, ``^2``, ``②``, ``(2).``, ``(ref. 2)``, ``（来源2）``) and
a reference list of its own ("References: 1. Smith 2015…"): ``markers`` says which, and which look-alikes
(``m²``, ``10²``, ``(1) eat more fiber``, ``(2015)``) are not. So is a reference told in words, which no id
checks: a link, a DOI, "Smith et al.", "(WHO, 2012)" (``markers.TOLD_REFERENCE``).

So is a tag that removing the others would form (``<Ci<Cite id="a"/>te id="b"/>``: a reader stripping the checked
tag once gets ``<Cite id="b"/>``), whatever id it names.

A checked marker wrapped in a link (``[<Cite id="x"/>](https://…)``, ``<a href="…"><Cite id="x"/></a>``) is numbered
without the link: the reference [1] must open what the registry says, never a URL the answer brought.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ...content.text.citation_tags import CiteTag, find_tags, formed_tags, replace_tags, strip_tags
from ...content.text.scripts import HAN
from ..types import FaithfulnessReport, ResolvedCitation
from .markers import NUMBERED_MARKER, invented_markers, told_references, without_invented
from ...errors import InvalidArgument
from ..arguments import describe

#: An answer is long (and must cite) above this many English words...
LONG_ANSWER_WORDS = 60
#: ...or this many CJK characters; a mixed answer is long when the two shares add up past 1.
LONG_ANSWER_CJK_CHARS = 120

_WORD = re.compile(r"[A-Za-z0-9\u00c0-\u024f]+(?:['’\-][A-Za-z0-9\u00c0-\u024f]+)*")


def _unique(ids: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def cited_ids(answer: str) -> list[str]:
    """The ids of the answer's well-formed citation tags, each once, in order of first appearance."""
    return _unique(t.id for t in find_tags(answer) if t.id is not None)


def is_long(answer: str) -> bool:
    """True when an answer says too much to go uncited (tags do not count towards its length)."""
    text = strip_tags(answer)
    cjk = len(HAN.findall(text))
    words = len(_WORD.findall(HAN.sub(" ", text)))
    return cjk / LONG_ANSWER_CJK_CHARS + words / LONG_ANSWER_WORDS > 1


def _allowed(tag: CiteTag, allowed: set[str]) -> bool:
    return tag.id is not None and tag.id in allowed


def check_citations(answer: str, whitelist: Iterable[str], *, told: bool = True) -> FaithfulnessReport:
    """Which citations are allowed, which are not, and the share of allowed citation tags.

    ``invalid_ids`` names a well-formed tag by its id and a malformed one by the tag as
    written. With no citation at all the score is 1.0 for a short answer (nothing was
    claimed from a source) and 0.0 for a long one, which is also flagged ``uncited_long_answer``.
    ``told``: references told in words count as invented (an LLM's answer); the extractive answer, the units'
    own words, passes ``False``.
    """
    _check_text(answer, "answer")
    if isinstance(whitelist, (str, bytes)) or not isinstance(whitelist, Iterable):
        # a string is an iterable of its characters: "abc" would allow <Cite id="a"/>
        raise InvalidArgument(f"whitelist: expected a collection of citation ids, got {describe(whitelist)}")
    allowed = {cid for cid in whitelist if isinstance(cid, str)}
    tags, words = find_tags(answer), strip_tags(answer)
    markers = ([m.group(0) for m in NUMBERED_MARKER.finditer(words)] + invented_markers(answer)
               + (told_references(words) if told else []) + [t.written for t in formed_tags(answer)])
    if not tags and not markers:
        long = is_long(answer)
        return FaithfulnessReport(valid_ids=[], invalid_ids=[], score=0.0 if long else 1.0, uncited_long_answer=long)
    valid = [t.label for t in tags if _allowed(t, allowed)]
    return FaithfulnessReport(
        valid_ids=_unique(valid),
        invalid_ids=_unique([*(t.label for t in tags if not _allowed(t, allowed)), *markers]),
        score=len(valid) / (len(tags) + len(markers)),
        uncited_long_answer=False,
    )


def strip_citations(answer: str, ids: Iterable[str] | None = None) -> str:
    """The answer without the tags named in ``ids`` (as ``check_citations`` names them; all tags
    when None), and without the space before them."""
    if ids is None:
        return strip_tags(answer)
    drop = set(ids)
    return strip_tags(answer, lambda tag: tag.label in drop) if drop else answer


@dataclass(frozen=True)
class Reference:
    """One numbered entry of an answer's reference list: ``[number]`` in the text points here."""

    number: int
    citation: ResolvedCitation

    @property
    def link(self) -> str | None:
        """The URL, else the DOI as a link."""
        c = self.citation
        return c.url or (f"https://doi.org/{c.doi}" if c.doi else None)

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, **self.citation.to_dict(), "link": self.link}


def number_citations(answer: str, citations: Sequence[ResolvedCitation]) -> tuple[str, list[Reference]]:
    """The answer for reading: each citation tag becomes ``[n]``, numbered in order of first
    appearance, and the numbered reference list it points into.

    Tags whose id is not among ``citations`` (invalid, malformed or unresolved) are removed,
    never numbered, and so are numbered markers and reference lists the text wrote itself (they
    would point at whichever reference gets their number); a citation the text does not mark still gets a
    number, after the others.
    """
    _check_text(answer, "answer")
    if isinstance(citations, (str, bytes)) or not all(isinstance(c, ResolvedCitation) for c in citations):
        raise InvalidArgument(f"citations: expected ResolvedCitation objects (Answer.citations), got {describe(citations)}")
    by_id = {c.id: c for c in citations}
    numbers: dict[str, int] = {}

    def marker(tag: CiteTag) -> str:
        if tag.id is None or tag.id not in by_id:
            return ""
        return f"[{numbers.setdefault(tag.id, len(numbers) + 1)}]"

    text = _unlinked(replace_tags(_without_markers(answer), marker))
    for cid in by_id:
        numbers.setdefault(cid, len(numbers) + 1)
    return text, [Reference(n, by_id[cid]) for cid, n in numbers.items()]


#: A numbered marker inside a Markdown link or an HTML anchor: ``[[1]](https://…)``, ``<a href="…">[1]</a>``.
_LINKED_MARKER = re.compile(r"\[[ \t]*(\[\d{1,4}\])[ \t]*\]\((?:[^()\n]|\([^()\n]*\))*\)|<a\b[^<>]*>[ \t]*(\[\d{1,4}\])[ \t]*</a\s*>", re.IGNORECASE)


def _unlinked(text: str) -> str:
    return _LINKED_MARKER.sub(lambda m: m.group(1) or m.group(2), text)


def _without_markers(text: str) -> str:
    """``text`` without the numbered markers and reference lists it wrote itself, and the spaces before them."""
    return re.sub(r"[ \t]*" + NUMBERED_MARKER.pattern, "", without_invented(text))


def _check_text(text: object, argument: str) -> None:
    if not isinstance(text, str):
        raise InvalidArgument(f"{argument}: expected a string, got {describe(text)}")
