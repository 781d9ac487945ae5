"""Whether the build a knowledge base loaded is still the one at its location: an app's own ``KnowledgeBase``,
held for days, must not go on serving what a newer build restricted.

A store serves what it loaded (the artifact file it opened, the publish generation it read). ``unitrag serve``
follows each new build by itself (``serve.reload``); an app that opens a ``KnowledgeBase`` once and keeps it used
to answer from the old build for as long as it ran: a unit restricted since stayed public there (an attacker's
finding, stop 59). So a knowledge base checks, before a search, that its location still holds the build it
loaded (a file's inode, mtime and size: a stat, microseconds; a database's live generation: one row, read at
most every ``CHECK_S``), and refuses with ``KnowledgeBaseStale`` when it does not: reopen it. A location that
cannot be read now (the file gone, the database down) is no news: what was loaded is still served.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Callable

from ...errors import UserError
from ...postgres.url import SCHEMES, DatabaseUrl, redacted_location

#: Seconds between two reads of a database's live generation (a file's signature is read on every search).
CHECK_S = 1.0


class KnowledgeBaseStale(UserError):
    """The location holds a newer build than the one this knowledge base loaded: open it again."""


def artifact_signature(location: str) -> tuple[int, int, int] | None:
    """What changes when a build renames a new artifact over the path (None: not a file)."""
    try:
        st = os.stat(location)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


class Freshness:
    """The signature of the build loaded, and how to read the location's now (thread-safe)."""

    def __init__(self, location: str, loaded: Any, read: Callable[[], Any], every_s: float = 0.0,
                 close: Callable[[], None] = lambda: None) -> None:
        self.location, self.loaded, self._read, self._every_s, self._close = location, loaded, read, every_s, close
        self._checked_at = float("-inf")
        self._stale = False  # once seen, for good: a check within ``every_s`` of the one that saw it must not pass
        self._lock = threading.Lock()

    @classmethod
    def of(cls, location: "str | os.PathLike[str] | DatabaseUrl", manifest: dict[str, Any],
           signed_before_load: Any = None) -> "Freshness | None":
        """For a store just loaded from ``location``: a file's signature as taken before loading it
        (``signed_before_load``: a build renamed over it meanwhile is then seen as new), a database's generation
        from the manifest it read. None when there is nothing to follow (an in-memory artifact)."""
        from ...postgres.watch import LiveGeneration, manifest_signature

        if isinstance(location, DatabaseUrl) or str(location).startswith(SCHEMES):
            loaded = manifest_signature(manifest)
            live = LiveGeneration(location)
            return None if loaded is None else cls(redacted_location(location), loaded, live.poll, CHECK_S, live.close)
        path = os.fspath(location)
        return None if signed_before_load is None else cls(path, signed_before_load, lambda: artifact_signature(path))

    def close(self) -> None:
        """Release what reading the location holds (a database's connection), between two checks."""
        with self._lock:
            self._close()

    def check(self) -> None:
        """Raise ``KnowledgeBaseStale`` when the location holds another build than the one loaded."""
        now = time.monotonic()
        with self._lock:
            if not self._stale and now - self._checked_at >= self._every_s:
                self._checked_at = now
                current = self._read()
                self._stale = current is not None and current != self.loaded
        if self._stale:
            raise KnowledgeBaseStale(
                f"{self.location} holds a newer build than this knowledge base loaded (it serves only what it "
                "loaded, and a unit restricted since would stay public here): open it again with KnowledgeBase.open "
                "(`unitrag serve` follows new builds by itself)")
