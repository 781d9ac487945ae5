"""Traditional Chinese characters folded to simplified, so one knowledge base serves both scripts.

A reader in Taiwan or Hong Kong asks "出門前怎麼檢查車子" of units written as "检查"; a
team in Taipei writes its units in traditional characters and gets questions in simplified
ones. To a lexical matcher these are different strings: BM25 found nothing, a topic's
Chinese synonym never matched, and a guard pattern written as 电池 let 電池冒煙 through.

Every lexical matcher therefore sees text folded to simplified characters, on both sides:
the sparse arm's terms (``tokenize``), the canonical question (``normalize_question``: guard
patterns, topic names, framing cues) and the guard's patterns themselves (compiled folded, so
a pattern written in traditional characters still matches). What a reader is shown is
never folded: answers quote the units as written.

OpenCC's ``t2s`` tables (phrase-aware: 乾燥 → 干燥 but 乾隆 stays) do the folding, about
3 µs for a question; text without a Han character is returned as it is. Folding text that is
already simplified leaves it as it is, apart from a few characters that simplified text keeps
only in names (醜 → 丑): harmless, since both sides are folded alike.

The embedder is no lexical matcher, but it too matches a question best in the script its
content is written in: a question in traditional characters is embedded folded when the
knowledge base's Chinese is simplified (``written_in_traditional`` tells which).
"""

from __future__ import annotations

import threading

from .scripts import HAN

_local = threading.local()


def to_simplified(text: str) -> str:
    """``text`` with traditional Han characters replaced by simplified ones (see the module docstring)."""
    if not HAN.search(text):
        return text
    converter = getattr(_local, "converter", None)
    if converter is None:  # one per thread: the binding does not promise thread safety
        import opencc

        converter = _local.converter = opencc.OpenCC("t2s")
    try:
        return converter.convert(text)
    except UnicodeEncodeError:  # a lone surrogate (the question edge refuses them; other text may hold one)
        return text


#: Share of Han characters that folding changes, above which text is taken as traditional. Simplified text
#: changes almost none (a name's 醜); traditional running text changes about a quarter of them.
TRADITIONAL_SHARE = 0.05


def written_in_traditional(texts: list[str]) -> bool:
    """Whether these texts (a knowledge base's Chinese titles, say) are mostly in traditional characters."""
    han = changed = 0
    for text in texts:
        folded = to_simplified(text)
        han += len(HAN.findall(text))
        if len(folded) == len(text):  # t2s maps character for character; a phrase that is not is not counted
            changed += sum(a != b for a, b in zip(text, folded))
    return han > 0 and changed / han > TRADITIONAL_SHARE
