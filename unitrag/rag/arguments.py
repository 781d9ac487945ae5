"""What a caller hands the runtime, checked at the edge: one clear error naming the argument.

Apps, the CLI and evaluation files pass questions, ``k``, ``lang``, filters and user
contexts. A wrong type or an unknown value must fail here, loudly, instead of becoming
a silent default further in: a string of roles matched as a substring (a grant), a
mapping reduced to its keys (a grant), ``k="5"`` slicing oddly, a 200k-character
question holding the embedder's lock for minutes. Every failure is an
``InvalidArgument``: a ``ValueError`` for callers, one line for the CLI.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from numbers import Integral
from typing import Any

from ..errors import InvalidArgument, safe_repr, type_name
from ..content.text.citation_tags import find_tags, strip_tags
from ..content.text.letters_as_read import letters_as_read

#: Most sources one search may return: a prompt takes ``final_k`` (5), a results page a few
#: dozen; and no more than ``dense_k`` candidates are ranked in the first place.
MAX_K = 100
#: What a list of names may arrive as. Strings and mappings are refused: both iterate.
COLLECTIONS = (list, tuple, set, frozenset)
_SHOWN = 60


def shown(value: object) -> str:
    """The start of a value's repr, for a message (a 200k-character string stays short); never raises (``safe_repr``)."""
    text = safe_repr(value)
    return f"{text[:_SHOWN]}{'…' if len(text) > _SHOWN else ''}"


def describe(value: object) -> str:
    """A bad value for a message: the start of its repr and its type (a string's quotes say it is one); never raises."""
    return shown(value) if type(value) is str else f"{shown(value)} ({type_name(value)})"


def names(value: object, argument: str, known: Collection[str] | None = None) -> tuple[str, ...]:
    """A list, tuple or set of non-empty strings as a tuple (first-seen order; sets sorted).

    With ``known``, every name must be one of them (the message lists them).
    """
    hint = f"; known: {', '.join(sorted(known))}" if known is not None else ""
    if not isinstance(value, COLLECTIONS):
        raise InvalidArgument(f"{argument}: expected a list of names, got {describe(value)}{hint}")
    items = sorted(value, key=safe_repr) if isinstance(value, (set, frozenset)) else list(value)
    items = [plain_str(item) for item in items]
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise InvalidArgument(f"{argument}: expected non-empty strings, got {describe(item)}{hint}")
        readable(item, argument)
        if known is not None and item not in known:
            raise InvalidArgument(f"{argument}: unknown {describe(item)}{hint}")
    return tuple(dict.fromkeys(items))


def plain_str(value: object) -> object:
    """A ``str`` subclass as the plain string it holds (anything else as it is): a subclass's own ``__eq__``, ``__hash__``
    or ``strip`` must not decide whether a caller holds a role ("x" equal to every name would hold all of them)."""
    return str.__str__(value) if isinstance(value, str) and type(value) is not str else value


def optional_name(value: object, argument: str) -> str | None:
    """None, or one non-empty string."""
    value = plain_str(value)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(f"{argument}: expected a non-empty string or nothing, got {describe(value)}")
    return readable(value, argument)


def question_text(question: object, max_chars: int) -> str:
    """The question, if it is a string of at most ``max_chars`` characters that says something, padding cut.

    Checked before the guard, so every later stage (guard patterns, broadening, jieba,
    BM25, the embedder) only ever sees bounded input. ``max_chars`` is the config's
    ``max_question_chars`` (why 2000: see ``unitrag.config``).

    Refused as empty, because retrieval always ranks something and the extractive answer would
    quote it with confidence: a question with no word (``says_something``): no letter or digit
    once control and format characters are set aside (``"\\x00"``, ``"\\u202e"``, emoji,
    punctuation), or only words that repeat one or two characters (``"(((aaaa"``, ``"(abab…"``,
    ``"哈哈哈"``). Short real questions pass: ``"B12?"``, ``"VD"``, ``"碘"``. A lone surrogate is
    refused as unreadable (``readable``). What is returned has every run of more than
    ``PADDING_RUN`` of one symbol or punctuation mark cut to that many (``unpadded``), and no control
    character or bidirectional override (``without_controls``: a terminal escape or a U+202E in a question
    must not reach a log line, a terminal or the page), and no citation tag (``<Cite id="x"/>`` alone was answered,
    and its Latin letters made ``你好 <Cite id="x"/>`` an English question). Its letters are read as a reader
    reads them (``letters_as_read``): look-alikes, zero-width characters and spaced-out letters passed the guard.
    """
    if not isinstance(question, str):
        raise InvalidArgument(f"question: expected a string, got {describe(question)}")
    if not question.strip():
        raise InvalidArgument("question: empty")
    if len(question) > max_chars:
        raise InvalidArgument(
            f"question: {len(question):,} characters, over the limit of {max_chars:,} "
            "(config max_question_chars): ask a shorter question"
        )
    readable(question, "question")
    if find_tags(question):  # a citation tag is never part of a question: an answer's tags are its sources' own
        question = strip_tags(question)
    if not says_something(question):
        raise InvalidArgument("question: empty (no word in it: only symbols, punctuation, citation tags, invisible "
                              "characters or letters repeated): ask in words")
    return letters_as_read(unpadded(without_controls(question)))


#: C0 and C1 controls but tab and newline, and the bidirectional embeddings, overrides and isolates: what rewrites
#: or hides what a reader sees (a question here; an LLM's answer in ``answer.stream_filter``).
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: What a terminal escape sequence leaves once its ESC is gone ("[31m").
_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def without_controls(text: str) -> str:
    """``text`` with terminal escape sequences, control characters (a carriage return is a space) and bidi
    controls removed."""
    return CONTROLS.sub("", _ESCAPE.sub("", text.replace("\r\n", "\n").replace("\r", " ")))


