"""Which language a question is in, and the one canonical form every matcher sees.

The runtime answers in the question's language and picks localized names and
responses by it, so the choice must be stable for mixed text: a Chinese question
that quotes "HbA1c" is Chinese, an English question with one Chinese word is
English. Guard patterns and topic names are matched against ``normalize_question``
so that full-width forms, curly quotes and stray spaces cannot hide a match.
"""

from __future__ import annotations

import re
import unicodedata

from ..content.unicode_fold import drop_invisible
from .types import Lang

# Han ideographs (CJK unified, extension A, compatibility).
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")

#: One Chinese character carries about as much as four Latin letters
#: ("孕妇每天需要多少碘" / "how much iodine do pregnant women need per day").
LETTERS_PER_CJK_CHAR = 4.0
#: A question is Chinese when its CJK characters carry more than this share of the
#: letter-weighted text (with the weight above: more than 20% of the raw letters);
#: an even split ("does 叶酸 help") keeps the English sentence frame.
ZH_SHARE = 0.5

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


def cjk_share(text: str) -> float:
    """Letter-weighted share of Han characters among the letters of ``text`` (0.0 when it has none)."""
    cjk = len(_CJK.findall(text))
    latin = len(_LATIN.findall(text))
    weighted = cjk + latin / LETTERS_PER_CJK_CHAR
    return cjk / weighted if weighted else 0.0


def detect_lang(text: str) -> Lang:
    """``"zh"`` when Chinese characters dominate, else ``"en"`` (also for empty or letter-free text)."""
    return "zh" if cjk_share(text) > ZH_SHARE else "en"


def normalize_question(text: str) -> str:
    """NFKC, ASCII punctuation, no invisible characters (by Unicode property: ``drop_invisible``), single
    spaces (none between two Han characters)."""
    text = unicodedata.normalize("NFKC", text).translate(_PUNCT)
    text = drop_invisible(text)
    text = _SPACE.sub(" ", text).strip()
    return _SPACE_BETWEEN_CJK.sub("", text)
