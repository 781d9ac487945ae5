"""Reference markers and reference lists the model invented, in whatever form a reader follows one.

``number_citations`` turns checked ``<Cite id="..."/>`` tags into ``[1]``, ``[2]``; any other number
the model attaches to a statement as a reference reads as checked too. Besides bracketed markers
(``[2]``, ``［２］``, ``[^2]``: ``citations.NUMBERED_MARKER``), these are invented:

* superscripts: ``µg²``, ``⁽²⁾``, ``<sup>2</sup>`` (attributes or not), ``&sup2;``, ``^2``, a dagger ``†``, right after a citation, a marker, a
  closing bracket, punctuation, a space, a Chinese character or a word; not a power or a charge:
  ``m²``, ``cm³``, ``kg/m²``, ``x^2``, ``10²``, ``10⁻³``, ``Ca²⁺`` (after a digit, one letter or a
  unit of length; ``⁻``/``⁺`` in it), nor subscripts (``CO₂``);
* a circled number (``②``) or a bare parenthesised one (``(2)``, ``（2）``) ending a sentence,
  ``…µg (2).``; not one that opens a list item (``(1) eat more fiber (2) drink water``, ``① 多吃蔬菜``),
  one that follows "and", "or", "step", "和", "或"… (``choose (1) or (2).``), nor a year (``(2015)``);
* a named Markdown footnote, ``[^note]``;
* a word and a number: ``(ref. 2)``, ``see reference 3``, ``(Source 2)``, ``footnote 4``,
  ``（来源2）``, ``（参考文献3）``, ``文献2``, ``资料2``; not a quantity (``sources 2–3 times a week``,
  ``参考2型糖尿病…``); "Source 2" outside brackets only where it ends a clause ("as in Source 2."),
  for a text may name its own parts so ("Source 1 is about iodine");
* a reference list: a line that is a heading ("References", "Bibliography", "Works cited",
  "参考文献", "出处"…, Markdown ``#`` or ``**`` allowed, a colon optional) followed by entries
  that say anything beyond ``<Cite id="..."/>`` tags, or, under a heading that may head other
  lists too ("Sources", "Reference", "Further reading", "来源", "资料来源", "参考"…), entries that
  read as references (a year, "et al.", a DOI or URL, a journal, guideline or institution, 《书名》):
  "Sources:" over a list of foods and "Reference: 2–10 nmol/L" are no reference lists.

All of this is decided on a *view* of the text: each citation tag (``content.text.citation_tags``)
read as one character ``TAG``, each bracketed marker as ``MARKER``, so that "right after a
citation" is the same test on a whole answer and on a stream (``stream_filter``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import regex

from ...content.text.citation_tags import find_tags, shortened

#: What a citation tag reads as in the view, and a bracketed numbered marker (``[2]``).
TAG, MARKER = "\ue000", "\ue001"

#: A numbered reference marker as a reader follows one: square, full-width or lenticular brackets around
#: numbers (a footnote's ``^`` allowed), e.g. ``[1]``, ``[^2]``, ``[1, 3]``, ``[2–4]``, ``【5】``.
MARKER_OPENINGS = "[［【〔"
_MARKER_OPEN, _MARKER_SEP = "[" + re.escape(MARKER_OPENINGS) + "]", r"\s*[,，、\-–—]\s*"
NUMBERED_MARKER = re.compile(_MARKER_OPEN + r"\s*\^?\d{1,4}(?:" + _MARKER_SEP + r"\^?\d{1,4})*\s*[\]］】〕]")
#: The start of one, not yet closed ("[1, 2" so far): what a stream holds back until it is judged (``stream_filter``).
NUMBERED_MARKER_PREFIX = re.compile(_MARKER_OPEN + r"\s*\^?\d{1,4}(?:" + _MARKER_SEP + r"\^?\d{0,4})*\s*$")

# -- superscripts ------------------------------------------------------------------------------------
_SUPD = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_SUP_NUMS = rf"(?>[{_SUPD}]+(?:[,˒⁻][{_SUPD}]+)*)"
_SUP_PAREN = rf"⁽{_SUP_NUMS}⁾"  # never a power
_SUP_RUN = rf"(?<![{_SUPD}⁺⁻⁼⁽ⁿ]){_SUP_NUMS}(?![{_SUPD}⁺⁻⁼ⁿ])"  # not 10⁻³, Ca²⁺, SO₄²⁻
_NUMS = r"\d{1,3}(?:[ \t]*[,\-–][ \t]*\d{1,3})*"
_HTML_SUP = rf"(?i:<[ \t]*sup(?:[ \t][^<>]*)?>)[ \t]*{_NUMS}[ \t]*(?i:<[ \t]*/[ \t]*sup[ \t]*>)"
#: Superscript digits written as HTML entities (``&sup2;``, ``&#178;``, ``&#xB2;``, ``&#8308;``): a client that renders
#: HTML shows them as ``²``.
_ENTITY_SUP = (r"(?:&(?i:sup[123]|#(?:17[89]|185|830[4-9]|831[0-3])|#x0*(?:b[239]|b9|207[04-9]));)+")
_CARET = r"[\^＾](?:\{[ \t]*" + _NUMS + r"[ \t]*\}|\([ \t]*" + _NUMS + r"[ \t]*\)|" + _NUMS + r")(?!\d|\.\d)"
_CITED = rf"(?<=[{TAG}{MARKER}\]］】〕][ \t]*)"  # right after a citation, a marker or a closing bracket
_LETTER = r"[^\W\d_]"
#: Units of length: their powers are areas and volumes (``cm²``, ``kg/m²``).
_POWER_UNITS = r"cm|mm|km|dm|nm|[µμu]m|in|ft|yd|mi"
_SUP_PLACE = (
    rf"(?:{_CITED}|^|(?<=\s)|(?<=\p{{Han}})|(?<=[^\w\s)）/{TAG}{MARKER}])"
    r"|(?<=(?<!\d)(?:19|20)\d\d)"  # after a year: a footnote, not a power
    rf"|(?<=(?<!{_LETTER}){_LETTER}{{2,}})(?<!(?<!{_LETTER})(?:{_POWER_UNITS}))"  # after a word, not a unit
    rf"|(?<=['’]{_LETTER}))"  # Wernicke’s²
)
#: A dagger or double dagger after a word or a citation: a footnote marker ("…a day†." over a line "† Smith 2020").
_DAGGER = r"[†‡]+"
_SUPERSCRIPT = rf"{_SUP_PAREN}|{_SUP_PLACE}(?:{_SUP_RUN}|{_HTML_SUP}|{_ENTITY_SUP}|{_CARET}|{_DAGGER})"
#: A Markdown footnote reference with a name (``[^note]``; ``[^2]`` is a bracketed marker).
_FOOTNOTE = r"\[\^[^\]\s\[]{1,40}\]"

# -- circled and parenthesised numbers ending a sentence ---------------------------------------------
_CIRCLED = "[\u2460-\u249b\u24ea-\u24ff\u2776-\u2793\u3251-\u325f\u32b1-\u32bf]+"
_PAREN_NUM = r"(?![(（﹙][ \t]*\d{1,3},\d{3}(?!\d))[(（﹙][ \t]*\d{1,3}(?:[ \t]*[,，、\-–—][ \t]*\d{1,3})*[ \t]*[)）﹚]"
#: A citation next, in the view or as written (a stream reads what follows as written).
_CITE_NEXT = rf"[{TAG}{MARKER}]|<[ \t]*/?[ \t]*[cC][iI][tT]|[\[［【〔][ \t]*\^?\d"
_CLAUSE_END = rf"(?=[ \t]*(?:[.;!?。；！？]|\n|$|{_CITE_NEXT}))"
#: What an enumeration's own number follows: "(1) or (2).", "step (3).", "①和②。".
_ENUMERATING = (rf"(?<!(?:(?<!{_LETTER})(?i:and|or|to|see|in|of|from|steps?|items?|points?|options?|stages?|types?"
                r"|grades?|class|levels?|phases?|no\.?|nos\.?|numbers?)|步骤|选项|[和或及与至到见如第、,，~～\-–—/&])[ \t]*)")
_ENDING_NUMBER = rf"(?<=\S[ \t]*){_ENUMERATING}(?:{_CIRCLED}|{_PAREN_NUM}){_CLAUSE_END}"

# -- a word and a number --------------------------------------------------------------------------------
#: A number with a unit after it is a quantity ("Reference: 2–10 nmol/L", "sources 2–3 times a week").
_NOT_QUANTITY = (r"(?![ \t]*(?:[%％×]|[^\W\d_]{1,6}/|(?i:[nµμmpk]?(?:mol|g|l)|g/dl|iu|u|mmhg|cm|mm|kcal|cal|bpm|mcg"
                 r"|x|times?|servings?|portions?|cups?|glass(?:es)?|days?|weeks?|months?|years?|yrs?|hours?|hrs?"
                 r"|minutes?|mins?|per|a|an|each)(?![^\W\d_])))")
_WORD_NUMS = (r"(?:(?i:no\.?|nos\.?)[ \t]*|\#[ \t]*)?(?>\d{1,3}(?:[ \t]*(?:[,，、\-–—&]|(?i:and|to))[ \t]*\d{1,3})*)"
              r"(?!\d|[.,]\d)" + _NOT_QUANTITY)
_EN_REF = rf"(?<!{_LETTER})(?i:ref(?:erence)?s?\.?|cit(?:ation)?s?\.?|foot-?notes?|end-?notes?|fn\.?)[ \t]*:?[ \t]*{_WORD_NUMS}"
_EN_SOURCE = rf"(?<!{_LETTER})(?i:sources?)[ \t]*:?[ \t]*{_WORD_NUMS}"
_ZH_COUNTERS = "型次个种年月日天周岁克斤升倍份片粒杯碗两度期级类组名例位毫微千万亿小分秒餐顿%％"
_ZH_REF = (r"(?:参考文献|参考资料|参考来源|引用文献|资料来源|信息来源|数据来源|文献|资料|来源|出处|引文|引用|脚注|尾注|注释|参考)"
           r"[ \t]*[:：]?[ \t]*(?:第[ \t]*)?(?>\d{1,3}(?:[ \t]*[,，、\-–—~～至到和及][ \t]*\d{1,3})*)(?!\d|[.．]\d)"
           rf"(?:[ \t]*[条篇项号])?(?![ \t]*[{_ZH_COUNTERS}])(?![-–]?[A-Za-z])")  # not "资料：1-Day and 3-Day Passes": a title
_OPEN, _CLOSE = r"[(（\[［【〔]", r"[)）\]］】〕]"
_WRAPPED = (rf"{_OPEN}[ \t]*(?:(?i:see|cf\.?|e\.g\.,?)[ \t]+|见|参见)?(?:{_EN_REF}|{_EN_SOURCE}|{_ZH_REF})"
            rf"[ \t]*{_CLOSE}")

#: The invented inline markers, matched on the view, in order of precedence: one pattern each, for one
#: alternation of them all is searched ten times slower.
INLINE = tuple(regex.compile(p, regex.MULTILINE) for p in (
    _WRAPPED, _EN_REF, rf"{_EN_SOURCE}(?=[ \t]*(?:[.;:!?,)\]）】。；：！？，]|\n|$|{_CITE_NEXT}))", _ZH_REF,
    _SUPERSCRIPT, _ENDING_NUMBER, _FOOTNOTE))

# -- reference lists --------------------------------------------------------------------------------------
_STRONG = (r"(?i:references(?:[ \t]+list)?|reference[ \t]+list|refs|bibliography|works[ \t]+cited|literature(?:[ \t]+cited)?"
           r"|citations?|foot-?notes|end-?notes|sources[ \t]+cited)|参考文献|参考资料|参考来源|引用文献|引用来源|文献来源|文献|引文|引用|出处|脚注|尾注")
_WEAK = r"(?i:reference|sources?|data[ \t]+sources?|further[ \t]+reading|see[ \t]+also|resources)|资料来源|信息来源|数据来源|来源|延伸阅读|参考|资料"
_MD = r"[*_]{0,3}"
_HEADING_END = rf"[ \t]*{_MD}[ \t]*(?:[:：][ \t]*{_MD}[ \t]*(?=\S)|[:：]?[ \t]*{_MD}[ \t]*(?=\n|$))"
#: A reference list's heading: a line of its own, or a heading and its colon before the entries on one line
#: (also after a sentence, "…µg. References: Smith 2015.", for the words that head nothing else).
HEADING = regex.compile(
    rf"^[ \t]*(?:\#{{1,6}}[ \t]*)?{_MD}[ \t]*(?:(?P<strong>{_STRONG})|(?P<weak>{_WEAK})){_HEADING_END}"
    rf"|(?<=[.!?。！？{TAG}{MARKER}][ \t]*){_MD}(?P<strong>{_STRONG}){_MD}[ \t]*[:：][ \t]*{_MD}[ \t]*(?=\S)",
    regex.MULTILINE,
)
_ENTRY = regex.compile(rf"[ \t]*(?:[-*+•·▪◦]|\d{{1,3}}[.)、．]|[(（]\d{{1,3}}[)）]|{MARKER}|[\[［【〔]\d{{1,3}}[\]］】〕]"
                       rf"|[\u2460-\u2473])[ \t]*")
_BIBLIOGRAPHIC = regex.compile(
    r"(?<!\d)(?:19|20)\d\d(?!\d)|(?i:et[ \t]+al|doi|pmid|isbn|https?://|www\.|(?<![^\W\d_])(?:vol|pp?)\.[ \t]*\d)"
    r"|(?<![^\W\d_])(?:WHO|NIH|CDC|NHS|FDA|EFSA|NICE|IOM|USDA|AHA|ADA|ESC|Cochrane|BMJ|Lancet|JAMA|NEJM|PubMed)(?![^\W\d_])"
    r"|(?i:journal|guidelines?|institute|organi[sz]ation|association|society|academy|ministry|university|report|review"
    r"|trial|stud(?:y|ies))|指南|杂志|学报|期刊|研究|协会|学会|委员会|组织|中心|大学|出版社|报告|综述|试验|[《》]"
)

#: A link whose target is anything but a plain path of this site (``/v1/units/…``, ``#…``): a Markdown link or image
#: to a scheme (``javascript:``, ``data:``, ``mailto:``…), another host (``//``) or either hidden behind an escape
#: (``jav&#x61;script:``); and a reference definition, an autolink or an HTML attribute naming one. An answer a reader's app renders as Markdown or HTML must not carry one past the check (an attacker's
#: mock LLM wrapped a checked marker in ``(javascript:alert(1))``, which a link-unaware check let through).
_TARGET = r"[ \t]*<?[ \t]*(?:[A-Za-z][A-Za-z0-9+.\-]{0,31}[ \t]*:|//|\\|&|%)[^\s>]{0,80}"
LINKED = (r"\]\((?![ \t]*(?:/(?![/\\])|#)[\w\-./#?=]*[ \t]*\))[^\n]{0,80}?(?:\)|$)|"
          rf"(?m:^)[ \t]{{0,3}}\[[^\]\n]{{1,80}}\]:{_TARGET}|<[A-Za-z][A-Za-z0-9+.\-]{{1,31}}:[^\s<>]{{0,80}}>"
          rf"|(?i:\b(?:href|src|srcset|action|formaction|xlink:href|poster|background)[ \t]*=[ \t]*[\"']?){_TARGET}")

#: A reference told in words rather than cited: a link, a DOI, a PubMed id, "Smith et al.", an author or a journal and a
#: year in brackets ("(Smith, 2021)", "(see "Oral B12 megadoses", Lancet 2019)", "（张三等，中华医学杂志，2021）").
#: None of these can be checked against the sources, so an answer that tells one is no faithful answer: an
#: attacker's mock LLM had each of them pass the check with score 1.0. A year alone in brackets ("(2015)") and a time
#: ("(as of 2021)", "（截至2021年）") are no reference.
TOLD_REFERENCE = regex.compile(
    LINKED + r"|(?i:https?://|www\.)[^\s<>)\]）】]+|(?i:\bdoi\b)[ \t]*:?[ \t]*10\.\d{4,9}/\S+|(?<![\w.])10\.\d{4,9}/[^\s<>]+"
    r"|(?i:\bpmid\b)[ \t]*:?[ \t]*\d{4,9}|(?<![^\W\d_])\p{Lu}[\p{L}'’\-]+[ \t]+(?i:et[ \t]+al)\b\.?"
    r"|[(（\[［](?![ \t]*(?i:as of|since|in|from|until|by|before|after|around|circa|c\.|updated|revised|截至|自|从|于|到))"
    r"[^()（）\[\]［］\n]{0,80}?[\p{L}\p{Han}][^()（）\[\]［］\n]{0,80}?[,，、 \t](?:19|20)\d\d[a-z]?[ \t]*(?:年)?[)）\]］]"
)


def told_references(text: str) -> list[str]:
    """Each reference ``text`` tells in words (``TOLD_REFERENCE``), as written, shortened for a report."""
    return [shortened(" ".join(_target(m.group(0)).split())) for m in TOLD_REFERENCE.finditer(text)]


def _target(told: str) -> str:
    """A Markdown link's target as written (``https://…`` for ``](https://…)``); any other reference as told."""
    return told[2:-1 if told.endswith(")") else None].strip() if told.startswith("](") else told


