"""Answer spans: the pieces of a source's Markdown an extractive answer may quote.

A fact lives in a sentence, a list item or a table row, and a row or an item often
means nothing without what it sits under ("Pregnancy | 600 µg" under "Daily need",
"- 120 in mainland China" under "Call your emergency number:"). So a span keeps its
context (the nearest heading or lead-in line) beside its text, a table row is rendered
with its header (``Adults 19–50 — RDA: 1,000 mg``), and the title line a story's chunk
starts with is never a span (the answer names the title once, itself). An item knows its list,
and a numbered list's item its number as the list renders it, so quoted steps keep their order.

Pure string work, no model: it runs on every extractive answer.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal, NamedTuple

from ...content.text.citation_tags import canonical_tag, find_tags, replace_tags, strip_tags

SpanKind = Literal["sentence", "item", "row"]

#: A list item longer than this (characters of words, by language) is quoted sentence by sentence.
ITEM_MAX_CHARS = {"zh": 120, "en": 320}
#: A line ending in a colon is a lead-in (context for what follows) when it is at most this long.
LEAD_IN_CHARS = 100

_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MD_EMPHASIS = re.compile(r"(\*\*|__|\*|`)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<text>.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(?P<indent>\s*)(?:[-*+•]\s+|(?P<number>\d+)[.)]\s+|(?P<zh>\d{1,2})、\s*)(?P<text>.*)$")
_QUOTE = re.compile(r"^\s*>\s?")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
# A line that is all bold ("**Targets for adults:**") heads what follows, like a heading, when it ends in a
# colon, has no end punctuation or is short ("**安全性。**"); a long bold sentence is a sentence.
_BOLD_LINE = re.compile(r"^\s*(\*\*|__)(?P<text>[^*_]+?)\1\s*(?P<colon>[:：]?)\s*$")
_BOLD_HEADING_CHARS = 40
# A paragraph opening with a short bold phrase that ends itself ("**Omega-3 and LDL.** High-dose …", "**维生素B6与孕吐。**恶心…",
# "**How often:** Every …") labels its first sentence: said before it, not a sentence of its own to quote. One that runs
# on ("**Serum B12** is the usual first test") is the sentence's subject.
_BOLD_LEAD = re.compile(r"^\s*(\*\*|__)(?P<text>[^*_]{1,%d}?[.:：。！？!?])\1\s*(?=\S)|"
                        r"^\s*(\*\*|__)(?P<named>[^*_]{1,%d}?)\3\s*[:：.。]\s*(?=\S)"  # "**两种单位**。尺烛光…"
                        % (_BOLD_HEADING_CHARS, _BOLD_HEADING_CHARS))
_END_PUNCT = ".!?。！？…"
_SPACE = re.compile(r"\s+")
# A sentence ends at 。！？!? (plus closing quotes/brackets), at ；… runs, or at a "." followed by
# whitespace and not preceded by a common abbreviation or a single letter (e.g., Dr., U.S., "Bacillus thuringiensis
# subsp. israelensis", "approx. 5 g", "on ext. 4410"). A word in lower case after it still starts a sentence:
# people type questions so ("my chest hurts right now. what should i do"), and the guard reads them with this.
_ZH_END = re.compile(r"[。！？!?]+[”’」』）)]*|…{1,2}")
_EN_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bSt)(?<!\bNo)(?<!\bFig)"
                     r"(?<!\bsubsp)(?<!\bspp)(?<!\bapprox)(?<!\bcf)(?<!\bet al)(?<!\b[A-Z])(?<!\b[Ee]xt)(?<!\b[Tt]el)(?<!\bincl)"
                     r"\.[”’\")]*(?=\s|$|<)")
#: A sentence opening with one of these says nothing alone ("That is why good bags have a valve", "因此要放凉"):
#: it leans on the sentence before it in its paragraph, which is quoted with it.
_POINTS_BACK = re.compile(
    r"(?:(?:That|This|These|Those|Such|It|They|Therefore|Thus|Hence|Otherwise|Both|Neither)\b|As a result\b|"
    r"For this reason\b|Because of this\b|In that case\b|If so\b|If not\b|Even so\b|The same\b|Likewise\b|Similarly\b"
    # a time or a limit the sentence before set ("After that, the late fee is $10 per hour": a reader's, stop 53)
    r"|(?:After|Before|Beyond|Past|Apart from|Other than|Except for) (?:that|this|then)\b|Until then\b|By then\b|"
    r"At that point\b|Instead\b|Even then\b"
    # a place or a time the sentence before set, and a thing it named ("Outside those hours, pay at the kiosk",
    # "Reserve them 48 hours ahead": a new team's, stop 55)
    r"|(?:Outside|Within|During|Inside|Beyond|Besides|Unlike|Like|Under|Above|Below|Apart from|Other than|Except for) "
    r"(?:those|these|that|this|such)\b"
    r"|[A-Z][a-z]+ (?:them|it)\b(?! (?:is|was|are|were|has|had)\b)"
    r"|这|那(?![里儿])|因此|所以|因而|于是|否则|它|其中|此时|这时|同样|同理|此后|之后|在此之前|除此之外|超出(的)?部分|超过(的)?部分)")
#: What ends a table row's label in its span (``Adults 19–50 — RDA: 1,000 mg``): the row's first cell before it.
ROW_LABEL_END = " — "
_CJK_GAP = re.compile(r"(?<=[\u3000-\u9fff\uff00-\uffef]) (?=[\u3000-\u9fff\uff00-\uffef])")


@dataclass(frozen=True)
class Span:
    """One quotable piece of a source: its text (canonical ``<Cite/>`` tags kept), what it sits under, its place."""

    text: str
    context: str
    kind: SpanKind
    position: int
    words: str = ""  # the text without tags: what is shown and measured
    cited: tuple[str, ...] = ()  # the ids its tags cite, else those that close its paragraph (``_Reader.flush``), else
    # those of the nearest cited item of its list or row of its table (``_cited_by_neighbours``)
    list_no: int = 0  # an item's list (1, 2, … in the text's order; 0: not an item)
    ordinal: int = 0  # an item's number in a numbered list, as the list renders it (0: not numbered)
    leans_on: int = -1  # the position of the sentence before it, when it points back to it ("That is why …")
    labelled: bool = False  # its context is the bold phrase its paragraph opens with (the first sentence's): said before it

    @property
    def label(self) -> str:
        """A row's first cell, what names it (``ROW_LABEL_END``); any other span's whole words."""
        return self.words.split(ROW_LABEL_END, 1)[0]

    @property
    def cells(self) -> list[str]:
        """A row's other cells, each without its header ("height 100–140 cm" of "Who: height 100–140 cm"); none for
        any other span."""
        if self.kind != "row" or ROW_LABEL_END not in self.words:
            return []
        return [pair.split(": ", 1)[-1] for pair in self.words.split(ROW_LABEL_END, 1)[1].split("; ")]

    @classmethod
    def of(cls, text: str, context: str, kind: SpanKind, position: int, list_no: int = 0, ordinal: int = 0,
           leans_on: int = -1) -> "Span":
        return cls(text, context, kind, position, strip_tags(text).strip(), _cited(text), list_no, ordinal, leans_on)



def _cited(text: str) -> tuple[str, ...]:
    """The ids ``text``'s tags cite, once each, in order."""
    return tuple(dict.fromkeys(t.id for t in find_tags(text) if t.id))


