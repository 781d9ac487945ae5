"""``none``: no second stage; the first-stage order and scores pass through unchanged."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .base import Reranker


class NoReranker(Reranker):
    provider = "none"

    def __init__(self, model: str = "") -> None:
        super().__init__("")

    def score(self, question: str, sources: Sequence[Any]) -> list[float]:
        """Each source's current score (``.score``), or a descending rank score for plain strings."""
        n = len(sources)
        return [float(getattr(s, "score", n - i)) for i, s in enumerate(sources)]
