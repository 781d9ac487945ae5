"""The question as the knowledge base's own questions read it: exemplars for the gate, paraphrases for the answer.

The exemplars (rag.store.exemplars) are questions known to be answered or not: authors' unit questions and the
labelled dev questions. Retrieval marks how much nearer a question is to the answered ones (a gate input) and
which unit's author wrote it nearly word for word; the extractive answer reads it with the words of its nearest
answered paraphrases and of the other language's translations (``focus``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from ...content.text.lang import detect_lang
from ..types import Source, UserContext

if TYPE_CHECKING:
    from ..answer.focus import Lexicon, QuestionFocus
    from .crosslingual import CrossLingual
    from .query_embedding import QueryEncoder

#: The extractive answer reads a question with the words of up to this many of the knowledge base's own answerable
#: questions (authors' unit questions, dev questions) at this cosine or more: the bridge to a source in the other
#: language, whose words the question does not share (rag.answer.focus).
PARAPHRASES, PARAPHRASE_COSINE = 3, 0.85


class ExemplarReading:
    """``Retriever``'s reading of a question against the exemplars (a mixin: the fields are the retriever's)."""

    encoder: "QueryEncoder"
    crosslingual: "CrossLingual | None"
    exemplars: Any
    lexicon: Any
    full_lexicon: Any
    sparse_index: Any
    public_sparse: Any
    reads_restricted: Callable[[UserContext | None], bool]
    _sparse: Callable[[], Any]

    def authored_units(self, question: str, user: UserContext | None = None) -> tuple[str, ...]:
        """The units whose authors wrote ``question`` among their own (nearly word for word; ``Exemplars.authored_units``),
        nearest first: searched among the candidates and ranked first. The vector is cached."""
        if self.exemplars is None:
            return ()
        return self.exemplars.authored_units(self.encoder.encode(question), self.reads_restricted(user or UserContext()))

    def mark_exemplars(self, question: str, sources: list[Source], user: UserContext | None = None) -> None:
        """``scores["exemplar"]`` on every source: how much nearer the question is to questions the knowledge base
        answers than to ones it does not (rag.store.exemplars), a gate feature; and ``scores["authored"]``, its best
        cosine to an author's question of a unit, which answers it above ``AUTHORED_ANSWERS``. The vector is cached."""
        if self.exemplars is None or not sources:
            return
        found = self.exemplars.gate_scores(self.encoder.encode(question), self.reads_restricted(user))
        for source in sources:
            source.scores.update(found)

    @contextmanager
    def exemplars_without(self, texts: Sequence[str]) -> Iterator[None]:
        """Score with the exemplars but ``texts``: a dev set's own questions must not be their own neighbours
        (evaluation and calibration; not thread-safe, as neither needs it)."""
        kept = self.exemplars
        self.exemplars = kept.without(texts) if kept is not None else None
        try:
            yield
        finally:
            self.exemplars = kept

    def focus(self, question: str, user: UserContext | None = None) -> tuple[QuestionFocus, Lexicon]:
        """The question as the extractive answer reads it: its terms weighted by this knowledge base's idf,
        the topics it names (their names in both languages bridge a question and a source in different ones),
        and the topic the caller is reading (``current_topic``: "how much a day?" is about it)."""
        from ..answer.focus import Lexicon

        if self.lexicon is None or self.full_lexicon is None:
            self._sparse()
            topics = self.crosslingual.broadener.topics if self.crosslingual is not None else {}
            groups = self.crosslingual.broadener.groups if self.crosslingual is not None else {}
            names = {t: v for t, v in topics.items() if t not in groups}
            public = self.public_sparse
            # a term of the vocabulary no chunk holds now (an incremental build keeps the words of edited-away text)
            # is left out, as in a full build: it would weigh as the rarest word there is
            self.full_lexicon = Lexicon.of(self.sparse_index.vocab, self.sparse_index.idf, names,
                                           np.diff(self.sparse_index.indptr))
            self.lexicon = (self.full_lexicon if public is self.sparse_index
                            else Lexicon.of(public.vocab, public.idf, names, public.counts))
        lexicon = self.full_lexicon if self.reads_restricted(user) else self.lexicon
        named = self.crosslingual.topics_in(question) if self.crosslingual is not None else []
        if user is not None and user.current_topic and user.current_topic not in named:
            named = [*named, user.current_topic]
        said_otherwise: dict[str, float] = {}
        authored: tuple[str, ...] = ()
        translated: dict[str, float] = {}
        if self.exemplars is not None:  # the question as the knowledge base's own questions put it (the vector is cached)
            offsets = ({lang: self.crosslingual.offset(question, lang) for lang in self.crosslingual.langs}
                       if self.crosslingual is not None else None)
            vector, restricted = self.encoder.encode(question), self.reads_restricted(user)
            said_otherwise = self.exemplars.nearest_answered(vector, PARAPHRASES, PARAPHRASE_COSINE, restricted,
                                                             detect_lang(question), offsets)
            authored = self.exemplars.authored_units(vector, restricted)
            if authored:
                translated = self.exemplars.translations(vector, authored[0], detect_lang(question), restricted)
        return lexicon.focus(question, named, said_otherwise, authored, translated), lexicon