def plain_title(title: str | None) -> str:
    """A title as an answer names it: markup tags dropped, whitespace runs collapsed."""
    return _SPACE.sub(" ", _TAG.sub("", title or "")).strip()

def _clean(text: str) -> str:
    """Well-formed ``<Cite/>`` tags in their canonical spelling, every other tag gone, links as their words."""
    text = replace_tags(text or "", lambda t: canonical_tag(t.id) if t.id else "")
    text = _TAG.sub(lambda m: m.group(0) if _is_cite(m.group(0)) else "", text)
    return _MD_LINK.sub(r"\1", text)


def _is_cite(tag: str) -> bool:
    found = find_tags(tag)
    return len(found) == 1 and found[0].canonical and found[0].raw == tag


def _flat(text: str) -> str:
    text = _SPACE.sub(" ", _MD_EMPHASIS.sub("", text)).strip()
    return _CJK_GAP.sub("", text)


def _same(a: str, b: str) -> bool:
    return bool(a) and _flat(a).casefold().rstrip(".:：。") == _flat(b).casefold().rstrip(".:：。")


def _cells(line: str) -> list[str]:
    line = line.strip()
    line = line.removeprefix("|")
    line = line.removesuffix("|")
    return [_flat(cell) for cell in line.split("|")]


def _rows(lines: list[str]) -> list[str]:
    """A Markdown table's data rows, each as ``label — header: value; …`` (a row without a header: its cells)."""
    rows = [_cells(line) for line in lines if not _TABLE_RULE.match(line)]
    has_header = len(lines) > 1 and bool(_TABLE_RULE.match(lines[1]))
    header, body = (rows[0], rows[1:]) if has_header else ([], rows)
    out = []
    for cells in body:
        if not any(strip_tags(c).strip() for c in cells):
            continue
        label, rest = cells[0], cells[1:]
        pairs = [f"{header[i + 1]}: {cell}" if i + 1 < len(header) and header[i + 1] else cell
                 for i, cell in enumerate(rest) if strip_tags(cell).strip()]
        out.append(ROW_LABEL_END.join(x for x in (label, "; ".join(pairs)) if x))
    return out


