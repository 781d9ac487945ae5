"""The embedder interface: one abstract method, plus the capabilities the build needs."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np


class Embedder(ABC):
    """Turns texts into L2-normalised float32 vectors.

    ``id`` is what the artifact's manifest records: a different id means every
    chunk is embedded again, because vectors from two models are not comparable.
    """

    provider: ClassVar[str]
    #: The model's input limit in tokens; the chunker keeps chunks under it.
    max_tokens: ClassVar[int] = 512

    def __init__(self, model: str) -> None:
        self.model = model

    @property
    def id(self) -> str:
        return f"{self.provider}:{self.model}"

    @property
    @abstractmethod
    def dim(self) -> int:
        """Vector dimension (may load the model)."""

    @abstractmethod
    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        """Vectors of shape (len(texts), dim); ``query`` selects the model's query prefix."""

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts, query=False)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts, query=True)


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Unit-length float32 rows, so a dot product is the cosine similarity."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(vectors / norms)
