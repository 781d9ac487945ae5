"""What looks like a citation: one tolerant tokenizer for authors' bodies and models' answers.

Authors write ``<Cite id="..."/>``; models write it loosely, and an attacker (or a
confused model) writes it any way that slips past a strict pattern. A checker that
only sees the spellings it expects lets every other spelling through unchecked, so
this module finds everything a reader could take for a citation and says whether
each one is well-formed. Validation (authors) and the faithfulness check (answers)
both use it; they differ only in which forms they accept.

A span *looks like a citation* when, after undoing disguises (HTML character
references, even double-escaped; ``%3C``-, ``\\u003c``- and ``\\x3c``-style escapes
of ``<>"'/=``; Markdown backslash escapes; zero-width and other invisible
characters; NFKC, so full-width ``＜Ｃｉｔｅ／＞`` and mathematical letters; a few
Cyrillic and Greek look-alike letters; curly quotes and look-alike brackets such
as ``‹〈⟨《«``), it is one of:

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
import unicodedata
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

#: A malformed tag is named by what was written, cut to this many characters.
LABEL_CHARS = 80

_INVISIBLE = frozenset(
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u200e\u200f"
    "\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
    + "".join(map(chr, range(0xE0000, 0xE0080)))  # Unicode tag characters
)
# What a tag is found by: its name's letters, its brackets and punctuation (spaces apart).
_SYNTAX = frozenset("citeaondCITEAOND<>[]{}/=:")
# Outside the BMP, the blocks that can hide a letter or a bracket: mathematical alphanumerics,
# enclosed alphanumerics, tag characters (whole blocks: a short class is a fast one).
_ASTRAL = "\U0001d400-\U0001d7ff\U0001f100-\U0001f1ff\U000e0000-\U000e007f"
# Look-alikes NFKC leaves alone: only the letters of "cite" and "id", brackets, slashes and quotes.
_LOOKALIKE = {
    **dict.fromkeys("\u0441\u0421\u03f2\u03f9", "c"),  # Cyrillic es, Greek lunate sigma
    **dict.fromkeys("\u0456\u0406\u0131\u04cf\u03b9\u0399", "i"),  # Cyrillic/Turkish/Greek i
    **dict.fromkeys("\u0442\u0422\u03c4\u03a4", "t"),
    **dict.fromkeys("\u0435\u0415\u03b5\u0395", "e"),
    **dict.fromkeys("\u0501", "d"),
    **dict.fromkeys("\u2039\u3008\u27e8\u300a\u00ab\u276e\u29fc\u1438\u02c2", "<"),
    **dict.fromkeys("\u203a\u3009\u27e9\u300b\u00bb\u276f\u29fd\u1433\u02c3", ">"),
    **dict.fromkeys("\u3010\u3014\u3016", "["),
    **dict.fromkeys("\u3011\u3015\u3017", "]"),
    **dict.fromkeys("\u2215\u2044\u29f8", "/"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u300c\u300d", '"'),
    **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
}
_ENTITY = re.compile(r"&(?:amp;)*(#[0-9]{1,7};?|#[xX][0-9a-fA-F]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};?)")
_PERCENT = re.compile(r"%(?:25)*(3[cCeEdD]|2[2fF7])")
_CODE_ESCAPE = re.compile(r"\\(?:u00|x)(3[cCeEdD]|2[2fF7])")  # \u003c, \x3c: JSON, JavaScript, Python
_ESCAPED = re.compile(r"\\(?=[<>\[\]{}/\"'=`*_&%])")

_NAME = r"(?:[a-z][\w.-]*:)?(?:cit(?:e|ation)[a-z]*|cit(?![a-z]))"  # an XML prefix too: <x:cite>
_TOKEN = re.compile(
    rf"""<\s*/?\s*{_NAME}(?:[^<>]{{0,300}}>|[^<>\n]{{0,300}})  # <cite ...>, </cite>, or unclosed to the line's end
       |[\[{{]\s*{_NAME}(?=\s*[:=\]}}]|[^\[\]{{}}<>\n]{{0,300}}?\bid\s*[=:])  # [cite: x], [cite id=x], [cite]
        (?:[^\[\]{{}}<>]{{0,300}}[\]}}]|[^\[\]{{}}<>\n]{{0,300}})
       |cite\s+id\s*[=:]\s*[^\s<>]*(?:\s*/?\s*>)?  # cite id="x"/>: the bracket lost
    """,
    re.IGNORECASE | re.VERBOSE,
)
_CLOSING = re.compile(r"<\s*/")
_SELF_CLOSED = re.compile(r"/\s*>$")
_PAIRED_END = re.compile(rf"[^<>]{{0,200}}?<\s*/\s*{_NAME}\s*>", re.IGNORECASE)
_WELL_FORMED = re.compile(
    r"""<\s*cite\s+id\s*=\s*(?P<q>["'])(?P<id>[^"'<>]*)(?P=q)\s*(?:/\s*>|>(?:\s*<\s*/\s*cite\s*>)?)""", re.IGNORECASE
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
        """The tag as written, on one line and shortened: what a message quotes."""
        text = _SPACE.sub(" ", self.raw).strip()
        return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"

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
            add(text[pos:at], pos, at - pos, True)
            piece, length = _undisguise(text, at)
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
    """The characters a disguise is made of: ``&``, ``%``, ``\\`` and every other character that
    undisguises to a letter of a tag's name, its punctuation or a space. The rest (CJK text and
    its full-width commas, for one) cannot change what is found, and is left alone (built once, ~0.1 s)."""
    chars = {ch for ch in set(_INVISIBLE) | set(_LOOKALIKE) if ch <= "\uffff"}
    for code in [*range(0x80, 0x3400), *range(0xA000, 0xAC00), *range(0xF900, 0x10000)]:  # not CJK, not Hangul
        ch = chr(code)
        folded = unicodedata.normalize("NFKC", ch)
        if folded != ch and any(c in _SYNTAX or c.isspace() or c in _LOOKALIKE for c in folded):
            chars.add(ch)
    codes = sorted(map(ord, chars))
    ranges: list[list[int]] = []
    for code in codes:
        if ranges and code == ranges[-1][1] + 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    spans = "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges)
    return re.compile(rf"[&%\\{spans}]|[{_ASTRAL}]")


def _undisguise(text: str, at: int) -> tuple[str, int]:
    """What the disguised character(s) at ``at`` stand for, and how many characters they take."""
    ch = text[at]
    if ch == "&" and (m := _ENTITY.match(text, at)) is not None:
        decoded = html.unescape("&" + m.group(1))
        if not decoded.startswith("&"):
            return "".join(_plain(c) for c in decoded), m.end() - at
    elif ch == "%" and (m := _PERCENT.match(text, at)) is not None:
        return chr(int(m.group(1), 16)), m.end() - at
    elif ch == "\\" and (m := _CODE_ESCAPE.match(text, at)) is not None:
        return chr(int(m.group(1), 16)), m.end() - at
    elif ch == "\\" and _ESCAPED.match(text, at):  # the backslash goes with what it escapes
        piece, length = _undisguise(text, at + 1)
        return piece, length + 1
    return _plain(ch), 1


def _plain(ch: str) -> str:
    if ch in _INVISIBLE:
        return ""
    if ch in _LOOKALIKE:
        return _LOOKALIKE[ch]
    folded = unicodedata.normalize("NFKC", ch) if ord(ch) > 0x7F else ch
    return "".join(_LOOKALIKE.get(c, c) for c in folded)
