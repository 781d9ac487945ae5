"""Cross-lingual probes: extra first-stage searches that reach units written in the other language.

The sample knowledge base covers each topic in one language only, and multilingual-e5
scores a question against passages of its own language higher than against the
other language's, so dense, BM25 and the reranker all stay inside the question's
language. Each probe here is one more candidate list for reciprocal-rank fusion
(rank-based, so the cross-lingual cosine gap cannot keep a list out):

* ``expand``: the taxonomy's names, in the other language, of the topics the question
  mentions (``content/topics.yaml`` names and synonyms in both languages): a query the
  other language's passages match, for the dense and the BM25 arm;
* ``route``: the question itself, dense only, among the chunks of the topics it mentions
  (any language), so the right topic's units are candidates whatever their language;
* ``pool``: the question, dense only, among the other language's chunks alone: a
  per-language candidate pool, for questions that name no topic;
* ``current topic``: with ``UserContext.current_topic`` set, the question among that
  topic's chunks (any language), so a generic question reaches the topic being viewed; the
  current topic also counts as named for ``expand`` and ``route`` (its names in the other
  language), and when the question names no other topic its sources rank first
  (``postprocess.focus``).
* ``context``: the rules a user's report triggered and the scenes they read recently, so a
  follow-up ("is that safe?") reaches them in whatever language they are written.

Scores from these lists are corrected per (query language, chunk language) pair
(:data:`DEFAULT_LANG_OFFSETS`, refitted by ``unitrag calibrate``) before fusion,
reranking and the gate see them. Measured on the dev questions: docs/benchmarks/quality.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .broaden import Broadener
from ...content.text.lang import detect_lang, normalize_question

#: Added to a dense cosine of a query in language A against a chunk in language B
#: ("A>B"): multilingual-e5 scores cross-language pairs lower than same-language ones.
#: Measured on the sample's dev questions (median best-answer cosine, same vs cross);
#: ``unitrag calibrate`` refits them and stores them with the gate.
DEFAULT_LANG_OFFSETS: dict[str, float] = {"en>zh": 0.03, "zh>en": 0.03}

OTHER = {"en": "zh", "zh": "en"}
#: Questions whose named topics are remembered (least recently used dropped).
TOPICS_REMEMBERED = 256


@dataclass(frozen=True)
class Probe:
    """One extra first-stage search: ``text`` among the chunks of ``lang`` / ``topics`` (None / (): no narrowing)."""

    text: str
    why: str  # expand | route | pool | topic | context | authored | translate (rag.search.translate)
    lang: str | None = None
    topics: tuple[str, ...] = ()
    dense: bool = True
    sparse: bool = False
    units: tuple[str, ...] = ()  # "context": exactly these units' chunks (scored by the question's cosine)


@dataclass
class CrossLingual:
    """Which probes a question gets; each mechanism can be switched off (evaluation, tests)."""

    broadener: Broadener
    langs: frozenset[str]  # languages the knowledge base holds
    expand: bool = True
    route: bool = True
    pool: bool = True
    current_topic: bool = True
    context: bool = True
    offsets: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_LANG_OFFSETS))
    #: ``_named`` remembered for the last questions: one search asks for a question's topics up to five times
    #: (probes, focus, topic marks, named-topic boosts), each a pass of every topic's regex.
    _recent: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._recent = lru_cache(maxsize=TOPICS_REMEMBERED)(self._named)

    @classmethod
    def from_rows(cls, topics: Iterable[Mapping[str, object]], langs: Iterable[str]) -> "CrossLingual":
        return cls(Broadener.from_rows(list(topics)), frozenset(str(x) for x in langs))

    def topics_in(self, question: str) -> list[str]:
        """Ids of the (non-group) topics the question names, in order of first mention."""
        return list(self._recent(question))

    def _named(self, question: str) -> tuple[str, ...]:
        text = normalize_question(question)
        found: list[tuple[int, str]] = []
        for topic_id, topic in self.broadener.topics.items():
            if topic_id in self.broadener.groups or topic.mention is None:
                continue
            match = topic.find(text)
            if match:
                found.append((match.start(), topic_id))
        return tuple(t for _, t in sorted(found))

    def probes(
        self, question: str, q_lang: str, current_topic: str | None = None, context_units: tuple[str, ...] = ()
    ) -> list[Probe]:
        """The extra searches for ``question`` (asked in ``q_lang``); only the user's for a one-language knowledge base."""
        other = OTHER.get(q_lang)
        probes: list[Probe] = []
        if self.current_topic and current_topic:
            probes.append(Probe(question, "topic", topics=(current_topic,)))
        if self.context and context_units:
            probes.append(Probe(question, "context", units=tuple(context_units)))
        if other is None or other not in self.langs:
            return probes
        topics = self.topics_in(question)
        if self.current_topic and current_topic and current_topic not in topics:
            topics = [*topics, current_topic]  # "how much a day?" on the folate page: its names and chunks, both languages
        if self.expand and topics:
            names = [str(self.broadener.topics[t].names.get(other) or "") for t in topics]
            text = " ".join(n for n in names if n)
            if text:
                probes.append(Probe(text, "expand", lang=other, sparse=True))
        if self.route and topics and topics != [current_topic]:  # else the "topic" probe is this search
            probes.append(Probe(question, "route", topics=tuple(topics)))
        if self.pool:
            probes.append(Probe(question, "pool", lang=other))
        return probes

    def offset(self, query: str, chunk_lang: str) -> float:
        """The correction for a cosine of ``query`` against a chunk in ``chunk_lang`` (0 for the same language)."""
        q_lang = detect_lang(query)
        return 0.0 if q_lang == chunk_lang else self.offsets.get(f"{q_lang}>{chunk_lang}", 0.0)
