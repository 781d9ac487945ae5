"""What a search and an answer hand back: plain dataclasses with the JSON shape the CLI and HTTP print.

They sit apart from the knowledge base that makes them so the answer stream, the server and the
evaluation can name them without importing the runtime's wiring.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .timing import rounded
from .types import FaithfulnessReport, GuardOutcome, ResolvedCitation, Source


@dataclass
class SearchResult:
    question: str
    lang: str
    sources: list[Source]
    timings_ms: dict[str, float] = field(default_factory=dict)
    broadened: list[str] | None = None
    #: The question as retrieval read it, misspelled topic words corrected (``search.spelling``); None: as asked.
    corrected: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question, "lang": self.lang, "broadened": self.broadened, "corrected": self.corrected,
            "sources": [s.to_dict() for s in self.sources], "timings_ms": rounded(self.timings_ms),
        }


@dataclass
class Answer:
    question: str
    lang: str
    answer: str
    not_found: bool
    guard: GuardOutcome | None
    sources: list[Source]
    citations: list[ResolvedCitation]
    faithfulness: FaithfulnessReport | None
    extractive: bool = False
    llm_error: str | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    broadened: list[str] | None = None
    llm_calls: int = 0  # 2: the first answer cited ids not in the sources and was sent back once
    #: ``llm_error`` in one fixed word (generate.ErrorKind): what an HTTP caller gets; ``llm_error`` itself, the
    #: operator's line (secrets masked), stays with trusted callers (the CLI, the Python API) and the server log.
    llm_error_kind: str | None = None
    #: A red flag the question's framing made a note (``GuardOutcome`` of type caution): answered normally, and
    #: ``caution.response`` is the safety line to show with the answer. ``guard`` stays None (nothing stopped it).
    caution: GuardOutcome | None = None
    #: An extractive answer: the units it quotes. None for an LLM's answer (its text marks citations, not units).
    quoted_units: list[str] | None = None
    #: The question as retrieval read it, misspelled topic words corrected (``search.spelling``); None: as asked.
    corrected: str | None = None
    #: What the answerability gate read and decided (``AnswerabilityGate.reading``), for its author to see why a question
    #: was answered "not found", or answered (a new team could not tell why "Can you recommend a good hotel?" was
    #: answered); None when no gate decided (no sources, a guard's or small talk's reply, no gate for the pipeline).
    gate: dict[str, Any] | None = None

    @property
    def cited_units(self) -> list[str]:
        """The units the answer rests on, in source order: those an extractive answer quotes; for an LLM's answer,
        the sources carrying a citation its text marks (the other sources were retrieved, but not used)."""
        if self.quoted_units is not None:
            quoted = set(self.quoted_units)
            return list(dict.fromkeys(s.unit_id for s in self.sources if s.unit_id in quoted))
        cited = {c.id for c in self.citations}
        return list(dict.fromkeys(s.unit_id for s in self.sources if cited.intersection(s.citation_ids)))

    def to_dict(self) -> dict[str, Any]:
        shown = self.guard or self.caution  # JSON callers read one field: type red_flag, out_of_scope or caution
        return {
            "question": self.question, "lang": self.lang, "answer": self.answer, "not_found": self.not_found,
            "guard": shown.to_dict() if shown else None,
            "sources": [s.to_dict() for s in self.sources], "cited_units": self.cited_units,
            "citations": [c.to_dict() for c in self.citations],
            "faithfulness": self.faithfulness.to_dict() if self.faithfulness else None,
            "extractive": self.extractive, "llm_error": self.llm_error, "llm_error_kind": self.llm_error_kind,
            "llm_calls": self.llm_calls,
            "broadened": self.broadened, "corrected": self.corrected, "gate": self.gate,
            "timings_ms": rounded(self.timings_ms),
        }