def _bold_heading(line: str) -> re.Match[str] | None:
    m = _BOLD_LINE.match(line)
    if m is None:
        return None
    words = m.group("text").strip()
    heading = bool(m.group("colon")) or words[-1:] in ":：" or words[-1:] not in _END_PUNCT or len(words) <= _BOLD_HEADING_CHARS
    return m if heading else None


def _lang_of(text: str) -> str:
    return "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"


def _has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in strip_tags(text))


def _leading_tags(piece: str) -> int:
    """Where the citation tags at the very start of ``piece`` end (0 when it starts with words)."""
    end = 0
    for tag in find_tags(piece):
        if piece[end:tag.start].strip():
            break
        end = tag.end
    return end


def _backed(sentences: list[str]) -> list[str]:
    """Each sentence with the tags that back it: its own, else those of the next sentence of its paragraph that
    cites ("S1. S2.<Cite a/>": a is the paragraph's source, S1's too), else, after the paragraph's last tag, those of
    the last sentence before it that cites ("S1.<Cite a/> S2.": a new team's timetable quoted S2 with no source at
    all). Only a paragraph that cites nowhere leaves its sentences without tags (``extractive`` decides those)."""
    own = ["".join(canonical_tag(t.id) for t in find_tags(sentence) if t.id) for sentence in sentences]
    cited = [i for i, tags in enumerate(own) if tags]
    if not cited:
        return list(sentences)
    backing = [own[cited[min(bisect_right(cited, i), len(cited) - 1)]] for i in range(len(sentences))]
    return [sentence if own[i] else sentence + backing[i] for i, sentence in enumerate(sentences)]


def split_sentences(text: str) -> list[str]:
    """Sentences of Chinese, English or mixed prose, end punctuation kept.

    A ``<Cite/>`` written just after a full stop belongs to the sentence before it.
    """
    bounds = sorted({m.end() for m in _ZH_END.finditer(text)} | {m.end() for m in _EN_END.finditer(text)} | {len(text)})
    sentences: list[str] = []
    start = 0
    for end in bounds:
        piece = text[start:end].strip()
        start = end
        lead = _leading_tags(piece)
        if lead and sentences:
            sentences[-1] += piece[:lead].strip()
            piece = piece[lead:].strip()
        if not piece:
            continue
        if _has_words(piece) or not sentences:
            sentences.append(piece)
        else:
            sentences[-1] += piece  # stray punctuation or tags
    return [s for s in sentences if _has_words(s)]


class _Introduction(NamedTuple):
    """What a paragraph says of the list or table after it: the ids its last sentence cites (its own or backed), and
    whether that sentence is a lead-in ("If you lose your card <Cite a/>:")."""

    cited: tuple[str, ...] = ()
    leads: bool = False


