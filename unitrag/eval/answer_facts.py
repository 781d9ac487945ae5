"""Does an answer state a fact? A mechanical match of a fact's spellings against the text a reader sees.

A labelled question's ``answer_facts`` lists the facts a correct answer states, each as one or more
accepted spellings (``["1,000 mg", "1000毫克"]``). Both the answer and each spelling are normalised
the same way, then the spelling is searched in the answer:

- NFKC (full-width letters, digits and punctuation read as ASCII; ``℃`` as ``°C``; ``µ`` as ``μ``),
  then case folded;
- unit spellings folded to one form (µg/μg/ug/mcg/微克/micrograms → ``μg``; mg/毫克; g/克 after a
  number; kg/千克/公斤; ml/毫升; IU/国际单位; °C/℃/摄氏度/degrees Celsius → ``°c``); a Latin unit
  only where it is not part of a longer Latin word (the ``ug`` of "drug" stays);
- thousands separators removed (``1,000`` and ``1，000`` read as ``1000``; a decimal point stays);
- range dashes and tildes read as ``-`` (``10–25 mg``, ``10~25 mg`` and ``10-25 mg`` are one spelling);
- whitespace removed, except before a number after a number or after a number's full stop or comma
  ("2 10 mg" is not "210 mg"; "costs $4.50.\n2. …", a list's next item, is not "4.50.2"); Markdown emphasis
  (``*``, `````) dropped.

A number in a spelling never matches part of a longer number: "4 mg" is not stated by "0.4 mg" or
"14 mg", "1000" not by "10000", "4" not by "4.5".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

# Latin unit spellings (after NFKC and case folding), each folded where no Latin letter touches it.
_LATIN_UNITS = (
    (r"mcg|ug|μg|micrograms?", "μg"),
    (r"mg|milligrams?", "mg"),
    (r"kg|kilograms?", "kg"),
    (r"g|grams?", "g"),
    (r"ml|millilit(?:er|re)s?", "ml"),
    (r"iu|international\s+units?", "iu"),
    (r"degrees?\s+celsius|celsius", "°c"),
)
_LATIN = re.compile("|".join(f"(?<![a-z])(?:{spellings})(?![a-z])" for spellings, _ in _LATIN_UNITS))
_LATIN_FORM = [(re.compile(f"(?:{spellings})"), form) for spellings, form in _LATIN_UNITS]
# Chinese unit words: unambiguous ones everywhere; 克 ("gram", but also in 克服, 克罗恩) only after a number.
_CHINESE_UNITS = (("微克", "μg"), ("毫克", "mg"), ("千克", "kg"), ("公斤", "kg"), ("毫升", "ml"),
                  ("国际单位", "iu"), ("摄氏度", "°c"))
_GRAM_AFTER_NUMBER = re.compile(r"(?<=\d)(\s*)克")
_DEGREE_C = re.compile(r"°\s*c(?![a-z])")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_SPACE = re.compile(r"\s+")
_EMPHASIS = re.compile(r"[*`]")
_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2212~\u301c", "-"))  # NFKC made ～ a ~


def normalise(text: str) -> str:
    """``text`` as the matcher compares it (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _EMPHASIS.sub("", text).translate(_DASHES)
    text = _LATIN.sub(_latin_unit, text)
    for word, form in _CHINESE_UNITS:
        text = text.replace(word, form)
    text = _GRAM_AFTER_NUMBER.sub("g", text)
    text = _DEGREE_C.sub("°c", text)
    text = _THOUSANDS.sub("", text)
    return _SPACE.sub(lambda m: " " if _between_numbers(m) else "", text)


def _latin_unit(match: re.Match[str]) -> str:
    spelled = match.group()
    return next(form for pattern, form in _LATIN_FORM if pattern.fullmatch(spelled))


def _between_numbers(match: re.Match[str]) -> bool:
    """Whitespace before a number, after a number or after the full stop or comma that ends one: kept as one space."""
    text, start, end = match.string, match.start(), match.end()
    if start == 0 or end == len(text) or not text[end].isdigit():
        return False
    before = text[start - 1]
    return before.isdigit() or (before in ".," and start > 1 and text[start - 2].isdigit())


def _inside_a_number(text: str, start: int, end: int, spelling: str) -> bool:
    """Whether the spelling found at ``text[start:end]`` is the head or tail of a longer number there."""
    if spelling[0].isdigit() and start > 0:
        before = text[start - 1]
        if before.isdigit() or (before == "." and start > 1 and text[start - 2].isdigit()):
            return True
    if spelling[-1].isdigit() and end < len(text):
        after = text[end]
        if after.isdigit() or (after == "." and end + 1 < len(text) and text[end + 1].isdigit()):
            return True
    return False


def stated(normalised_text: str, spelling: str) -> bool:
    """Whether one spelling occurs in an already normalised text, never inside a longer number."""
    wanted = normalise(spelling)
    if not wanted:
        return False
    start = normalised_text.find(wanted)
    while start >= 0:
        if not _inside_a_number(normalised_text, start, start + len(wanted), wanted):
            return True
        start = normalised_text.find(wanted, start + 1)
    return False


def fact_stated(text: str, spellings: Sequence[str]) -> bool:
    """Whether ``text`` states a fact: any one of its spellings."""
    normalised = normalise(text)
    return any(stated(normalised, spelling) for spelling in spellings)


def missing_facts(text: str, facts: Sequence[Sequence[str]]) -> list[list[str]]:
    """The facts ``text`` does not state, each as its list of spellings, in the order given."""
    normalised = normalise(text)
    return [list(spellings) for spellings in facts if not any(stated(normalised, s) for s in spellings)]
