"""The words a pattern cannot match without: a substring test that skips most of the guard's regular expressions.

The guard tries a few hundred author-written patterns and cue patterns on every question, and almost all of them
match nothing; each search still walks the question (16 µs for a long alternation of Chinese words behind a
``^(?![\\s\\S]*…)`` lookahead). Most patterns name literal words, one of which every match must contain
(``[\\s\\S]*?吐血`` needs 吐血; ``\\b(suicid\\w*|kill (myself|himself))`` needs "suicid" or "kill myself" or "kill
himself"). ``Prefilter`` reads them from the pattern (``re``'s parser) and says "cannot match" when none is in the
question, the way RE2's and Hyperscan's prefilters do; only then is the search skipped, so a skipped pattern is one
that would have found nothing, and a pattern whose words cannot be read is always searched.

Case: the patterns are case-insensitive; the question is folded once (``fold``: lower case, and the few letters
outside ASCII that the engines match to an ASCII letter, ı and İ to i, ſ to s, K to k, mapped to it first), and only
words of ASCII or caseless characters (Han, digits, punctuation) are read from a pattern: another cased letter breaks
the word there. The property (a skipped pattern never matches) is checked over every guard text in the repository
(tests/content/text/test_literal_prefilter.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from itertools import product
from typing import Any


#: A pattern part that can match this many strings or fewer is read as those strings ("(a|b)c" as "ac" and "bc");
#: more, and the part stands alone ("[a-z]", "\\w").
MAX_STRINGS = 64
#: A set of words this large or smaller is tested with ``in``; larger, with one compiled alternation.
FEW_WORDS = 4

_Words = frozenset[str]


@dataclass(frozen=True)
class Prefilter:
    """The words one of which every match of a pattern contains (folded); ``words`` None when none could be read."""

    words: _Words | None
    _any: re.Pattern[str] | None = None

    def may_match(self, folded: str) -> bool:
        """False only when the pattern cannot match the question ``folded`` (``fold``) was made from."""
        if self.words is None:
            return True
        if self._any is not None:
            return self._any.search(folded) is not None
        return any(word in folded for word in self.words)


#: Syntax ``regex`` (the rules' engine) reads where ``re``, whose parser reads the words, sees literal text: a POSIX
#: class (``[[:alpha:]]``), and a brace that is no plain count (fuzzy matching ``{e<=2}``, ``{s}``; ``{ 2}`` in verbose
#: mode). A pattern with any of it is searched every time (an attacker of the prefilter found each).
_ENGINES_DIFFER = re.compile(r"\[:|\{(?!\d+(,\d*)?\}|,\d+\})")


@cache
def prefilter_of(source: str, flags: int = re.IGNORECASE) -> Prefilter:
    """The prefilter of a pattern as ``re`` parses it; one it cannot parse, or reads no words from, or one that
    ``regex`` would read otherwise (``_ENGINES_DIFFER``), filters nothing."""
    if _ENGINES_DIFFER.search(source):
        return Prefilter(None)
    try:
        from re import _parser  # type: ignore[attr-defined]

        words = _required(_parser.parse(source, flags))
    except Exception:  # a parser of another shape, or a pattern only ``regex`` reads: search it every time
        return Prefilter(None)
    if not words or "" in words:
        return Prefilter(None)
    folded = frozenset(word.lower() for word in words)
    if len(folded) <= FEW_WORDS:
        return Prefilter(folded)
    return Prefilter(folded, re.compile("|".join(re.escape(w) for w in sorted(folded, key=len, reverse=True))))


#: The letters outside ASCII that ``re`` or ``regex`` match, case-insensitively, to an ASCII letter, each to that letter
#: (what asking both engines about every cased letter finds: tests/content/text/test_literal_prefilter.py asks again).
TWINS = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}
_TWINS = str.maketrans(TWINS)


def fold(text: str) -> str:
    """``text`` as prefilters read it: once per question, before any ``Prefilter.may_match``."""
    return text.translate(_TWINS).lower()


#: Characters without case in any Unicode version: Han (the CJK blocks and their extensions), CJK punctuation and
#: fullwidth punctuation. Not every character Python's tables call caseless: ``regex`` carries newer tables, which pair
#: letters such as ƛ with ones added since (U+A7DC), and a word of them would skip a pattern that matches.
_CASELESS = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff01-\uff20\uff3b-\uff40\uff5b-\uff65"
                       r"\U00020000-\U0003134f]")


def _plain(char: str) -> bool:
    """Whether ``char`` may stand in a word: ASCII, or a character that has no case (``_CASELESS``)."""
    return char.isascii() or _CASELESS.match(char) is not None


def _required(items: Any) -> _Words | None:
    """Words one of which every match of the parsed ``items`` (a sequence) contains; None when none can be said.

    A run of parts each matching few strings gives their products ("kill (myself|himself)"); a part matching many
    gives its own required words; of all those the sequence keeps the most selective (``_better``)."""
    from re import _constants as c  # type: ignore[attr-defined]

    best: _Words | None = None
    run: _Words = frozenset({""})
    for op, av in [*items, (None, None)]:  # a sentinel closes the last run
        exact = _exact(op, av) if op is not None else None
        if exact is not None and len(run) * len(exact) <= MAX_STRINGS:
            run = frozenset(a + b for a, b in product(run, exact))
            continue
        best = _better(best, run)
        run = exact if exact is not None else frozenset({""})
        if op is not None and exact is None:
            best = _better(best, _required_of_part(op, av, c))
    return best


def _required_of_part(op: Any, av: Any, c: Any) -> _Words | None:
    """Words one of which every match of one part that matches many strings contains."""
    if op is c.SUBPATTERN:
        return _required(av[-1])
    if op is c.ASSERT:  # a lookahead's (or a lookbehind's) words are in the question too
        return _required(av[1])
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", c.MAX_REPEAT)) and av[0] >= 1:
        return _required(av[2])
    if op is getattr(c, "ATOMIC_GROUP", None):
        return _required(av)
    if op is c.BRANCH:
        union: set[str] = set()
        for branch in av[1]:
            words = _required(branch)
            if words is None:
                return None
            union |= words
        return frozenset(union)
    return None


def _exact(op: Any, av: Any) -> _Words | None:
    """All the strings one part matches, when they are few (``MAX_STRINGS``) and of plain characters; else None."""
    from re import _constants as c  # type: ignore[attr-defined]

    if op is c.LITERAL:
        return frozenset({chr(av)}) if _plain(chr(av)) else None
    if op is c.AT:  # ^, $, \b: zero-width, a run goes on through them
        return frozenset({""})
    if op is c.IN:
        chars = [chr(v) for o, v in av if o is c.LITERAL]
        if len(chars) != len(av) or len(chars) > MAX_STRINGS or not all(map(_plain, chars)):
            return None  # a negation, a range, a category, or a letter with case outside ASCII
        return frozenset(chars)
    if op is c.SUBPATTERN:
        return _exact_sequence(av[-1])
    if op is c.BRANCH:
        union: set[str] = set()
        for branch in av[1]:
            words = _exact_sequence(branch)
            if words is None or len(union | words) > MAX_STRINGS:
                return None
            union |= words
        return frozenset(union)
    if op in (c.MAX_REPEAT, c.MIN_REPEAT) and av[0] == av[1] and av[0] <= 4:  # "a{2}"
        inner = _exact_sequence(av[2])
        if inner is None or len(inner) ** av[0] > MAX_STRINGS:
            return None
        return frozenset("".join(p) for p in product(inner, repeat=av[0]))
    return None


def _exact_sequence(items: Any) -> _Words | None:
    """All the strings a sequence matches, when each part's are few; else None."""
    strings: _Words = frozenset({""})
    for op, av in items:
        exact = _exact(op, av)
        if exact is None or len(strings) * len(exact) > MAX_STRINGS:
            return None
        strings = frozenset(a + b for a, b in product(strings, exact))
    return strings


def _better(a: _Words | None, b: _Words | None) -> _Words | None:
    """The more selective of two word sets, either of which a match needs: the longer shortest word, then fewer."""
    if a is None or not a or "" in a:
        return b if b and "" not in b else a
    if b is None or not b or "" in b:
        return a
    return max(a, b, key=lambda words: (min(map(len, words)), -len(words)))