class _Reader:
    """Walks the lines once, collecting blocks into spans."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.spans: list[Span] = []
        self.heading = ""
        self.lead = ""  # a "…:" line: context for the items and rows right after it
        self.block: list[str] = []
        self.block_kind: SpanKind = "sentence"
        self.lists: dict[int, tuple[int, bool, int]] = {}  # open lists by indent: (list_no, numbered, next number)
        self.list_count = 0
        self.item = (0, 0)  # the current item's list_no and ordinal
        self.bold_lead = ""  # the bold phrase the current paragraph opens with (``_BOLD_LEAD``): its sentences' context
        self.intro = _Introduction()  # what the paragraph just read says of what follows it
        self.backing: dict[int, _Introduction] = {}  # an item's or a row's position → its introducing paragraph's
        self.list_intro: dict[int, _Introduction] = {}  # a list's number → the paragraph it follows

    def add(self, text: str, kind: SpanKind, context: str, item: tuple[int, int] = (0, 0), after: Span | None = None) -> None:
        """One span; ``after``: the sentence before it in its paragraph (it may point back to it)."""
        if any(ch.isalnum() for ch in strip_tags(text)):
            leans = after is not None and bool(_POINTS_BACK.match(strip_tags(text).lstrip()))
            self.spans.append(Span.of(text, context, kind, len(self.spans), *item,
                                      leans_on=after.position if leans and after is not None else -1))

    def add_sentences(self, sentences: list[str], kind: SpanKind, context: str, item: tuple[int, int] = (0, 0)) -> None:
        """A paragraph's (or a long item's) sentences, each knowing the one before it."""
        before = None
        for sentence in sentences:
            count = len(self.spans)
            self.add(sentence, kind, context, item, before)
            before = self.spans[-1] if len(self.spans) > count else before

    def start_item(self, indent: int, number: str | None) -> None:
        """An item line: it continues the open list at its indent (same kind, bulleted or numbered) or opens one;
        a numbered list counts from its first item's number, as Markdown renders it ("1. 1. 1." reads 1, 2, 3)."""
        self.lists = {i: v for i, v in self.lists.items() if i <= indent}  # the lists nested deeper have ended
        numbered = number is not None
        found = self.lists.get(indent)
        if found is None or found[1] != numbered:
            self.list_count += 1
            self.list_intro[self.list_count] = self.intro
            found = (self.list_count, numbered, int(number) if numbered and len(number) < 10 else 1)
        list_no, _, next_number = found
        self.lists[indent] = (list_no, numbered, next_number + 1)
        self.item = (list_no, next_number if numbered else 0)

    def flush(self) -> None:
        if not self.block:
            return
        text = _flat(" ".join(self.block))
        kind, self.block = self.block_kind, []
        if kind == "item":
            count = len(self.spans)
            if len(strip_tags(text)) <= ITEM_MAX_CHARS[_lang_of(text)]:
                self.add(text, "item", self.lead or self.heading, self.item)
            else:
                self.add_sentences(_backed(split_sentences(text)), "item", self.lead or self.heading, self.item)
            for span in self.spans[count:]:
                self.backing[span.position] = self.list_intro.get(self.item[0], _Introduction())
            return
        sentences = _backed(split_sentences(text))
        self.lead = ""
        last = sentences[-1] if sentences else ""
        self.intro = _Introduction(_cited(last), strip_tags(last).rstrip().endswith((":", "：")))
        if sentences and sentences[-1].rstrip().endswith((":", "：")) and len(strip_tags(sentences[-1])) <= LEAD_IN_CHARS:
            self.lead = strip_tags(sentences.pop()).strip().rstrip(":：")
        context, run, label, first = self.heading, [], self.bold_lead, len(self.spans)
        self.bold_lead = ""
        for sentence in sentences:
            if strip_tags(sentence).rstrip().endswith(("?", "？")):
                self.add_sentences(run, "sentence", context)
                context, run = strip_tags(sentence).strip(), []  # a question the text asks itself heads its answer
                continue
            run.append(sentence)
        self.add_sentences(run, "sentence", context)
        if label and len(self.spans) > first:  # its first sentence, as it was written: "**How often:** Every 150 km"
            self.spans[first] = replace(self.spans[first], context=label, labelled=True)

    def set_heading(self, text: str) -> None:
        self.flush()
        self.lists = {}
        text = _flat(text).rstrip(":：。.")  # "**异响和油污。**" heads what follows: no "异响和油污。：" when shown
        self.heading, self.lead, self.intro = ("" if _same(text, self.title) else text), "", _Introduction()

    def read(self, text: str) -> list[Span]:
        lines = _clean(text).splitlines()
        if lines and _same(lines[0], self.title):
            lines = lines[1:]  # a story's chunk starts with its title: the answer names it once, itself
        i = 0
        while i < len(lines):
            line = _QUOTE.sub("", lines[i])
            heading, bold, item = _HEADING.match(line), _bold_heading(line), _ITEM.match(line)
            if not line.strip():
                self.flush()
            elif heading or bold:
                self.set_heading((heading or bold).group("text"))  # type: ignore[union-attr]
            elif line.lstrip().startswith("|"):
                self.flush()
                self.lists = {}
                table = []
                while i < len(lines) and lines[i].lstrip().startswith("|"):
                    table.append(lines[i])
                    i += 1
                for row in _rows(table):
                    self.add(row, "row", self.lead or self.heading)
                    self.backing[self.spans[-1].position] = self.intro
                continue
            elif item:
                self.flush()
                self.start_item(len(item.group("indent").expandtabs(4)), item.group("number") or item.group("zh"))
                self.block, self.block_kind = [item.group("text")], "item"
            else:
                if not self.block:
                    self.block_kind = "sentence"
                    if not line[:1].isspace():
                        self.lists = {}  # a paragraph at the margin ends the lists above it
                    lead = _BOLD_LEAD.match(line)
                    if lead is not None:
                        self.bold_lead = _flat(lead.group("text") or lead.group("named")).rstrip(".:：。!?！？")
                        line = line[lead.end():]
                self.block.append(line.strip())
            i += 1
        self.flush()
        return _cited_by_neighbours(self.spans, self.backing)


