"""What looks like a citation: one tolerant tokenizer for authors' bodies and models' answers.

Authors write ``<Cite id="..."/>``; models write it loosely, and an attacker (or a
confused model) writes it any way that slips past a strict pattern. A checker that
only sees the spellings it expects lets every other spelling through unchecked, so
this module finds everything a reader could take for a citation and says whether
each one is well-formed. Validation (authors) and the faithfulness check (answers)
both use it; they differ only in which forms they accept.

A span *looks like a citation* when, after undoing disguises (HTML character
references, even double-escaped; ``%3C``-, ``\\u003c``- and ``\\x3c``-style escapes
of ``<>"'/=``; Markdown backslash escapes; and every character read as what a reader
takes it for, by ``unicode_fold``: invisible ones dropped, full-width, mathematical and
accented letters folded, look-alikes such as ``ᴄɪᴛᴇ``, Cyrillic ``с`` or ``‹《«`` read as
the letters and brackets they imitate; an ``l``, ``1`` or ``|`` reads as the ``I`` of
``cIte``), it is one of:

* an angle-bracket tag named ``cit``, ``cite…`` or ``citation…`` (an XML prefix
  allowed), any case, opening, closing or self-closing, with any attributes,
  closed by ``>`` or else by the end of its line, plus the text and ``</cite>``
  after an opening tag (``<cite>x</cite>``);
* a square- or curly-bracketed ``[cite id=x]``, ``[cite: x]``, ``{cite page=1 id=x}``, ``[cite]``
  (``cite`` followed by ``:``, ``=`` or the closing bracket, or an ``id=`` inside: a Markdown
  link such as ``[Citation guidelines](...)`` is not one);
* ``cite id=`` or ``cite id:`` with no bracket at all (the bracket lost).

A citation is *well-formed* when the span as written (no disguise undone) is
``<Cite id="ID"/>`` with any case, whitespace (newlines too), single or double
quotes, and ``/>``, ``>`` or ``></Cite>`` as the end; its id is ``ID`` trimmed. It is
*canonical*, the only form authors may write, when it is exactly
``<Cite id="ID"/>`` (spaces or tabs only, double quotes, an id without spaces).
Everything else that looks like a citation is malformed and has no id.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from .excerpt import excerpt
from .unicode_fold import fold_table, is_invisible, read_as

#: A malformed tag is named by what was written, cut to this many characters.
LABEL_CHARS = 80


def shortened(text: str) -> str:
    """``text`` as a message quotes it: at most ``LABEL_CHARS`` characters, an ellipsis where it was cut."""
    return excerpt(text, LABEL_CHARS)


_ENTITY = re.compile(r"&(?:amp;)*(#[0-9]{1,7};?|#[xX][0-9a-fA-F]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};?)")
_PERCENT = re.compile(r"%(?:25)*(3[cCeEdD]|2[2fF7])")
_CODE_ESCAPE = re.compile(r"\\(?:u00|x)(3[cCeEdD]|2[2fF7])")  # \u003c, \x3c: JSON, JavaScript, Python
_ESCAPED = re.compile(r"\\(?=[<>\[\]{}/\"'=`*_&%])")

# ASCII look-alikes (TR39) of the name's letters, which the fold leaves as written: l, 1 and | for I, 0 for O.
_I, _O = "[il1|]", "[o0]"
_NAME = rf"(?:[a-z][\w.-]*:)?(?:c{_I}t(?:e|at{_I}{_O}n)[a-z]*|c{_I}t(?![a-z]))"  # an XML prefix too: <x:cite>
_TOKEN = re.compile(
    rf"""<\s*/?\s*{_NAME}(?:[^<>]{{0,300}}>|[^<>\n]{{0,300}})  # <cite ...>, </cite>, or unclosed to the line's end
       |[\[{{]\s*{_NAME}(?=\s*[:=\]}}]|[^\[\]{{}}<>\n]{{0,300}}?\bid\s*[=:])  # [cite: x], [cite id=x], [cite]
        (?:[^\[\]{{}}<>]{{0,300}}[\]}}]|[^\[\]{{}}<>\n]{{0,300}})
       |c{_I}te\s+id\s*[=:]\s*[^\s<>]*(?:\s*/?\s*>)?  # cite id="x"/>: the bracket lost
    """,
    re.IGNORECASE | re.VERBOSE,
)
_CLOSING = re.compile(r"<\s*/")
_SELF_CLOSED = re.compile(r"/\s*>$")
_PAIRED_END = re.compile(rf"[^<>]{{0,200}}?<\s*/\s*{_NAME}\s*>", re.IGNORECASE)
# Any case of the ASCII letters only: IGNORECASE alone also takes the dotless "ı" (and Kelvin's K) for them.
_CITE, _ID = "[cC][iI][tT][eE]", "[iI][dD]"
_WELL_FORMED = re.compile(
    rf"""<\s*{_CITE}\s+{_ID}\s*=\s*(?P<q>["'])(?P<id>[^"'<>]*)(?P=q)\s*(?:/\s*>|>(?:\s*<\s*/\s*{_CITE}\s*>)?)"""
)
_CANONICAL = re.compile(r'<Cite[ \t]+id="[^"\'<>\s]*"[ \t]*/>')
_SPACE = re.compile(r"\s+")
# A removed tag takes the space before it along when what follows could not start a word.
_CLOSES = frozenset(".,;:!?)]}\"'»」』”’。，；：！？、）》】…")


@dataclass(frozen=True)
class CiteTag:
    """One span that looks like a citation, with its place in the text as written."""

    start: int
    end: int
    raw: str
    id: str | None  # the id of a well-formed tag, trimmed; None when malformed
    canonical: bool  # exactly <Cite id="..."/>: the only form authors may write

    @property
    def written(self) -> str:
        """The tag as written, on one line and shortened, its invisible characters named
        (``<C[U+FE0F]ite``): what a message quotes."""
        return shortened("".join(f"[U+{ord(c):04X}]" if is_invisible(c) else c for c in _SPACE.sub(" ", self.raw).strip()))

    @property
    def label(self) -> str:
        """How a report names it: the id when well-formed, else the tag as written."""
        return self.id if self.id is not None else self.written


def canonical_tag(cid: str) -> str:
    """The one spelling authors write and the extractive answer emits."""
    return f'<Cite id="{cid}"/>'


def find_tags(text: str) -> list[CiteTag]:
    """Every span of ``text`` that looks like a citation, in order, never overlapping."""
    view = _Normalized(text)
    tags: list[CiteTag] = []
    pos = 0
    while (m := _TOKEN.search(view.text, pos)) is not None:
        end = m.end()
        token = m.group(0)
        opening = token.startswith("<") and not _CLOSING.match(token)
        if opening and token.endswith(">") and not _SELF_CLOSED.search(token):  # <cite ...>x</cite> is one tag
            paired = _PAIRED_END.match(view.text, end)
            if paired is not None:
                end = paired.end()
        start, stop = view.original(m.start(), end)
        raw = text[start:stop]
        well = _WELL_FORMED.fullmatch(raw)
        tags.append(CiteTag(start, stop, raw, well.group("id").strip() if well else None,
                            _CANONICAL.fullmatch(raw) is not None))
        pos = max(end, m.start() + 1)
    return tags


def strip_tags(text: str, drop: Callable[[CiteTag], bool] | None = None) -> str:
    """``text`` without the tags ``drop`` picks (all when None), and without the space before
    each unless the tag sat between two words. Repeated until nothing is left to drop, so
    removing tags cannot splice the pieces around them into a new one."""
    for _ in range(len(text) + 1):
        tags = find_tags(text)
        chosen = {t.start for t in tags if drop is None or drop(t)}
        if not chosen:
            break
        text = _replace(text, tags, lambda t: "" if t.start in chosen else None)
    return text


def formed_tags(text: str) -> list[CiteTag]:
    """The tags that removing ``text``'s tags would splice together from the pieces around them, as they would then be
    written: ``<Ci<Cite id="a"/>te id="b"/>`` cites "a" to a check that reads it once, and "b" to a reader who strips
    checked tags (an attacker's LLM answer passed the check so). Empty for any honest text."""
    formed: list[CiteTag] = []
    for _ in range(len(text) + 1):
        text = _replace(text, find_tags(text), lambda t: "")
        found = find_tags(text)
        if not found:
            break
        formed.extend(found)
    return formed


def replace_tags(text: str, replacement: Callable[[CiteTag], str | None]) -> str:
    """``text`` with each tag replaced by ``replacement(tag)``: None keeps it as written, "" removes it.

    A replaced or removed tag takes the whitespace before it along ("fact <Cite/>." → "fact."),
    except that a removed tag between two words leaves the space that separates them.
    """
    return _replace(text, find_tags(text), replacement)


def _replace(text: str, tags: list[CiteTag], replacement: Callable[[CiteTag], str | None]) -> str:
    pieces: list[str] = []
    last = 0
    for tag in tags:
        pieces.append(text[last:tag.start])
        last = tag.end
        new = replacement(tag)
        if new is None:
            pieces.append(tag.raw)
            continue
        following = text[tag.end:tag.end + 1]
        joins_words = not new and following and not following.isspace() and following not in _CLOSES
        if not joins_words:
            _rstrip(pieces)
        pieces.append(new)
    pieces.append(text[last:])
    return "".join(pieces)


def _rstrip(pieces: list[str]) -> None:
    while pieces and not pieces[-1].strip():
        pieces.pop()
    if pieces:
        pieces[-1] = pieces[-1].rstrip()


def line_of(text: str, offset: int) -> int:
    """The 0-based line of ``offset`` in ``text``."""
    return text.count("\n", 0, offset)


class _Normalized:
    """``text`` with its disguises undone, and the way back to offsets in the original."""

    def __init__(self, text: str) -> None:
        self.text = text
        # Segments of the normalized text: (start there, start in the original, original length, copied as is).
        self._starts: list[int] = [0]
        self._segments: list[tuple[int, int, bool]] = [(0, len(text), True)]
        special = _special()
        if special.search(text) is None:
            return
        if _shifting().search(text) is None:  # each disguise here is one character read as one other: offsets hold
            table = fold_table()
            self.text = special.sub(lambda m: table.get(m.group(), m.group()), text)
            return
        out: list[str] = []
        self._starts, self._segments = [], []
        size = 0
        pos = 0

        def add(piece: str, at: int, length: int, copied: bool) -> None:
            nonlocal size
            if piece:
                self._starts.append(size)
                self._segments.append((at, length, copied))
                out.append(piece)
                size += len(piece)

        for m in special.finditer(text):
            at = m.start()
            if at < pos:
                continue
            piece, length = _undisguise(text, at)
            if piece == text[at:at + length]:
                continue  # reads as written (a lone "&", a character outside the astral ones that fold)
            add(text[pos:at], pos, at - pos, True)
            add(piece, at, length, False)
            pos = at + length
        add(text[pos:], pos, len(text) - pos, True)
        self.text = "".join(out)

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the normalized span ``[start, end)``."""
        return self._offset(start, False), self._offset(end - 1, True)

    def _offset(self, i: int, after: bool) -> int:
        seg = bisect_right(self._starts, i) - 1
        at, length, copied = self._segments[seg]
        if copied:
            return at + (i - self._starts[seg]) + (1 if after else 0)
        return at + length if after else at


@cache
def _special() -> re.Pattern[str]:
    """What a disguise is made of: ``&``, ``%``, ``\\`` and every character that does not read as
    itself (``unicode_fold``). The rest (CJK text and its full-width commas, for one) cannot change
    what is found, and is left alone."""
    return _disguise_pattern(fold_table())


@cache
def _shifting() -> re.Pattern[str]:
    """What a disguise is made of, less the characters that read as exactly one other (Cyrillic
    letters, curly quotes): where there are none, the text is read in place, offsets unchanged."""
    return _disguise_pattern(ch for ch, read in fold_table().items() if len(read) != 1)


def _disguise_pattern(chars: Iterable[str]) -> re.Pattern[str]:
    """``&``, ``%``, ``\\``, ``chars`` and anything outside the BMP (a class of thousands of astral
    ranges is tested one by one on every character: the caller sorts those out)."""
    ranges: list[list[int]] = []
    for code in sorted(ord(ch) for ch in chars if ch <= "\uffff"):
        if ranges and code == ranges[-1][1] + 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    spans = "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges)
    return re.compile(rf"[&%\\{spans}\U00010000-\U0010ffff]")


def _undisguise(text: str, at: int) -> tuple[str, int]:
    """What the disguised character(s) at ``at`` stand for, and how many characters they take."""
    ch = text[at]
    if ch == "&" and (m := _ENTITY.match(text, at)) is not None:
        decoded = html.unescape("&" + m.group(1))
        if not decoded.startswith("&"):
            return "".join(read_as(c) for c in decoded), m.end() - at
    elif ch == "%" and (m := _PERCENT.match(text, at)) is not None:
        return chr(int(m.group(1), 16)), m.end() - at
    elif ch == "\\" and (m := _CODE_ESCAPE.match(text, at)) is not None:
        return chr(int(m.group(1), 16)), m.end() - at
    elif ch == "\\" and _ESCAPED.match(text, at):  # the backslash goes with what it escapes
        piece, length = _undisguise(text, at + 1)
        return piece, length + 1
    return read_as(ch), 1
