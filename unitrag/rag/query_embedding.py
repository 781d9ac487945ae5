"""Query vectors with the artifact's own embedder, behind a small thread-safe LRU cache.

Apps ask the same questions again and again (suggested questions, retries); the
cache turns those into a dictionary lookup.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from ..errors import UserError
from ..providers.embedders import Embedder, load_embedder


class QueryEncoder:
    def __init__(self, embedder: Embedder, capacity: int = 1024) -> None:
        self.embedder = embedder
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    @classmethod
    def for_manifest(cls, manifest: dict, embedder: Embedder | None = None) -> "QueryEncoder":
        """The encoder matching the artifact; a different embedder is refused, not silently used."""
        expected = manifest["embedder"]["id"]
        if embedder is None:
            embedder = load_embedder(expected)
        elif embedder.id != expected:
            raise UserError(
                f"embedder mismatch: the artifact was built with {expected!r} but {embedder.id!r} was given; "
                "query vectors of another model are not comparable (rebuild the artifact or drop the override)"
            )
        return cls(embedder)

    def warm(self, texts: list[str]) -> None:
        """Embed ``texts`` now, and keep room for all of them (an evaluation re-asks each once per variant)."""
        with self._lock:
            self._capacity = max(self._capacity, len(texts) + 1024)
        for text in texts:
            self.encode(text)

    def encode(self, text: str) -> np.ndarray:
        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
        vector = self.embedder.embed_queries([text])[0]
        with self._lock:
            self._cache[text] = vector
            if len(self._cache) > self._capacity:
                self._cache.popitem(last=False)
        return vector
