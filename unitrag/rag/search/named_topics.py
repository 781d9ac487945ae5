"""The topics a question names, as retrieval reads them: the gate's ``topic`` and ``gap`` inputs and the boosts' weights.

A topic is named in either language (its names and synonyms, ``crosslingual.topics_in``); it weighs by how few
chunks carry it (idf), counted over what the caller may read, so a public caller's weights never move with the
restricted units, and a topic only restricted units carry is, for the public, a declared gap.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

import numpy as np

from ..store.columns import Column, list_value_counts
from ..types import Source, UserContext
from .postprocess import in_context

if TYPE_CHECKING:
    from ..store.artifact_store import ChunkStore
    from .crosslingual import CrossLingual


class NamedTopics:
    """``Retriever``'s reading of the topics a question names (a mixin: the fields are the retriever's)."""

    store: "ChunkStore"
    crosslingual: "CrossLingual | None"
    topic_idf: dict[str, float] | None
    public_topic_idf: dict[str, float] | None
    covered: Callable[[Collection[str]], Collection[str]] | None
    reads_restricted: Callable[[UserContext | None], bool]

    def mark_topics(self, question: str, sources: list[Source], user: UserContext | None = None) -> None:
        """``scores["topic"]``: 1 when a source is on what the question is about, whatever its language.

        That is: it shares a topic the question names, or the caller's context points at it (the
        current topic, a triggered rule, a recent scene: "is that safe?" refers to them). A gate feature.
        ``scores["gap"]``: 1 on every source when the question names a topic no chunk carries, one the
        taxonomy lists so that it is known to be missing ("zinc", "caffeine"). Another gate feature. A topic only units
        the caller may not read carry is, for that caller, one no chunk carries: the score cannot tell it exists.
        """
        if self.crosslingual is None:
            return
        named = set(self.crosslingual.topics_in(question))
        user = user or UserContext()
        carried = self._carried(user)
        gap = float(any(t not in carried for t in named))
        for source in sources:
            source.scores["topic"] = float(bool(named.intersection(source.topics)) or in_context(source, user))
            source.scores["gap"] = gap

    def _topic_idf(self) -> dict[str, float]:
        if self.topic_idf is None:  # once (a benign race: both threads count the same)
            self.topic_idf = topic_idf(self.store)
        return self.topic_idf

    def _public_topic_idf(self) -> dict[str, float]:
        """``topic_idf`` over the public chunks: a public caller's named-topic weights must not move with how many
        restricted chunks carry a topic (as BM25's statistics, ``sparse_terms``)."""
        if self.public_topic_idf is None:
            public = self.store.mask(restricted=False)
            self.public_topic_idf = self._topic_idf() if public is None or public.all() else topic_idf(self.store, public)
        return self.public_topic_idf

    def _carried(self, user: UserContext) -> Collection[str]:
        """The topics a chunk ``user``'s roles may read carries: the others are, for that caller, declared gaps."""
        return self._topic_idf().keys() if self.covered is None else self.covered(user.roles)

    def named_topics(self, question: str, user: UserContext) -> dict[str, float]:
        """The topics the question names, each weighted by how few chunks carry it (idf, normalised to sum 1);
        none for a question about the user's context (``focused``: that context ranks first instead)."""
        if self.crosslingual is None or self.focused(question, user):
            return {}
        named = self.crosslingual.topics_in(question)
        if not named:
            return {}
        idf = self._topic_idf() if self.reads_restricted(user) else self._public_topic_idf()
        carried = self._carried(user)
        weights = {t: idf.get(t, 0.0) if t in carried else 0.0 for t in named}  # a hidden topic weighs as a gap does
        total = sum(weights.values())
        return {t: w / total for t, w in weights.items()} if total > 0 else {}

    def focused(self, question: str, user: UserContext) -> bool:
        """The question is about the user's context: it has one, and the question names no topic beyond its current one."""
        if not user.has_context or self.crosslingual is None:
            return False
        return not set(self.crosslingual.topics_in(question)) - {user.current_topic}



def topic_idf(store: "ChunkStore", keep: np.ndarray | None = None) -> dict[str, float]:
    """log(chunks / chunks carrying the topic) per topic, counted in Arrow (a few ms at 100k chunks); with ``keep``,
    over the rows it marks only."""
    column = store.columns["topics"]
    if keep is None:
        return {topic: math.log(len(store) / count) for topic, count in list_value_counts(column).items()}
    import pyarrow as pa
    import pyarrow.compute as pc

    kept = Column(pc.filter(column.array, pa.array(keep)))
    return {topic: math.log(int(keep.sum()) / count) for topic, count in list_value_counts(kept).items()}
