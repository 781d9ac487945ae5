"""The words a pattern cannot match without (``content.text.literal_prefilter``): read right, and never a reason to
skip a pattern that would have matched."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import regex
import yaml

from unitrag.content.guard_rules import compile_pattern
from unitrag.content.text.lang import normalize_question
from unitrag.content.text.literal_prefilter import TWINS, Prefilter, fold, prefilter_of
from unitrag.rag.guard.framing import _COMPILED

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(("pattern", "words"), [
    (r"[\s\S]*?吐血", {"吐血"}),
    (r"\b(suicid\w*|kill (myself|himself))\b", {"suicid", "kill myself", "kill himself"}),
    (r"^(?![\s\S]*(考试|工作))(?=[\s\S]*(怀孕|孕期))[\s\S]*出血", {"出血"}),  # of two needed, the fewer words
    (r"^(?![\s\S]*(考试|工作))(?=[\s\S]*(怀孕了|孕期))[\s\S]*血", {"怀孕了", "孕期"}),  # the longer (a lookahead's)
    (r"Chest (pain|pressure)", {"chest pain", "chest pressure"}),  # folded as the question is
    (r"(\d+|[一二两])个月", {"个月"}),
    (r"[一二两]个月", {"一个月", "二个月", "两个月"}),
    (r"a?b+c", {"b"}),
    (r"\bhelp\s*!", {"help"}),
    (r"(?x) chest \s+ pain", {"chest"}),  # verbose: the parser reads it; the longer word kept
])
def test_the_words_every_match_needs_are_read(pattern: str, words: set[str]) -> None:
    assert prefilter_of(pattern).words == words


@pytest.mark.parametrize("pattern", [r"\w+", r"(a|\d)x?", r"^(?![\s\S]*chest)", r"[ée]\d", r"(?<=é)\d", r"x*"])
def test_a_pattern_without_words_to_read_is_always_searched(pattern: str) -> None:
    prefilter = prefilter_of(pattern)
    assert prefilter.words is None and prefilter.may_match("")


@pytest.mark.parametrize(("pattern", "text"), [  # an attacker's: re reads each as literal text, regex does not
    (r"chest[[:space:]]pain", "chest pain"),  # a POSIX class
    (r"(?x) chest \s pains{ 0}", "chest pain"),  # a count with a space, in verbose mode
    (r"(?:chest pain){e<=2}", "chest pan"),  # fuzzy matching
    (r"(?:ab){s}", "xy"),
    ("\\\\{e}x", "ax"),  # an escaped backslash, then fuzzy
    ("\u019b", "\ua7dc"),  # letters regex's newer case tables pair, which Python's call caseless
    ("\u0264", "\ua7cb"),
])
def test_syntax_or_case_the_engines_read_differently_is_always_searched(pattern: str, text: str) -> None:
    assert regex.search(pattern, text, regex.IGNORECASE | regex.V0)
    assert prefilter_of(pattern).may_match(fold(text))


def test_a_question_without_any_of_the_words_cannot_match_and_one_with_them_may() -> None:
    prefilter = prefilter_of(r"^(?![\s\S]*laugh)[\s\S]*\b(sweat\w*|clammy|jaw|left arm|fainted|passing out)")
    assert prefilter.words is not None and len(prefilter.words) > 4  # searched as one alternation
    assert not prefilter.may_match(fold("my chest hurts when I sneeze"))
    assert prefilter.may_match(fold("Chest pain and CLAMMY"))
    kill = Prefilter(frozenset({"kill", "kiln", "slurr"}))
    assert kill.may_match(fold("Skill")) and kill.may_match(fold("a KILN")) and kill.may_match(fold("slurring"))
    assert not kill.may_match(fold("ki ll")) and not kill.may_match(fold("kilo")) and not kill.may_match(fold("slur"))


def _engine_twins() -> dict[str, str]:
    """What either engine matches, case-insensitively, to an ASCII letter outside ASCII: asked of every character
    (``regex``'s case tables are newer than Python's: what Python calls caseless may have a case there)."""
    engines = [lambda p, c: re.fullmatch(p, c, re.IGNORECASE), lambda p, c: regex.fullmatch(p, c, regex.I | regex.V0)]
    letters = [re.compile("[a-z]", re.IGNORECASE).fullmatch, regex.compile("[a-z]", regex.I | regex.V0).fullmatch]
    found = {}
    for point in range(0x80, 0x110000):
        char = chr(point)
        if any(letter(char) for letter in letters):
            found[char] = next(letter for letter in "abcdefghijklmnopqrstuvwxyz"
                               if any(engine(letter, char) for engine in engines))
    return found


def test_the_letters_the_engines_match_to_ascii_are_folded_to_it() -> None:
    assert _engine_twins() == TWINS
    pattern = compile_pattern(r"\bkill (myself|himself)\b")
    for question in ("KİLL MYSELF", "kıll myſelf", "\u212aILL HIMSELF"):  # before NFKC: the twins, as typed
        assert prefilter_of(pattern.pattern).may_match(fold(question))
    assert pattern.search("\u212aILL HIMSELF")


def _guard_patterns() -> list[tuple[str, str, int]]:
    """(where, source, flags) of every cue pattern and every pattern of a guard.yaml in the repository."""
    found = [(kind, p.pattern, p.flags) for kind, patterns in _COMPILED.items() for p in patterns]
    for path in sorted(ROOT.glob("**/guard.yaml")):
        if ".venv" in path.parts or "site-packages" in path.parts:
            continue
        for rule in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            for sources in (rule.get("patterns") or {}).values():
                found += [(f"{path.name}:{rule['id']}", compile_pattern(s).pattern, re.IGNORECASE) for s in sources]
    return found


def _guard_texts() -> list[str]:
    """Every rule's examples and near-misses, and every guard question labelled a red flag or a caution."""
    texts: set[str] = set()
    for path in [*ROOT.glob("**/guard.yaml"), *ROOT.glob("content/eval/guard*.yaml"), *ROOT.glob("benchmarks/guard/*.yaml")]:
        if ".venv" in path.parts:
            continue
        for item in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            if not isinstance(item, dict):
                continue
            for field in ("examples", "near_misses"):
                texts.update(t for ts in (item.get(field) or {}).values() for t in ts)
            if item.get("guard") in ("red_flag", "caution") and isinstance(item.get("question"), str):
                texts.add(item["question"])
    return sorted(normalize_question(t) for t in texts)


def test_no_pattern_is_skipped_on_a_guard_text_it_matches() -> None:
    """The property the guard relies on: over guard texts here, a pattern the prefilter skips matches nothing. A third
    of them (the test's time: 7 s); benchmarks/guard/prefilter_property.py checks every one."""
    patterns, texts = _guard_patterns(), _guard_texts()[::3]
    assert len(patterns) > 400 and len(texts) > 1000
    folded = [fold(text) for text in texts]
    skipped, wrong = 0, []
    for where, source, flags in patterns:
        prefilter, compiled = prefilter_of(source, flags), re.compile(source, flags)
        for text, text_folded in zip(texts, folded):
            if not prefilter.may_match(text_folded):
                skipped += 1
                if compiled.search(text):
                    wrong.append((where, source[:60], text[:60]))
    assert not wrong
    assert skipped > 0.9 * len(patterns) * len(texts)  # and it does skip: most patterns match nothing
