"""A question as retrieval reads it: its spelling, its Han script, its broadening and its probes.

Before anything ranks, a misspelled topic word is read as the knowledge base writes it ("colesterol"), a
traditional-script question in the content's script, a broad question as its sub-queries, and the probes
into the other language and the caller's context are chosen. ``search`` runs what this reads, and ``unitrag
eval`` reads each labelled question the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..config import Config
from .arguments import question_text
from .search.crosslingual import Probe
from .timing import timed
from .types import UserContext

#: How many Chinese chunks' titles tell the script of a knowledge base's Chinese (``in_content_script``).
TITLES_FOR_SCRIPT = 200


@dataclass(frozen=True)
class Reading:
    """A question as retrieval reads it, before any ranking: what ``search`` runs, and ``unitrag eval`` with it."""

    corrected: str  # misspelled topic words corrected (``search.spelling``); the question itself when none was
    text: str  # ``corrected`` in the content's Han script: what is embedded, matched and reranked
    lang: str  # the language of the question as asked
    broadened: list[str] | None  # the sub-queries of a broad question (``search.broaden``), else None
    probes: list[Any]  # the cross-lingual and user-context searches (``Retriever.probes``)
    #: The units whose authors wrote this question among their own (``Retriever.authored_units``): ranked first.
    authored: tuple[str, ...] = ()

    @property
    def queries(self) -> list[str]:
        return [self.text, *(self.broadened or [])]


class QuestionReading:
    """``KnowledgeBase``'s reading of a question (a mixin: the fields are the knowledge base's)."""

    store: Any
    config: Config
    broadener: Any
    retriever: Any
    guard: Any
    _speller: Any
    _guard_speller: Any
    _traditional: bool | None
    _open_or_raise: Callable[[], None]

    def read(self, question: str, user: UserContext, timings: dict[str, float] | None = None) -> Reading:
        """``question`` (already checked) as retrieval reads it: spelling, script, broadening, probes."""
        from ..content.text.lang import detect_lang

        timings = {} if timings is None else timings
        lang = detect_lang(question)
        with timed(timings, "spelling"):
            corrected = self.corrected(question)
            text = self.in_content_script(corrected)
        with timed(timings, "broaden"):
            broadening = self.broadener.expand(text, lang)
        probes = self.retriever.probes(text, lang, user, timings)
        authored = self.retriever.authored_units(text, user)
        if authored:  # their chunks are candidates whatever the first stage ranks (``postprocess`` puts them first)
            probes = [*probes, Probe(text, "authored", units=authored)]
        return Reading(corrected, text, lang, list(broadening.queries) if broadening else None, probes, authored)

    def corrected(self, question: str) -> str:
        """``question`` as retrieval reads it: a misspelled topic word replaced by the knowledge base's own
        (``search.spelling``: "colesterol" → "cholesterol"); the question itself when it has none. Checked as
        ``search`` checks it (a string, at most ``max_question_chars``): the speller's work grows with its length."""
        self._open_or_raise()
        question = question_text(question, self.config.max_question_chars)
        if self._speller is None:  # a benign race: two threads make the same speller
            from .search.spelling import Speller

            self._speller = Speller.from_topics(self.store.topics, self.retriever.sparse_terms().chunk_count)
        corrected: str = self._speller.correct(question)
        return corrected

    def _guard_spelling(self, question: str) -> str:
        """``question`` with misspelled emergency words read as the guard's examples write them
        (``search.spelling.Speller.from_examples``)."""
        if self.guard.semantic is None:
            return question
        if self._guard_speller is None:  # a benign race, as for ``corrected``
            from .search.spelling import Speller

            self._guard_speller = Speller.from_examples(self.guard.semantic.example_texts(),
                                                        self.retriever.sparse_terms().chunk_count)
        spelled: str = self._guard_speller.correct(question)
        return spelled

    def in_content_script(self, question: str) -> str:
        """``question`` in the Han script of this knowledge base's Chinese, for retrieval: 檢查 read as 检查 when the
        units say 检查. The lexical matchers fold anyway; this lets the embedder see the content's script too. A
        knowledge base written in traditional characters gets questions as asked."""
        from ..content.text.han_script import to_simplified, written_in_traditional

        if self._traditional is None:  # a benign race: two threads reach the same answer
            titles = self.store.columns["title"]  # the public units' titles: a restricted one must not flip it for all
            rows = np.flatnonzero(self.store.mask(restricted=False, lang="zh"))[:TITLES_FOR_SCRIPT]
            self._traditional = written_in_traditional([str(titles[int(row)]) for row in rows])
        return question if self._traditional else to_simplified(question)