#: The most characters past an inline marker that can change what it is ("²" then "³", "(2)" then ".").
LOOKAHEAD_CHARS = 12


@dataclass(frozen=True)
class Invented:
    """An invented marker or reference list, as a span of the view."""

    start: int
    end: int
    list: bool  # a reference list (its heading and entries), not an inline marker


def section_end(view: str, body: int) -> int:
    """Where the reference list whose entries start at ``body`` ends: the rest of the heading's line and the
    lines up to the first blank one after some text, then any later lines that are entries (``1. …``, ``- …``)."""
    end = pos = body
    started = blank = False
    while pos <= len(view):
        stop = view.find("\n", pos)
        stop = len(view) if stop < 0 else stop
        line = view[pos:stop]
        if not line.strip():
            blank = started
        elif blank and not _ENTRY.match(line):
            break
        else:
            end, started, blank = stop, True, False
        pos = stop + 1
    return end


def is_invented_list(body: str, strong: bool) -> bool:
    """A heading's entries make it an invented reference list: anything beyond citation tags under a
    heading that heads only references, something that reads as a reference under any other."""
    content = "".join(_ENTRY.sub("", line, count=1) for line in body.split("\n"))
    content = regex.sub(rf"[\W_{TAG}{MARKER}]+", "", content)
    return bool(content) and (strong or _BIBLIOGRAPHIC.search(body) is not None)


