"""A misspelled topic word read as the knowledge base's own before retrieval: "colesterol" → "cholesterol".

Readers type fast: "colesterol", "pregant", "how do i know when my chian is worn". Every
lexical matcher then misses: BM25 has no such term, no topic is named, and the answerability
gate, which counts a named topic, says "not found" about a subject the knowledge base covers.
The dense model reads a misspelling worse too.

So the question retrieval reads has such a word replaced by a word of the knowledge base's
topic names and synonyms one edit away (a letter dropped, added or changed, or two neighbours
swapped), when all of these hold:

* the word is Latin letters only, 5+ of them (4 for a swap: "iorn");
* the knowledge base does not know it: no chunk term and no topic word is it or its stem;
* it is not an English word in common use (``COMMON``+ occurrences in pyspellchecker's English
  frequency list, or a contraction typed without its apostrophe: "dont", "thats"), so "tired" is
  never read as "tires" nor "chair" as "chain";
* among the candidates, a swap wins, then the word more chunks carry.

Only topic words are targets: they are what the gate and the topic boosts read, and a knowledge
base lists the words its readers use there. Chinese is left as it is (its typos are homophones
that an input method chose, another problem). The answer still shows the question as asked;
``SearchResult.corrected`` and ``Answer.corrected`` say how it was read.

The English list (about 0.5 s and 20 MB) loads on the first question that has a candidate, never
for one whose words are all known.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ...content.text.tokenize import stem_words

#: An English word seen at least this often in pyspellchecker's frequency list is never corrected.
COMMON = 100
#: The shortest word corrected by a dropped, added or changed letter; a swap corrects 4-letter words.
MIN_LETTERS = 5
_WORD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{4,}(?![A-Za-z0-9])")
_TARGET_WORD = re.compile(r"[A-Za-z]{4,}")
#: Contractions typed without their apostrophe: words, not typos.
CONTRACTIONS = frozenset(
    "dont cant wont isnt arent wasnt werent doesnt didnt hasnt havent hadnt couldnt shouldnt wouldnt mustnt "
    "thats theres whats hows wheres whos shes youre theyre weve youve theyve ive ill im lets".split()
)

_english_lock = threading.Lock()
_english: Any = None


def english_count(word: str) -> int:
    """How often ``word`` occurs in pyspellchecker's English frequency list (0: not an English word there)."""
    global _english
    if _english is None:
        with _english_lock:
            if _english is None:
                from spellchecker import SpellChecker

                _english = SpellChecker(language="en", distance=1).word_frequency
    return int(_english[word])


def edit_kind(typed: str, target: str) -> bool | None:
    """True: ``target`` is ``typed`` with two neighbours swapped; False: with one letter dropped, added or changed;
    None: neither (or the same word)."""
    if len(typed) == len(target):
        diffs = [i for i, (a, b) in enumerate(zip(typed, target)) if a != b]
        if len(diffs) == 1:
            return False
        if len(diffs) == 2 and diffs[1] == diffs[0] + 1 and typed[diffs[0]] == target[diffs[1]] \
                and typed[diffs[1]] == target[diffs[0]]:
            return True
        return None
    shorter, longer = sorted((typed, target), key=len)
    return False if len(longer) == len(shorter) + 1 and shorter in _deletes(longer) else None


def _deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1:] for i in range(len(word))}


class Speller:
    """The topic words of one knowledge base and how many chunks carry each stem."""

    def __init__(self, topic_words: Iterable[str], chunk_count: Callable[[str], int],
                 is_common: Callable[[str], bool] = lambda w: english_count(w) >= COMMON) -> None:
        self.targets = frozenset(w.lower() for w in topic_words)
        self._stems = frozenset(stem_words(sorted(self.targets)))
        # every target under itself and each of its one-letter deletions: a word one edit from a target shares a key
        # with it, so a typed word costs its own deletions to look up, not every string one edit from it
        self._near: dict[str, set[str]] = {}
        for target in self.targets:
            for key in _deletes(target) | {target}:
                self._near.setdefault(key, set()).add(target)
        self._chunk_count = chunk_count
        self._is_common = is_common

    @classmethod
    def from_topics(cls, topics: Iterable[Mapping[str, Any]], chunk_count: Callable[[str], int]) -> "Speller":
        """From the artifact's topic rows (names and synonyms of both languages: a Chinese list may hold "PSI")."""
        words = set()
        for topic in topics:
            forms = [topic.get("name_en"), topic.get("name_zh"), *(topic.get("synonyms_en") or []),
                     *(topic.get("synonyms_zh") or [])]
            words.update(w.lower() for form in forms if form for w in _TARGET_WORD.findall(form))
        return cls(words, chunk_count)

    @classmethod
    def from_examples(cls, texts: Iterable[str], chunk_count: Callable[[str], int]) -> "Speller":
        """The guard's speller: its targets are the words of the guard rules' examples, so a misspelled emergency
        word ("chest presure and short of breth") is read as the examples write it by the patterns and the framing
        (``guard.screen``). A word the chunks carry is never corrected; among candidates the word more examples use
        wins (after a swap), as a topic word more chunks carry does."""
        words = [w.lower() for text in texts for w in set(_TARGET_WORD.findall(text))]
        in_examples = Counter(stem_words(words))
        return cls(set(words), lambda stem: chunk_count(stem) or in_examples[stem])

    def correct(self, question: str) -> str:
        """``question`` with each misspelled topic word replaced (see the module docstring); itself when none is."""
        if not self.targets:
            return question
        return _WORD.sub(lambda m: self._word(m.group()), question)

    def _word(self, typed: str) -> str:
        word = typed.lower()
        [stem] = stem_words([word])
        if word in self.targets or stem in self._stems or self._chunk_count(stem) or word in CONTRACTIONS:
            return typed
        near = {target for key in _deletes(word) | {word} for target in self._near.get(key, ())}
        kinds = [(edit_kind(word, target), target) for target in near]  # the choice below breaks ties by word
        candidates = [(swap, c) for swap, c in kinds if swap is not None and (swap or len(word) >= MIN_LETTERS)]
        if not candidates or self._is_common(word):
            return typed
        _, best = max(candidates, key=lambda sc: (sc[0], self._chunk_count(stem_words([sc[1]])[0]), sc[1]))
        return best.capitalize() if typed[0].isupper() else best
