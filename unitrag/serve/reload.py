"""The knowledge base a server holds, swapped for a new build without downtime.

A build replaces ``kb.duckdb`` by renaming a new file over it, so the path's inode (or
mtime, or size) changes; a publish to PostgreSQL makes a new generation live. A watcher
thread polls that signature (the file's, or the database's live generation: ``postgres.watch``);
``SIGHUP`` (or ``reload()``) asks for a reload at once. A poll that fails (the database down)
is no news: the old one keeps serving and the status stays as it was.
The new knowledge base is opened beside the old one (reusing its embedder), then swapped
in with one reference assignment: a request takes a lease on the knowledge base it
started with and finishes on it, and a retired one is closed when its last lease ends.
A new file that does not open is logged and the old one keeps serving; the holder keeps the
last reload's outcome, so ``/v1/health`` says "degraded" until a newer one opens. A location
is logged without its password (``redacted_location``), a driver's message scrubbed of it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cached_property
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ..errors import InvalidArgument
from ..postgres.url import SCHEMES, DatabaseUrl, redacted_location
from ..postgres.watch import LiveGeneration, manifest_signature
from ..rag.knowledge_base import KnowledgeBase
from ..rag.store.freshness import artifact_signature
from .visible import Visible

log = logging.getLogger("unitrag.serve")

#: Opens a knowledge base at a location; given the one serving now (to reuse its embedder) or None.
Opener = Callable[[str, "KnowledgeBase | None"], KnowledgeBase]
#: What changes when a new build is there to serve: a file's (inode, mtime, size), a database's (generation, completed_at).
Signature = tuple[Any, ...]
#: Seconds before a database generation that did not open is tried again (its failure may have been passing).
RETRY_FAILED_S = 30.0


def artifact_id(manifest: dict[str, Any]) -> str:
    """A short id for a build: the hash of its manifest (build time, counts, table hashes)."""
    return hashlib.sha256(json.dumps(manifest, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class ReloadOutcome:
    """How the last reload ended: a new build swapped in, or one that did not open (the old one still serving)."""

    ok: bool
    at: str = field(default_factory=_now)

    def to_dict(self) -> dict[str, str]:
        """For ``/v1/health``: the outcome and its time, never the error (it may name paths; the log has it)."""
        return {"outcome": "ok" if self.ok else "failed", "at": self.at}


@dataclass
class Loaded:
    """One opened knowledge base and the requests still using it."""

    kb: KnowledgeBase
    id: str
    signature: Signature | None
    loaded_at: str = field(default_factory=_now)
    leases: int = 0
    retired: bool = False

    @cached_property
    def visible(self) -> Visible:
        """Which citations and topics each role may see, built on first use (a race builds it twice, harmlessly)."""
        return Visible.of(self.kb.store)

    @cached_property
    def public_counts(self) -> tuple[int, int]:
        """Units and chunks every caller may read (``/v1/health`` answers anyone: the restricted ones are not its to
        count, or a public caller could tell how many units it is not shown)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        store = self.kb.store
        public = store.mask(restricted=False)
        unit_ids = store.columns["unit_id"].array
        if public is not None:  # counted in Arrow: no Python value per chunk
            unit_ids = pc.filter(unit_ids, pa.array(public))
        return pc.count_distinct(unit_ids).as_py(), len(unit_ids)

    @property
    def generation(self) -> int | None:
        """The publish generation served (None: an artifact file), for ``/v1/health``."""
        signature = manifest_signature(self.kb.store.manifest)
        return signature[0] if signature else None


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
        self._failed: Signature | None = None
        self._failed_at = 0.0
        self._live = LiveGeneration(location) if location.startswith(SCHEMES) else None
        self.reloads = 0
        self.last_reload: ReloadOutcome | None = None  # None: no reload tried since start-up
        self.shown = redacted_location(location)  # the location as logs show it: no password
        self._current = self._load(None)

    def _load(self, previous: KnowledgeBase | None) -> Loaded:
        signature = artifact_signature(self.location) if self._live is None else None
        kb = self._open(self.location, previous)
        if self._live is not None:  # the generation the store loaded, not one polled before or after it
            signature = manifest_signature(kb.store.manifest)
        return Loaded(kb, artifact_id(kb.store.manifest), signature)

    def _poll(self) -> Signature | None:
        """The location's signature now; None when there is nothing to tell (no file, the database unreadable)."""
        return artifact_signature(self.location) if self._live is None else self._live.poll()

    def _known(self, signature: Signature | None) -> bool:
        """Nothing new to open: no signature, the one served, or one that failed (a database's is retried later)."""
        if signature is None or signature == self._current.signature:
            return True
        if signature != self._failed:
            return False
        return self._live is None or time.monotonic() - self._failed_at < RETRY_FAILED_S

    @property
    def current(self) -> Loaded:
        return self._current

    @property
    def degraded(self) -> bool:
        """The last reload failed: the build being served is older than one that did not open."""
        return self.last_reload is not None and not self.last_reload.ok

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
            signature = None if force and self._live is not None else self._poll()
            if not force and self._known(signature):
                return False
            try:
                fresh = self._load(self._current.kb)
            except Exception as exc:  # a half-copied or broken file: keep serving the old one
                self._failed, self._failed_at = signature, time.monotonic()
                self.last_reload = ReloadOutcome(ok=False)
                log.error("artifact %s did not open, still serving %s: %s", self.shown, self._current.id,
                          self._scrubbed(str(exc)))
                return False
            with self._lock:
                old, self._current = self._current, fresh
                old.retired = True
                close = old.leases == 0
            self.reloads += 1
            self.last_reload = ReloadOutcome(ok=True)
            log.info("artifact %s: now serving %s (was %s)", self.shown, fresh.id, old.id)
        if close:
            old.kb.close()
        return True

    def _scrubbed(self, text: str) -> str:
        """A driver's or reader's message without the location's password (libpq echoes parts of a URL)."""
        text = text.replace(self.location, self.shown)
        if self.location.startswith(SCHEMES):
            try:
                text = DatabaseUrl.parse(self.location).scrub(text)
            except InvalidArgument:
                pass
        return text

    # -- the watcher ---------------------------------------------------------------------

    def start(self) -> None:
        """Watch the file or the database (every ``poll_s`` seconds; not at all when 0) and serve ``wake()`` requests."""
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
        if self._live is not None:
            self._live.close()

    def _watch(self) -> None:
        while not self._stop.is_set():
            woken = self._wake.wait(self.poll_s if self.poll_s > 0 else None)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.reload(force=woken)
            except Exception as exc:  # the watcher must outlive any surprise (no traceback: it may quote the URL)
                log.error("artifact %s: reload failed: %s: %s", self.shown, type(exc).__name__, self._scrubbed(str(exc)))
                time.sleep(1)
