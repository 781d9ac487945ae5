"""Which script a text is written in: Han characters against Latin letters, weighted by what each carries.

The question language (``content.text.lang.detect_lang``) and the check of a unit body against its ``lang``
(``content.body_script``) read text the same way.
"""

from __future__ import annotations

import re

# Han ideographs (CJK unified, extension A, compatibility).
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
#: Japanese kana (hiragana, katakana, half-width katakana): never Chinese, and as heavy as a Han character, so a
#: Japanese sentence with a few kanji ("クラブナイトは何時に始まりますか") is not read as Chinese.
_KANA = r"\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"
KANA = re.compile(f"[{_KANA}]")
#: Syllable blocks of the scripts beside Chinese that neither answered language is written in: kana and Hangul. One
#: weighs as much as a Han character; a letter of any other alphabet (Cyrillic, Greek, Arabic, Thai...) as a Latin one.
SYLLABLES = re.compile(f"[{_KANA}\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")

#: One Chinese character carries about as much as four Latin letters
#: ("孕妇每天需要多少碘" / "how much iodine do pregnant women need per day").
LETTERS_PER_CJK_CHAR = 4.0


def cjk_share(text: str) -> float:
    """Letter-weighted share of Han characters among the letters of ``text`` (0.0 when it has none); kana weigh as
    much as Han characters."""
    cjk = len(HAN.findall(text))
    latin = len(LATIN.findall(text))
    weighted = cjk + len(KANA.findall(text)) + latin / LETTERS_PER_CJK_CHAR
    return cjk / weighted if weighted else 0.0


def other_script_share(text: str) -> float:
    """Letter-weighted share of ``text``'s letters written in a script that is neither Chinese nor Latin (0.0 when it
    has no letter): a Japanese, Korean or Russian question, which neither answered language reads."""
    han, latin, syllables, other = 0, 0, 0, 0
    for ch in text:
        if HAN.match(ch):
            han += 1
        elif LATIN.match(ch):
            latin += 1
        elif SYLLABLES.match(ch):
            syllables += 1
        elif ch.isalpha():
            other += 1
    weighted = han + syllables + (latin + other) / LETTERS_PER_CJK_CHAR
    return (syllables + other / LETTERS_PER_CJK_CHAR) / weighted if weighted else 0.0
