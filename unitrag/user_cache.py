"""The user-level cache for files unitrag derives from installed packages (model graphs, dictionaries).

``$UNITRAG_MODEL_CACHE``, else ``$XDG_CACHE_HOME/unitrag``, else ``~/.cache/unitrag``: never
the project's embedding cache, which belongs to one knowledge base.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "UNITRAG_MODEL_CACHE"


def cache_root() -> Path:
    """Where derived files live (not necessarily created yet)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "unitrag"
