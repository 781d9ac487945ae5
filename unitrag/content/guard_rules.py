"""Guard rules as compiled patterns: what a rule of guard.yaml matches, and what it answers with.

The runtime's guard checks questions against these; the build's guard fit asks the same
question of its examples (an example a pattern already stops needs no score), so the
pattern semantics live here, below both.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import regex

from ..languages import LANGS
from .text.excerpt import excerpt
from .text.han_script import to_simplified
from .text.literal_prefilter import fold, prefilter_of
from .text.unicode_fold import normalize_question

log = logging.getLogger(__name__)

GuardType = Literal["red_flag", "out_of_scope"]
#: The order in which rule types are checked: safety first.
CHECK_ORDER: tuple[GuardType, ...] = ("red_flag", "out_of_scope")

#: One author-written pattern's time on one question, in seconds; over it the pattern counts as no match (logged once,
#: ``_timed_out``). The patterns are the authors' regular expressions, and one with nested quantifiers (``(\w+\s?)+``)
#: or overlapping alternatives (``(a|a)+``) backtracks exponentially: unbounded, one crafted question held a server's
#: worker (or the build, over its examples) for minutes. content/guard.yaml's patterns take at most 2 ms on a question
#: of 2,000 characters (the longest ``ask`` takes); the examples' unanchored lookaheads take 0.1-0.4 s on one they do
#: not match (they match, when they do, at its first character). 50 ms leaves a slow machine a margin.
PATTERN_TIMEOUT_S = 0.05
#: All the patterns' time on one question in one check (``first_match``, ``CompiledRule.matches``): once spent, each
#: pattern left gets ``SPENT_TIMEOUT_S``: a question costs at most this plus that much a pattern, however many run away.
QUESTION_BUDGET_S = 0.25
#: A pattern's time once the budget is spent: an ordinary pattern still matches in it (2 ms at most), a runaway stops.
SPENT_TIMEOUT_S = 0.01
#: Validation's probes (``pattern_problem``): runs that make a nested or overlapping quantifier backtrack
#: exponentially (2^48 tries) and then fail, each a few microseconds for an ordinary pattern.
_PROBES: tuple[str, ...] = (
    *(run * 48 + end for run in ("a", "1", " ", "a ", "胸", "-", ".") for end in ("!", "b", "")),
    "word " * 12 + "!", "a1_" * 16 + "!", "ab" * 24 + "!",
)

#: The (rule id, pattern) pairs already logged as over their time: once each, not once a question.
_warned: set[tuple[str, str]] = set()


def compile_pattern(source: str) -> regex.Pattern[str]:
    """An author's pattern as the guard matches it: Han characters folded (questions are), case-insensitive, with the
    ``regex`` engine, whose searches take a timeout. Its syntax stays Python's ``re`` (what authors are told): a
    pattern either module refuses raises ``re.error`` or ``regex.error``."""
    folded = to_simplified(source)
    re.compile(folded, re.IGNORECASE)
    return regex.compile(folded, regex.IGNORECASE | regex.V0)


#: A search that ran out of wall-clock time having used less than this share of it on the CPU was starved (other
#: threads had the CPU: a server under load), not slow: it is tried again, with four times the wall-clock time, at most
#: ``STARVED_TRIES`` times. Under 32 busy threads on 2 cores, ``\bsuicid\w*`` on "i think about suicide" counted as
#: no match 7 times in 200 with the wall clock alone (an HTTP audit saw it on the sample's red flags).
STARVED_SHARE = 0.5
STARVED_TRIES = 4


def search(pattern: regex.Pattern[str], text: str, timeout: float = PATTERN_TIMEOUT_S) -> bool | None:
    """Whether ``pattern`` matches somewhere in ``text``; None when it ran over ``timeout`` seconds of this thread's
    CPU time. The limit is on the pattern's work, not on the machine's load: a red flag must not go unmatched because
    the server was busy (``STARVED_SHARE``)."""
    wall, used = timeout, 0.0
    for _ in range(STARVED_TRIES):
        started = time.thread_time()
        try:
            return pattern.search(text, timeout=wall) is not None
        except TimeoutError:
            used += time.thread_time() - started
            if used >= STARVED_SHARE * timeout:
                return None
            wall *= 4
    return None


_REWRITE = "rewrite it without nested quantifiers like (\\w+\\s?)+ or overlapping alternatives like (a|a)+"


def pattern_problem(source: str, examples: Iterable[str] = ()) -> str | None:
    """What is wrong with an author's pattern, for validation; None when nothing is. A pattern that does not compile;
    one that repeats without bound a part that itself repeats without bound, or repeats such a part a counted 3 or
    more times (``_nested_repeat``: it backtracks exponentially in ``re``, polynomially in ``regex``, on the question
    that almost matches); one that matches the empty string (``''``, ``.*``, ``\\s*``, ``a?``: it matches somewhere in
    every question, so its rule stops them all); one that runs over ``PATTERN_TIMEOUT_S`` (twice, so a busy
    machine's pause is no error) on a probe or one of its rule's ``examples``, on which at runtime it would match
    nothing."""
    try:
        pattern = compile_pattern(source)
    except (re.error, regex.error) as exc:
        return f"bad regular expression: {exc}"
    nested = _nested_repeat(pattern.pattern)
    if nested == "counted":
        return (f"pattern '{source}' repeats a counted number of times a part that itself repeats without bound "
                f"(catastrophic backtracking: one question can take seconds): {_REWRITE}, or bound the inner repeat "
                "({0,40}) or the outer one from 0 ({0,5})")
    if nested:
        return (f"pattern '{source}' repeats a part that itself repeats (catastrophic backtracking: one question can "
                f"take minutes): {_REWRITE}, or bound the outer repeat ({{0,5}})")
    if search(pattern, ""):
        return (f"this pattern matches every question: {shown_pattern(source)!r} matches the empty string, so it "
                "matches somewhere in any question and its rule stops them all; write the words it must find")
    for probe in (*_PROBES, *(normalize_question(e) for e in examples)):
        if search(pattern, probe) is None and search(pattern, probe) is None:
            shown = probe if len(probe) <= 60 else probe[:57] + "..."
            return (f"pattern '{source}' runs over {PATTERN_TIMEOUT_S * 1000:.0f} ms on {shown!r} (catastrophic "
                    f"backtracking; at runtime it would match nothing there): {_REWRITE}")
    return None


#: A pattern quoted in a message is cut to this many characters.
SHOWN_PATTERN_CHARS = 60


def shown_pattern(source: str) -> str:
    """A pattern as its author wrote it, cut to ``SHOWN_PATTERN_CHARS`` for a one-line message."""
    return excerpt(source, SHOWN_PATTERN_CHARS)


#: A counted repeat (``{n}``, ``{n,m}``) of at least this lower bound, around a part that repeats without bound, is
#: refused like a nested unbounded one: ``(.*e){10}#`` takes ``re`` seconds on 27 characters.
COUNTED_REPEAT_MIN = 3


def _nested_repeat(source: str) -> Literal["nested", "counted"] | None:
    """Whether an unbounded repeat (``*``, ``+``, ``{n,}``) holds another, as ``(\\w+\\s?)+`` does (star height 2,
    what safe-regex checks): "nested"; or a counted repeat of ``COUNTED_REPEAT_MIN`` or more (``{10}``, ``{3,8}``)
    holds an unbounded one, as ``(.*e){10}`` does: "counted" (``(\\d{1,3}\\.){3}`` and ``(\\w+ ){0,3}`` are not).
    Read from ``re``'s parser, which is private: where it has changed, None (the probes remain)."""
    try:
        from re import _constants as c, _parser  # type: ignore[attr-defined]

        repeats = {c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", c.MAX_REPEAT)}

        def parts(op: Any, av: Any) -> list[Any]:
            """The item lists inside one parsed item."""
            if op in repeats:
                return [av[2]]
            if op is c.SUBPATTERN:
                return [av[-1]]
            if op is c.BRANCH:
                return list(av[1])
            if op in (c.ASSERT, c.ASSERT_NOT):
                return [av[1]]
            if op is c.GROUPREF_EXISTS:
                return [b for b in av[1:] if b is not None]
            if op is getattr(c, "ATOMIC_GROUP", None):
                return [av]
            return []

        def unbounded_in(items: Any) -> bool:
            return any(op in repeats and av[1] == c.MAXREPEAT or any(unbounded_in(p) for p in parts(op, av))
                       for op, av in items)

        def nested(items: Any, inside: bool) -> Literal["nested", "counted"] | None:
            for op, av in items:
                if op in repeats:
                    unbounded = av[1] == c.MAXREPEAT
                    if unbounded and inside:
                        return "nested"
                    if not unbounded and av[0] >= COUNTED_REPEAT_MIN and unbounded_in(av[2]):
                        return "counted"
                    if found := nested(av[2], inside or unbounded):
                        return found
                    continue
                for part in parts(op, av):
                    if found := nested(part, inside):
                        return found
            return None

        return nested(_parser.parse(source, re.IGNORECASE), False)
    except Exception:  # a parser of another shape: the probes still run
        return None


def _timed_out(rule_id: str, pattern: regex.Pattern[str], timeout: float, chars: int) -> None:
    key = (rule_id, pattern.pattern)
    if key in _warned:
        return
    _warned.add(key)
    log.warning("guard rule %r: pattern %r ran over %.0f ms on a question of %d characters and counts as no match "
                "(logged once): rewrite it without nested quantifiers like (\\w+\\s?)+ or overlapping alternatives "
                "like (a|a)+, and start a pattern of lookaheads with ^", rule_id, pattern.pattern, timeout * 1000, chars)


@dataclass(frozen=True)
class CompiledRule:
    """One compiled rule: its patterns of both languages, its response in each and its caution note (if any)."""

    id: str
    type: GuardType
    patterns: tuple[regex.Pattern[str], ...]
    responses: Mapping[str, str]
    cautions: Mapping[str, str] = field(default_factory=dict)
    #: A red flag by similarity alone, with no sign and nothing happening now: "stop" stops it, "caution" answers it with
    #: the note, "unsure" answers it with the note while the score is under ``rag.guard.screen.BARE_STOP``
    similar_without_sign: str = "stop"
    #: A caller with the restricted role is answered past this rule (``GuardRule.exempt_restricted_role``)
    exempt_restricted_role: bool = False

    def matches(self, normalized_question: str, deadline: float | None = None, folded: str | None = None) -> bool:
        """Whether a pattern matches; one over its time (``PATTERN_TIMEOUT_S``, less once ``deadline``, a
        ``time.thread_time()``: this thread's CPU time, not the wall clock, has passed) counts as no match, and is
        logged once. A pattern none of whose words the question holds is not searched (``literal_prefilter``;
        ``folded``: the question ``fold``-ed, once for all rules)."""
        if deadline is None:
            deadline = time.thread_time() + QUESTION_BUDGET_S
        folded = fold(normalized_question) if folded is None else folded
        for pattern in self.patterns:
            if not prefilter_of(pattern.pattern).may_match(folded):
                continue
            timeout = max(SPENT_TIMEOUT_S, min(PATTERN_TIMEOUT_S, deadline - time.thread_time()))
            found = search(pattern, normalized_question, timeout)
            if found:
                return True
            if found is None:
                _timed_out(self.id, pattern, timeout, len(normalized_question))
        return False

    def response(self, lang: str) -> str:
        """The response in ``lang``, else in a language the rule has (English first): a knowledge base that declares
        one language (``unitrag.toml``) writes its rules in that one only, and a question in the other gets it."""
        return _in_lang(self.responses, lang) or ""

    def caution(self, lang: str) -> str | None:
        """The caution note in ``lang``, else in a language the rule has (English first); None without a note."""
        return _in_lang(self.cautions, lang)


_LANG_NAMES = {"en": "English", "zh": "Chinese"}
#: The language a text is looked for in when a rule has none in the question's: English, then Chinese.
FALLBACK_ORDER = ("en", "zh")


def _in_lang(texts: Mapping[str, str], lang: str) -> str | None:
    """``texts[lang]``, else the first text of ``FALLBACK_ORDER`` (else any) the mapping has; None when it has none."""
    for candidate in (lang, *FALLBACK_ORDER, *texts):
        if texts.get(candidate):
            return texts[candidate]
    return None


def compile_rule(row: Mapping[str, Any]) -> CompiledRule:
    """A guard rule's row (guard.yaml as the artifact stores it) compiled; a bad pattern, or a rule with no response
    in any language, is a ValueError naming the rule. One language is enough: a knowledge base that declares only
    ``zh`` (``unitrag.toml``) writes its rules in Chinese, and a question in English gets the Chinese response."""
    rule_id = row["id"]
    if row["type"] not in get_args(GuardType):
        raise ValueError(f"guard rule {rule_id!r}: unknown type {row['type']!r} (known: {', '.join(get_args(GuardType))})")
    patterns: list[regex.Pattern[str]] = []
    for lang in LANGS:
        for source in row.get(f"patterns_{lang}") or ():
            try:
                patterns.append(compile_pattern(source))  # matched against folded questions, each search timed
            except (re.error, regex.error) as exc:
                raise ValueError(f"guard rule {rule_id!r}: bad {lang} pattern {source!r}: {exc}") from exc
    responses = {lang: row[f"response_{lang}"] for lang in LANGS if row.get(f"response_{lang}")}
    if not responses:
        raise ValueError(f"guard rule {rule_id!r}: no response in any language ({', '.join(LANGS)})")
    cautions = {lang: row[f"caution_{lang}"] for lang in LANGS if row.get(f"caution_{lang}")}  # absent before schema 8
    if cautions and (unmatched := [lang for lang in LANGS if lang in responses and lang not in cautions]):
        # the build writes a note in every language its response has (compiler.tables): a row without is hand-made
        raise ValueError(f"guard rule {rule_id!r}: a caution note needs its {_LANG_NAMES[unmatched[0]]} text, as its "
                         "response has one")
    similar_without_sign = row.get("similar_without_sign") or "stop"  # absent before schema 9: as it was built
    if similar_without_sign not in ("stop", "unsure", "caution") or similar_without_sign == "caution" and not cautions:
        raise ValueError(f"guard rule {rule_id!r}: similar_without_sign {similar_without_sign!r} is not stop, unsure, "
                         "or caution with a caution note")
    exempt = row.get("exempt_restricted_role")  # absent before schema 10: nobody is exempt
    if exempt is not None and type(exempt) is not bool:  # a hand-made row: never read a string or a 1 as a grant
        raise ValueError(f"guard rule {rule_id!r}: exempt_restricted_role {exempt!r} is not true or false")
    return CompiledRule(id=rule_id, type=row["type"], patterns=tuple(patterns), responses=responses, cautions=cautions,
                        similar_without_sign=similar_without_sign, exempt_restricted_role=bool(exempt))


def first_match(rules: Iterable[CompiledRule], folded_question: str, rule_type: str) -> CompiledRule | None:
    """The first rule of ``rule_type`` whose patterns match the (normalised) question: what the runtime stops
    on, and what the build's guard fit counts as already stopped. The patterns share ``QUESTION_BUDGET_S``."""
    deadline, folded = time.thread_time() + QUESTION_BUDGET_S, fold(folded_question)
    return next((rule for rule in rules if rule.type == rule_type and rule.matches(folded_question, deadline, folded)),
                None)