def _cited_by_neighbours(found: list[Span], backing: Mapping[int, _Introduction]) -> list[Span]:
    """An item or a row its own text leaves uncited takes the tags of the nearest cited item of its list, or row of its
    table (the one before it first): a list or a table is often cited once. An item "加热棒功率：每升约 1 瓦" whose list's
    first item cites the heater guide was cited with every id of its unit, and the answer showed the white-spot paper
    as its source. One whose list or table cites nowhere takes the tags that close the paragraph just before it, which
    introduced it ("Prices include tax <Cite a/>." then the price table; "按以下步骤操作 <Cite a/>：" then the steps): a
    new team's stuck-cable steps were shown with no source but the refund policy a later sentence cites. A sentence
    borrows from no other paragraph (``extractive._cite_ids``). A lead-in that cites ("If you lose your card <Cite
    rules/>:") backs its steps before any sibling does: a new team's lost-card steps were shown citing the price list
    its fourth step cites for the fee."""
    def group(span: Span) -> tuple[object, ...] | None:
        if span.kind == "item":
            return ("item", span.list_no)
        return ("row", span.context) if span.kind == "row" else None

    out = list(found)
    for i, span in enumerate(found):
        key = group(span)
        if span.cited or key is None:
            continue
        intro = backing.get(span.position, _Introduction())
        near = sorted((j for j, other in enumerate(found) if other.cited and group(other) == key),
                      key=lambda j: (abs(j - i), j > i))
        if near and not (intro.leads and intro.cited):
            out[i] = replace(span, cited=found[near[0]].cited)
        elif intro.cited:
            out[i] = replace(span, cited=intro.cited)
    return out


def spans(text: str, title: str = "") -> list[Span]:
    """The sentences, list items and table rows of a source's text, in order, each with its context."""
    return _Reader(title).read(text)
