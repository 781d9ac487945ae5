"""Query vectors with the artifact's own embedder, behind a small thread-safe LRU cache.

Apps ask the same questions again and again (suggested questions, retries); the
cache turns those into a dictionary lookup. What is embedded is clipped to the
model's input window: text past it would not be seen by a model trained on that
window, and the default embedder's cost grows with the input (under a lock every
query shares), so one long question must not stall the others.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from ...compiler.tokens import estimate_tokens  # the compiler package's names load lazily: this imports tokens alone
from ...errors import UserError
from ...providers.embedders import Embedder, load_embedder


def within_window(text: str, max_tokens: int) -> str:
    """The longest start of ``text`` whose estimated token count fits ``max_tokens`` (``text`` itself when it fits).

    The estimate (``unitrag.compiler.tokens``) runs above the real count, so the start stays
    inside the window; a binary search over prefixes, each estimated in linear time.
    """
    if estimate_tokens(text) <= max_tokens:
        return text
    low, high = 0, len(text)  # estimate(text[:low]) fits, estimate(text[:high]) does not
    while high - low > 1:
        middle = (low + high) // 2
        if estimate_tokens(text[:middle]) <= max_tokens:
            low = middle
        else:
            high = middle
    return text[:low]


_LOADED: dict[str, Embedder] = {}
_LOADING = threading.Lock()


def shared_embedder(spec: str) -> Embedder:
    """The process's one embedder for ``spec``, loaded on first use: an app that reopens its knowledge base after
    each rebuild loaded the model again every time (~3-4 MB the old one never gave back, and ~0.8 s), where one
    model serves every knowledge base built with it (read-only, thread-safe, as a server's reload already shares it)."""
    with _LOADING:
        if spec not in _LOADED:
            _LOADED[spec] = load_embedder(spec)
        return _LOADED[spec]


class QueryEncoder:
    def __init__(self, embedder: Embedder, capacity: int = 1024) -> None:
        self.embedder = embedder
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self.capacity = capacity
        self._lock = threading.Lock()

    @classmethod
    def for_manifest(cls, manifest: dict, embedder: Embedder | None = None) -> "QueryEncoder":
        """The encoder matching the artifact; a different embedder is refused, not silently used."""
        expected = manifest["embedder"]["id"]
        if embedder is None:
            embedder = shared_embedder(expected)
        elif embedder.id != expected:
            raise UserError(
                f"embedder mismatch: the artifact was built with {expected!r} but {embedder.id!r} was given; "
                "query vectors of another model are not comparable (rebuild the artifact or drop the override)"
            )
        return cls(embedder)

    def warm(self, texts: list[str]) -> None:
        """Embed ``texts`` now, and keep room for all of them (an evaluation re-asks each once per variant)."""
        with self._lock:
            self.capacity = max(self.capacity, len(texts) + 1024)
        for text in texts:
            self.encode(text)

    def cache_size(self) -> int:
        return len(self._cache)

    def encode(self, text: str) -> np.ndarray:
        return self.encode_many([text])[0]

    def encode_many(self, texts: list[str]) -> list[np.ndarray]:
        """One vector per text; those not cached are embedded in one batch (the guard's sentences)."""
        texts = [within_window(text, self.embedder.max_tokens) for text in texts]
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for text in texts:
                hit = self._cache.get(text)
                if hit is not None:
                    self._cache.move_to_end(text)
                    found[text] = hit
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            vectors = self.embedder.embed_queries(missing)
            with self._lock:
                for text, vector in zip(missing, vectors):
                    found[text] = self._cache[text] = vector
                while len(self._cache) > self.capacity:
                    self._cache.popitem(last=False)
        return [found[text] for text in texts]
