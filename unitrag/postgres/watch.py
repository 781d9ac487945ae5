"""Which publish a database serves now, read cheaply and often, so a server follows each publish.

A server holding a published knowledge base must notice a publish as it notices a new artifact file:
otherwise it keeps serving the old generation (content restricted since stays public there) until the
publish after next purges that generation's replaced rows and it silently loses content. The watcher
thread asks every ``reload_poll_s`` for the live generation (one row of the manifest, on one kept
connection); a change is a new "signature", as a file's inode is. A poll that fails (the database down
or unreachable) answers None, which the holder treats as "no news": it keeps serving what it has, and
its status does not change; the connection is opened again on the next poll.
"""

from __future__ import annotations

import logging
from typing import Any

from .connect import connect
from .generations import live_generation
from .schema import MANIFEST
from .url import DatabaseUrl

log = logging.getLogger("unitrag.serve")

#: A database signature: the live generation and when its publish completed (a database dropped and
#: published again starts at generation 1 again, with another completion time).
Signature = tuple[int, str]

#: Seconds a poll may take (connect, then the query): a hung server must not stall the watcher for long.
POLL_TIMEOUT_S = 5


def manifest_signature(manifest: dict[str, Any]) -> Signature | None:
    """The signature of the publish a loaded manifest is of (None: not a published database's manifest)."""
    publish = manifest.get("publish")
    if not isinstance(publish, dict) or "completed_at" not in publish:
        return None
    return (live_generation(publish), str(publish["completed_at"]))


class LiveGeneration:
    """Polls one database's live generation on a connection it keeps; not thread-safe (the watcher's own)."""

    def __init__(self, url: str | DatabaseUrl) -> None:
        self.url = DatabaseUrl.parse(url)
        self._conn: Any = None
        self.failing = False  # the last poll failed: logged once, and once more when it recovers

    def poll(self) -> Signature | None:
        """The live generation's signature, or None when the database cannot be read now (never raises)."""
        try:
            if self._conn is None or self._conn.closed or self._conn.broken:
                self._conn = connect(self.url, timeout_s=POLL_TIMEOUT_S)
                self._conn.execute(f"SET statement_timeout = {POLL_TIMEOUT_S * 1000}")
            row = self._conn.execute(f"SELECT value FROM {MANIFEST} WHERE key = 'publish'").fetchone()
        except Exception as exc:  # noqa: BLE001 - any failure is "no news"; the message is masked before logging
            self.close()
            if not self.failing:
                log.warning("cannot read the live generation at %s (still serving the one loaded): %s",
                            self.url.describe(), self.url.scrub(str(exc).splitlines()[0] if str(exc) else type(exc).__name__))
            self.failing = True
            return None
        if self.failing:
            log.info("the database at %s answers again", self.url.describe())
        self.failing = False
        return manifest_signature({"publish": row[0]}) if row else None

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # noqa: BLE001 - closing a dead connection may fail; it is gone either way
                pass
