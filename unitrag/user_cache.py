"""The user-level cache for files unitrag derives from installed packages (model graphs, dictionaries).

``$UNITRAG_MODEL_CACHE``, else ``$XDG_CACHE_HOME/unitrag``, else ``~/.cache/unitrag``: never
the project's embedding cache, which belongs to one knowledge base.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

CACHE_ENV = "UNITRAG_MODEL_CACHE"


def cache_root() -> Path:
    """Where derived files live (not necessarily created yet)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "unitrag"


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename: a concurrent or interrupted
    writer leaves the old file or the new one, never half of one (and no temporary behind)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