def heading_list(view: str, heading: regex.Match[str]) -> Invented | None:
    """The reference list under ``heading`` (a ``HEADING`` match in ``view``) when it is invented."""
    end = section_end(view, heading.end())
    if not is_invented_list(view[heading.end():end], heading.group("strong") is not None):
        return None
    return Invented(heading.start(), max(end, heading.end()), True)


def inline_at(text: str, pos: int, partial: bool = False) -> regex.Match[str] | None:
    """The invented inline marker at ``pos`` of ``text`` (a partial match: it may still become one), or None."""
    for pattern in INLINE:
        m = pattern.match(text, pos, partial=partial)
        if m is not None and (m.partial or m.end() > pos):
            return m
    return None


def first_start(text: str, pos: int, endpos: int, partial: bool) -> int | None:
    """Where in ``text[pos:endpos]`` the first invented marker or reference list heading could begin (with
    ``partial``, one the text's end cuts short too)."""
    first = None
    for pattern in (HEADING, *INLINE):
        m = pattern.search(text, pos, endpos if first is None else min(endpos, first + 1), partial=partial)
        if m is not None and (m.end() > m.start() or not m.partial) and (first is None or m.start() < first):
            first = m.start()
    return first


def find_invented(view: str) -> list[Invented]:
    """Every invented marker and reference list of ``view`` (see ``make_view``), in order, never overlapping:
    a list takes the markers in it along."""
    found = [Invented(m.start(), m.end(), False) for pattern in INLINE for m in pattern.finditer(view)]
    found += [item for h in HEADING.finditer(view) if (item := heading_list(view, h)) is not None]
    kept: list[Invented] = []
    for item in sorted(found, key=lambda i: (i.start, not i.list)):
        if kept and item.start < kept[-1].end:
            continue
        kept.append(item)
    return kept


