"""Which language a question is in, and the one canonical form every matcher sees.

The runtime answers in the question's language and picks localized names and
responses by it, so the choice must be stable for mixed text: a Chinese question
that quotes "HbA1c" is Chinese, an English question with one Chinese word is
English. Guard patterns and topic names are matched against ``normalize_question``
so that full-width forms, curly quotes and stray spaces cannot hide a match.
"""

from __future__ import annotations

from .scripts import LETTERS_PER_CJK_CHAR, cjk_share, other_script_share  # noqa: F401 - part of this module's API
from .unicode_fold import normalize_question  # noqa: F401 - part of this module's API
from ...languages import Lang

#: A question is Chinese when its CJK characters carry more than this share of the
#: letter-weighted text (with ``LETTERS_PER_CJK_CHAR``: more than 20% of the raw letters);
#: an even split ("does 叶酸 help") keeps the English sentence frame.
ZH_SHARE = 0.5
#: A question is in neither language when letters of other scripts (kana, Hangul, Cyrillic...) carry more than this
#: share: "ビタミンDは一日どれくらい必要ですか" was read as English and answered with sentences about iodine.
OTHER_SHARE = 0.5


def detect_lang(text: str) -> Lang:
    """``"zh"`` when Chinese characters dominate, else ``"en"`` (also for empty or letter-free text)."""
    return "zh" if cjk_share(text) > ZH_SHARE else "en"


def in_neither_language(text: str) -> bool:
    """True when ``text`` is written mostly in a script neither Chinese nor English uses (Japanese kana, Korean,
    Cyrillic...): no answer read from it would be a reading of what was asked."""
    return other_script_share(text) > OTHER_SHARE
