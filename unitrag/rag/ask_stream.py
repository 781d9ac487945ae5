"""An answer as it is written: sources first, then the text piece by piece, then the checked answer.

``KnowledgeBase.ask_stream`` returns one. Iterating it yields the answer's pieces; once
they are exhausted ``answer`` holds the same ``Answer`` that ``ask`` returns (citation
check, resolved citations, timings). A guard response or "not found" is finished from
the start: it yields its whole text once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from .types import Source

if TYPE_CHECKING:
    from .answer.generate import AnswerStream, Generation
    from .results import Answer


class AskStream(Iterator[str]):
    """The pieces of one answer; ``sources`` before the first, ``answer`` after the last."""

    def __init__(
        self, question: str, lang: str, sources: list[Source], broadened: list[str] | None,
        pieces: "AnswerStream | None", timings: dict[str, float],
        finish: "Callable[[Generation], Answer] | None", answer: "Answer | None" = None,
    ) -> None:
        self.question = question
        self.lang = lang
        self.sources = sources
        self.broadened = broadened
        self.answer: Answer | None = answer
        self._pieces = pieces
        self._timings = timings
        self._finish = finish
        self._pending = [answer.answer] if answer is not None else []
        self._generating = 0.0  # seconds spent inside the LLM stream (the "generate" timing)

    @classmethod
    def finished(cls, answer: "Answer") -> "AskStream":
        """A stream for an answer that needed no LLM (guard, not found): one piece, the whole text."""
        return cls(answer.question, answer.lang, answer.sources, answer.broadened, None, answer.timings_ms, None, answer)

    def __iter__(self) -> "AskStream":
        return self

    def __next__(self) -> str:
        if self._pending:
            return self._pending.pop()
        if self._pieces is None:
            raise StopIteration
        started = time.perf_counter()
        try:
            return next(self._pieces)
        except StopIteration:
            generation = self._pieces.generation
            self._pieces = None
            assert generation is not None and self._finish is not None
            self._timings["generate"] = self._timings.get("generate", 0.0) + self._elapsed_ms(started)
            self.answer = self._finish(generation)
            raise
        finally:
            if self._pieces is not None:
                self._generating += time.perf_counter() - started

    def _elapsed_ms(self, started: float) -> float:
        return (self._generating + time.perf_counter() - started) * 1000

    def close(self) -> None:
        """Stop early (the client went away): the LLM stream is closed with it; ``answer`` stays None."""
        if self._pieces is not None:
            self._pieces.close()
            self._pieces = None
