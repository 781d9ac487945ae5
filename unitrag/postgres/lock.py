"""The publish lock: one ``unitrag publish`` at a time per knowledge base, which is a schema of a database.

PostgreSQL's advisory locks are per database, so a fixed key made two knowledge bases in separate
schemas of one database (the layout the docs recommend: ``?options=-csearch_path%3Dcoffee,public``)
wait for each other. The key is derived from the schema the tables go to (``current_schema()``,
the first of the search path), so each schema has its own lock and one schema never two publishes.
The lock is held by the session, so it dies with a killed publish's connection.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from ..errors import UserError

#: What every key is derived from ("unitrag" in ASCII was the one key before it was per schema).
_NAMESPACE = "unitrag publish"


def target_schema(conn: Any) -> str:
    """The schema this session's tables go to (the first existing schema of the search path; '' if none)."""
    return str(conn.execute("SELECT coalesce(current_schema(), '')").fetchone()[0])


def lock_key(schema: str) -> int:
    """A positive 63-bit advisory lock key for ``schema`` (stable across versions and processes)."""
    digest = hashlib.sha256(f"{_NAMESPACE}:{schema}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def take_publish_lock(conn: Any, timeout_s: float) -> None:
    """Take the publish lock of this session's schema, waiting up to ``timeout_s``; a clear error if another holds it."""
    schema = target_schema(conn)
    key = lock_key(schema)
    deadline = time.monotonic() + max(timeout_s, 0.0)
    while not conn.execute("SELECT pg_try_advisory_lock(%s)", [key]).fetchone()[0]:
        if time.monotonic() >= deadline:
            holder = conn.execute(
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = "
                "(SELECT oid FROM pg_database WHERE datname = current_database()) "
                "AND ((classid::bigint << 32) | objid::bigint) = %s", [key],
            ).fetchone()
            who = f" (server process {holder[0]})" if holder else ""
            raise UserError(
                f"another `unitrag publish` to schema {schema or '(none)'} of this database is running{who}; waited "
                f"{timeout_s:g}s for it, nothing was written. Re-run when it has finished (or raise --lock-timeout)"
            )
        time.sleep(0.2)
