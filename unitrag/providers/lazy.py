"""Models that load on first use, exactly once, even when several threads ask at once.

Opening a knowledge base or planning a build must not pay for torch; the first
real call does, and only one thread loads while the others wait for it.
"""

from __future__ import annotations

import threading
from typing import Any

_LOAD_LOCK = threading.RLock()  # loads are rare: one lock for all of them keeps this simple


class LazyModel:
    _model: Any = None

    def _open(self) -> Any:
        """Load and return the model (the subclass's one job here)."""
        raise NotImplementedError

    def _loaded(self, model: Any) -> None:
        """Called once, right after loading: read what only the loaded model knows."""

    def _load(self) -> Any:
        if self._model is None:
            with _LOAD_LOCK:
                if self._model is None:
                    model = self._open()
                    self._loaded(model)
                    self._model = model
        return self._model
