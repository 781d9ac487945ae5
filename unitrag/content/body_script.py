"""Whether a unit's text is written in the language its ``lang`` field declares.

``lang`` decides which answers a unit serves (the runtime answers in the question's
language) and how its text is tokenised, so a Chinese body marked ``lang: en`` is
quietly misfiled. Units legitimately mix scripts: an English unit names a Chinese
dish, a Chinese one says "vitamin B12", "eGFR" or "2.4 µg". Only a body that
clearly contradicts its ``lang`` is flagged: letters are counted by script (Han vs
Latin) after dropping code, URLs, tags (citations, HTML) and numbers with their
unit symbols, weighted as ``content.text.lang`` weighs them (one Han character carries about
four Latin letters), and a short body is never judged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .text.scripts import HAN as _HAN
from .text.scripts import LATIN as _LATIN
from .text.scripts import LETTERS_PER_CJK_CHAR

#: What carries no language: fenced and inline code, tags (<Cite id="..."/>, HTML), URLs and e-mail addresses,
#: numbers with the unit symbol after them ("200 pg/mL", "2.4µg", "5%").
_NOT_PROSE = re.compile(
    r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`"
    r"|<[^<>\n]*>"
    r"|(?:https?://|www\.)\S+|\S+@\S+\.\w+"
    r"|\d[\d.,]*\s*(?:[A-Za-zµμ°℃]{1,4}(?:/[A-Za-zµμ]{1,4})?\b|%)?",
    re.DOTALL,
)
#: Below this many letter-weighted characters (20 Han characters, or 80 Latin letters) a body is not judged.
MIN_WEIGHTED_LETTERS = 20.0
#: ``lang: en`` is contradicted past this Han share (Han characters outnumber Latin letters); ``lang: zh`` below
#: ``1 - EN_MAX_HAN_SHARE`` (fewer than one Han character per 16 Latin letters).
EN_MAX_HAN_SHARE = 0.8


@dataclass(frozen=True)
class ScriptCount:
    """The letters of a text by script, code, URLs, tags and quantities left out."""

    han: int
    latin: int

    @property
    def weighted(self) -> float:
        return self.han + self.latin / LETTERS_PER_CJK_CHAR

    @property
    def han_share(self) -> float:
        return self.han / self.weighted if self.weighted else 0.0


def count_scripts(text: str) -> ScriptCount:
    """Han characters and Latin letters of ``text``'s prose."""
    prose = _NOT_PROSE.sub(" ", text)
    return ScriptCount(han=len(_HAN.findall(prose)), latin=len(_LATIN.findall(prose)))


def unit_scripts(meta: Mapping[str, Any], body: str) -> ScriptCount:
    """The letters of a unit's summary (when it has one) and body: what its ``lang`` is judged on."""
    summary = meta.get("summary")
    return count_scripts(f"{summary}\n{body}" if isinstance(summary, str) else body)


def lang_contradiction(text: str | ScriptCount, lang: str) -> str | None:
    """What is wrong when ``text`` (or its counted letters) is clearly not in ``lang``, else None (also when short)."""
    count = text if isinstance(text, ScriptCount) else count_scripts(text)
    if count.weighted < MIN_WEIGHTED_LETTERS:
        return None
    letters = f"{count.han} Han characters, {count.latin} Latin letters"
    if lang == "en" and count.han_share > EN_MAX_HAN_SHARE:
        return f"lang is 'en' but the text is mostly Chinese ({letters}): set `lang: zh`, or write the text in English"
    if lang == "zh" and count.han_share < 1 - EN_MAX_HAN_SHARE:
        return (f"lang is 'zh' but the text has almost no Chinese ({letters}): set `lang: en`, "
                "or write the text in Chinese")
    return None
