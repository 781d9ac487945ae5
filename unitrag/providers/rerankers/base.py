"""The reranker interface: one abstract method, plus what callers need to know about the scores."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

_CITE = re.compile(r"<Cite\b[^>]*/>")


class Reranker(ABC):
    """Scores (question, passage) pairs; higher is more relevant.

    ``sources`` are the runtime's ``Source`` objects (title, text, and the scores of the
    earlier stages in ``.scores``), or plain strings: providers only need ``passage``.
    ``id`` names the provider and model, as in the config string that selected it.
    """

    provider: ClassVar[str]
    #: True when scores are comparable across questions (probabilities), so that a fixed
    #: answerability threshold on the top score means the same thing for every question.
    calibrated: ClassVar[bool] = False

    def __init__(self, model: str = "") -> None:
        self.model = model

    @property
    def id(self) -> str:
        return f"{self.provider}:{self.model}" if self.model else self.provider

    @abstractmethod
    def score(self, question: str, sources: Sequence[Any]) -> list[float]:
        """One score per source, in the order given (the caller sorts)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id}>"


def source_field(source: Any, name: str) -> Any:
    """A field of a source a reranker is given: a ``Source``, a dict of its fields, or a bare passage
    (which has none)."""
    if isinstance(source, str):
        return None
    return source.get(name) if isinstance(source, dict) else getattr(source, name, None)


def passage(source: Any) -> str:
    """The text a reranker reads for one source: ``title\\ntext`` without ``<Cite/>`` tags."""
    if isinstance(source, str):
        return source
    title, text = source_field(source, "title") or "", source_field(source, "text") or ""
    text = _CITE.sub("", text)
    return f"{title}\n{text}" if title and not text.startswith(title) else text


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
