"""A question's letters as a reader reads them, before any stage sees it.

A person reads ``I wаnt tо kill mysеlf`` (three Cyrillic letters), ``hus\\u200bband`` (a zero-width space),
``ᴋɪʟʟ ᴍʏꜱᴇʟꜰ``, ``c r u s h i n g  c h e s t  p a i n`` and ``k + U+0301 ill`` as the plain words; the
embedder, BM25 and the guard's patterns did not: each of these passed the guard that stops the plain words
(an attacker's list). So the question is read once, at the edge (``rag.arguments.question_text``):

1. **Invisible characters inside a word are dropped** (zero-width spaces and joiners, soft hyphens, combining
   marks: ``unicode_fold.is_invisible``); elsewhere they stay (an emoji's joiner and variation selector make
   its picture). A Hangul filler written between words is a space. A text whose Latin words are parted by
   invisible characters only, never by a space (``my\u200bchest\u200bhurts``, text copied from a page that
   marks word breaks so), reads them as spaces: dropped, it was one word nothing knows, and passed the guard.
2. **Compatibility letters and digits** (full-width ``ｋｉｌｌ``, mathematical 𝐤𝐢𝐥𝐥, small capitals ``ᴋɪʟʟ``) read
   as their ASCII letter; an accented letter (``café``) is a letter of its own and stays. Chinese punctuation is
   left as written: it is no letter, and the embedder reads it.
3. **A word mixing Latin letters with look-alikes of another script** (Cyrillic ``а``, Greek ``ο``) reads as
   Latin, by the TR39 confusables skeleton. A word written wholly in another script is left alone: only a
   mixed word is a disguise (or a slip nobody means).
4. **Letters spaced out one by one** (four or more, by a space, a hyphen or a dot: ``k-i-l-l``) read as the word they
   spell; two spaces still part words.

The guard reads one more thing (``digits_as_letters``): a digit standing for a letter inside a word (``k1ll mys3lf``).
Only the guard's patterns and framing read it: everywhere else "HbA1c" must stay "HbA1c".
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from .unicode_fold import compatibility_candidates, confusable_prototypes, is_invisible, small_capital_letter

#: Hangul fillers draw nothing but are letters: written between words they are the spaces.
_FILLERS = re.compile("[\u115f\u1160\u3164\uffa0]")
_LATIN = re.compile(r"[A-Za-z]")
#: A space between two words: where there is one, an invisible character between letters is inside a word.
_SPACE_BETWEEN_WORDS = re.compile(r"[^\W_]\s+[^\W_]")
#: A word with a letter of Latin and a letter of another alphabet (not Han, not kana: those mix with Latin in
#: ordinary Chinese writing, "B12的吸收").
_WORD = re.compile(r"[^\W\d_]+")
_OTHER_ALPHABET = re.compile(r"[\u0370-\u03ff\u0400-\u052f\u0530-\u058f\u10a0-\u10ff\u13a0-\u13ff\u2c80-\u2cff\ua640-\ua69f]")
#: Four or more single letters, each followed by one space, hyphen or dot (the same one): "c r u s h i n g", "k-i-l-l".
_SPACED = re.compile(r"(?<![^\W\d_])(?:[A-Za-z]([ .-]))(?:[A-Za-z]\1){2,}[A-Za-z](?![^\W\d_])")
#: A digit or symbol written for a letter between two letters of a word: "k1ll", "mys3lf", "pa1n", "br3athe"; a
#: star or "!" masking one ("k*ll", "su*cide", "suic!de": a second attacker's) is read as the "i" the words masked
#: so most often lack. A two-letter word ends in one too: "t0", "g0", "n0", "m3" (I w4nt t0 d1e, an attacker's, stop 53).
_DIGIT_IN_WORD = re.compile(r"(?<=[A-Za-z])[013457@$*!](?=[A-Za-z])|(?<=\b[tgnsd])0\b|(?<=\bm)3\b")
_AS_LETTER = {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "*": "i", "!": "i"}


def letters_as_read(text: str) -> str:
    """``text`` with its letters as a reader reads them (the module's four rules); plain text is returned as is."""
    if not text.isascii():
        text = _without_invisible_in_words(_FILLERS.sub(" ", text))
        text = "".join(_plain_letter(ch) for ch in text)
        text = _WORD.sub(_latin_if_mixed, text)
    return _SPACED.sub(lambda m: m.group(0).replace(m.group(1), ""), text)


def digits_as_letters(text: str) -> str:
    """``text`` with each digit (or ``@``, ``$``) between two letters read as the letter it stands for: "k1ll mys3lf"
    is "kill myself" to a reader, and passed the patterns that stop the plain words."""
    return _DIGIT_IN_WORD.sub(lambda m: _AS_LETTER[m.group(0)], text)


def _without_invisible_in_words(text: str) -> str:
    """``text`` without the invisible characters that sit between two letters or digits (a word's), or with them
    as spaces where they are its only word separators (rule 1)."""
    hidden = [is_invisible(ch) for ch in text]
    if not any(hidden):
        return text
    as_space = not _SPACE_BETWEEN_WORDS.search(text) and _latin_words_parted(text, hidden) >= 2
    after, following = [""] * len(text), ""  # the next visible character after each position
    for i in range(len(text) - 1, -1, -1):
        after[i] = following
        following = following if hidden[i] else text[i]
    kept, before = [], ""
    for i, ch in enumerate(text):
        if hidden[i] and before.isalnum() and after[i].isalnum():
            if as_space and _latin(before) and _latin(after[i]) and not hidden[i - 1]:
                kept.append(" ")
            continue
        kept.append(ch)
        before = before if hidden[i] else ch
    return "".join(kept)


def _latin(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def _latin_words_parted(text: str, hidden: list[bool]) -> int:
    """How many runs of invisible characters sit between two Latin letters or digits."""
    runs, i = 0, 0
    while i < len(text):
        if not hidden[i]:
            i += 1
            continue
        j = i
        while j < len(text) and hidden[j]:
            j += 1
        runs += 0 < i and j < len(text) and _latin(text[i - 1]) and _latin(text[j])
        i = j
    return runs


def _plain_letter(ch: str) -> str:
    """A compatibility letter or digit (full-width, mathematical, a small capital) as its ASCII one, else ``ch``."""
    if ch.isascii() or not ch.isalnum():
        return ch
    return _compatibility_letters().get(ch, ch)


@cache
def _compatibility_letters() -> dict[str, str]:
    """Of the characters ``unicode_fold`` found may read as another, the letters and digits that read as ASCII ones."""
    table: dict[str, str] = {}
    for ch in compatibility_candidates():
        if not ch.isalnum():
            continue
        folded = unicodedata.normalize("NFKC", ch)
        if len(folded) == 1 and folded.isascii() and folded.isalnum() and folded != ch:
            table[ch] = folded
        elif unicodedata.category(ch) in ("Ll", "Lu") and small_capital_letter(ch):
            table[ch] = small_capital_letter(ch)
    return table


def _latin_if_mixed(match: re.Match[str]) -> str:
    word = match.group(0)
    if not (_LATIN.search(word) and _OTHER_ALPHABET.search(word)):
        return word
    return "".join(_look_alike(ch) if _OTHER_ALPHABET.match(ch) else ch for ch in word)


def _look_alike(ch: str) -> str:
    """The ASCII letter TR39 says ``ch`` is confusable with (Cyrillic ``а`` → ``a``), else ``ch``."""
    prototype = confusable_prototypes().get(ch, "")
    if len(prototype) == 1 and prototype.isascii() and prototype.isalpha():
        return prototype.lower() if ch.islower() else prototype
    return ch