@dataclass(frozen=True)
class View:
    """A text with each citation tag read as ``TAG`` and each bracketed marker as ``MARKER``."""

    text: str
    original: str
    _raw_at: tuple[int, ...]  # the original offset of each view character, and one past the end

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the view's ``[start, end)``."""
        return self._raw_at[start], self._raw_at[end]

    def written(self, item: Invented) -> str:
        """How a report names an invented marker or list: as written, on one line, shortened."""
        start, end = self.span(item.start, item.end)
        return shortened(" ".join(self.original[start:end].split()))


def make_view(text: str) -> View:
    """``text`` as ``find_invented`` reads it."""
    spans = [(t.start, t.end, TAG) for t in find_tags(text)]
    taken = [(s, e) for s, e, _ in spans]
    for m in NUMBERED_MARKER.finditer(text):
        if not any(s < m.end() and m.start() < e for s, e in taken):
            spans.append((m.start(), m.end(), MARKER))
    spans.sort()
    out: list[str] = []
    raw_at: list[int] = []
    last = 0
    for start, end, ch in spans:
        out.append(text[last:start])
        raw_at.extend(range(last, start))
        out.append(ch)
        raw_at.append(start)
        last = end
    out.append(text[last:])
    raw_at.extend(range(last, len(text)))
    raw_at.append(len(text))
    return View("".join(out), text, tuple(raw_at))


def invented_markers(text: str) -> list[str]:
    """Each invented inline marker and reference list of ``text`` (besides bracketed markers), as written."""
    view = make_view(text)
    return [view.written(item) for item in find_invented(view.text)]


def without_invented(text: str) -> str:
    """``text`` without its invented inline markers (and the spaces before them) and reference lists."""
    view = make_view(text)
    pieces: list[str] = []
    last = 0
    for item in find_invented(view.text):
        start, end = view.span(item.start, item.end)
        kept = text[last:start]
        pieces.append(kept.rstrip() if item.list else kept.rstrip(" \t"))
        last = end
    pieces.append(text[last:])
    return "".join(pieces)
