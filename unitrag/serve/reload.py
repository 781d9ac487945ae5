"""The knowledge base a server holds, swapped for a new build without downtime.

A build replaces ``kb.duckdb`` by renaming a new file over it, so the path's inode (or
mtime, or size) changes. A watcher thread polls that signature; ``SIGHUP`` (or
``reload()``) asks for a reload at once, and is the only trigger for a PostgreSQL URL.
The new knowledge base is opened beside the old one (reusing its embedder), then swapped
in with one reference assignment: a request takes a lease on the knowledge base it
started with and finishes on it, and a retired one is closed when its last lease ends.
A new file that does not open is logged and the old one keeps serving.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ..rag.knowledge_base import KnowledgeBase

log = logging.getLogger("unitrag.serve")

#: Opens a knowledge base at a location; given the one serving now (to reuse its embedder) or None.
Opener = Callable[[str, "KnowledgeBase | None"], KnowledgeBase]


def artifact_id(manifest: dict[str, Any]) -> str:
    """A short id for a build: the hash of its manifest (build time, counts, table hashes)."""
    return hashlib.sha256(json.dumps(manifest, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _signature(location: str) -> tuple[int, int, int] | None:
    """What changes when a build renames a new artifact over the path (None: not a file)."""
    try:
        st = os.stat(location)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


@dataclass
class Loaded:
    """One opened knowledge base and the requests still using it."""

    kb: KnowledgeBase
    id: str
    signature: tuple[int, int, int] | None
    loaded_at: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    leases: int = 0
    retired: bool = False


class KbHolder:
    """The current knowledge base; thread-safe; reloads on a file change or on request."""

    def __init__(self, location: str, opener: Opener, poll_s: float = 2.0) -> None:
        self.location = location
        self.poll_s = poll_s
        self._open = opener
        self._lock = threading.Lock()
        self._reload_lock = threading.Lock()  # one reload at a time
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._failed: tuple[int, int, int] | None = None
        self.reloads = 0
        self._current = self._load(None)

    def _load(self, previous: KnowledgeBase | None) -> Loaded:
        signature = _signature(self.location)
        kb = self._open(self.location, previous)
        return Loaded(kb, artifact_id(kb.store.manifest), signature)

    @property
    def current(self) -> Loaded:
        return self._current

    @contextmanager
    def lease(self) -> Iterator[Loaded]:
        """The knowledge base to serve one request with, kept open until the request ends."""
        with self._lock:
            loaded = self._current
            loaded.leases += 1
        try:
            yield loaded
        finally:
            self._release(loaded)

    def acquire(self) -> Loaded:
        """A lease for a request that outlives one call (a stream): ``release`` it when done."""
        with self._lock:
            self._current.leases += 1
            return self._current

    def release(self, loaded: Loaded) -> None:
        self._release(loaded)

    def _release(self, loaded: Loaded) -> None:
        with self._lock:
            loaded.leases -= 1
            close = loaded.retired and loaded.leases == 0
        if close:
            loaded.kb.close()

    def reload(self, force: bool = True) -> bool:
        """Open the artifact again if it changed (always with ``force``); True when a new one was swapped in."""
        with self._reload_lock:
            signature = _signature(self.location)
            if not force and (signature is None or signature in (self._current.signature, self._failed)):
                return False
            try:
                fresh = self._load(self._current.kb)
            except Exception as exc:  # a half-copied or broken file: keep serving the old one
                self._failed = signature
                log.error("artifact %s did not open, still serving %s: %s", self.location, self._current.id, exc)
                return False
            with self._lock:
                old, self._current = self._current, fresh
                old.retired = True
                close = old.leases == 0
            self.reloads += 1
            log.info("artifact %s: now serving %s (was %s)", self.location, fresh.id, old.id)
        if close:
            old.kb.close()
        return True

    # -- the watcher ---------------------------------------------------------------------

    def start(self) -> None:
        """Watch the file (every ``poll_s`` seconds; not at all when 0) and serve ``wake()`` requests."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="unitrag-artifact-watch", daemon=True)
            self._thread.start()

    def wake(self) -> None:
        """Reload now (``SIGHUP``); safe to call from a signal handler."""
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _watch(self) -> None:
        while not self._stop.is_set():
            woken = self._wake.wait(self.poll_s if self.poll_s > 0 else None)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.reload(force=woken)
            except Exception:  # the watcher must outlive any surprise
                log.exception("artifact reload failed")
                time.sleep(1)
