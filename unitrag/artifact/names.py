"""The names of the files a build keeps beside the artifact (temporaries, the build lock): always legal names.

``kb.duckdb.tmp-<pid>-<8 hex>.wal`` is 25 bytes longer than the artifact's name, so an artifact name of 231–255
bytes (legal) would give a temporary no file system takes. Such an artifact's files beside it are named after a
short hash of its name instead.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..config import NAME_MAX

#: The most bytes a build adds to the stem of a file beside the artifact: ``.tmp-<pid of 7 digits>-<8 hex>.wal``,
#: with room to spare.
SUFFIX_ROOM = 32


def sibling_stem(path: Path) -> str:
    """What the files beside ``path`` start with: its own name, or ``.unitrag-<hash>`` when a suffix would not fit."""
    name = os.fsencode(path.name)
    if len(name) + SUFFIX_ROOM <= NAME_MAX:
        return path.name
    return f".unitrag-{hashlib.sha256(name).hexdigest()[:16]}"


def temporary_path(path: Path, tag: str) -> Path:
    """A temporary beside ``path`` owned by this process (``tag``: a random id, or ``probe``); swept when it dies."""
    return path.with_name(f"{sibling_stem(path)}.tmp-{os.getpid()}-{tag}")