_WORD = re.compile(r"[^\W_]+")
#: No word: one or two characters said three times or more ("aaa", "ZzZz", "ababab", "hahaha", "哈哈哈").
_REPEATS = re.compile(r"(.{1,2})\1{2,}")
#: Longer runs of one symbol or punctuation mark are cut to this many ("what" and 1,000 "?" was answered
#: from an unrelated unit, "what???" is "not found": a long run drags the embedding off what is asked).
PADDING_RUN = 3
_PADDING = re.compile(r"([^\w\s]|_)\1{%d,}" % PADDING_RUN)


def says_something(text: str) -> bool:
    """Whether ``text`` holds a word: a run of letters or digits that does not just repeat one or two characters.

    What draws nothing is set aside first (``drop_invisible``: control and format characters, combining
    marks, default-ignorable code points such as the Hangul filler), so it neither splits nor makes a word.
    One letter or digit is a word ("碘", "C"), so is "VD", "B12" or "abab"; "aaa", "ZzZ", "ababab" and
    "哈哈哈" (case aside) are not.
    """
    from ..content.text.unicode_fold import (
        drop_invisible,  # here: content's models import content.text.lang (issue 26's layers)
    )

    seen = drop_invisible(text)
    return any(not _REPEATS.fullmatch(word.casefold()) for word in _WORD.findall(seen))


#: A word said again and again ("hi hi hi … my chest hurts", 你好你好你好…): 300 of them in front of an emergency
#: diluted its embedding until the guard let it pass (an attacker, stop 50).
_REPEATED_WORD = re.compile(r"\b(\w+)\b(?:[^\w\n]{1,3}\1\b){%d,}" % PADDING_RUN, re.IGNORECASE)
_REPEATED_HAN = re.compile(r"([\u3400-\u9fff]{1,4}?)\1{%d,}" % (2 * PADDING_RUN - 1))


def unpadded(text: str) -> str:
    """``text`` with every run of more than ``PADDING_RUN`` of one symbol or punctuation mark, one word or one
    Chinese phrase cut to ``PADDING_RUN`` of it."""
    text = _PADDING.sub(r"\1" * PADDING_RUN, text)
    text = _REPEATED_WORD.sub(lambda m: " ".join([m.group(1)] * PADDING_RUN), text)
    return _REPEATED_HAN.sub(lambda m: m.group(1) * PADDING_RUN, text)


def readable(text: str, argument: str) -> str:
    """``text`` if UTF-8 can carry it: a lone surrogate (a JSON ``"\\ud800"`` escape without its pair, a
    command-line argument of invalid UTF-8) would fail later, in a log line, a response or mid-stream."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        if 0xDC80 <= code <= 0xDCFF:  # Python's stand-in for a byte that was not UTF-8 (a command line, a file name)
            raise InvalidArgument(
                f"{argument}: not UTF-8: byte 0x{code - 0xDC00:02X} at character {exc.start + 1} is not UTF-8 text, or a "
                f"lone surrogate U+{code:04X} (set the terminal, the file or the caller to UTF-8)"
            ) from None
        raise InvalidArgument(
            f"{argument}: not valid Unicode text: a lone surrogate U+{code:04X} at character "
            f"{exc.start + 1} (a \\ud800-\\udfff escape must be half of a pair; send UTF-8)"
        ) from None
    return text


def result_count(k: object, argument: str = "k") -> int:
    """A whole number of results, 1 to ``MAX_K``."""
    if isinstance(k, bool) or not isinstance(k, Integral):
        raise InvalidArgument(f"{argument}: expected a whole number from 1 to {MAX_K}, got {describe(k)}")
    if not 1 <= int(k) <= MAX_K:
        raise InvalidArgument(f"{argument}: expected a whole number from 1 to {MAX_K}, got {shown(int(k))}")
    return int(k)


def how_many(value: object, argument: str) -> int:
    """A whole number, 1 or more (how many of something to list: ``example_questions(per_lang=...)``)."""
    if isinstance(value, bool) or not isinstance(value, Integral) or int(value) < 1:
        raise InvalidArgument(f"{argument}: expected a whole number, 1 or more, got {describe(value)}")
    return int(value)


def choice(value: object, argument: str, known: Collection[str]) -> str | None:
    """None, or one of ``known`` (a language, say)."""
    if value is not None and (not isinstance(value, str) or value not in known):
        raise InvalidArgument(f"{argument}: expected one of {', '.join(known)}, got {describe(value)}")
    return value


def switch(value: object, argument: str) -> bool | None:
    """None (the configured default) or a real bool: ``"no"`` is truthy and would switch a stage on."""
    if value is not None and not isinstance(value, bool):
        raise InvalidArgument(f"{argument}: expected true, false or None, got {describe(value)}")
    return value


class DuplicateKey(InvalidArgument):
    """A JSON object holds one key twice. ``json`` keeps the last, silently: ``{"roles": [], "roles": [...]}`` would
    undo a narrowing the first one made, and a reader that keeps the first would see another request."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"holds the key {shown(key)} more than once")


def _pairs_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's pairs as a dict, unless a key repeats (``DuplicateKey``)."""
    keys: set[str] = set()
    for key, _ in pairs:
        if key in keys:
            raise DuplicateKey(key)
        keys.add(key)
    return dict(pairs)


def json_once(text: str) -> Any:
    """JSON text parsed as ``json.loads`` does, except that an object holding a key twice is ``DuplicateKey``
    (a ``ValueError``): one reading for every JSON a caller hands in, ``--user-context`` and the HTTP body alike, so
    both refuse the same input with the same words. Other faults are ``json.loads``'s own ``ValueError``."""
    return json.loads(text, object_pairs_hook=_pairs_once)
