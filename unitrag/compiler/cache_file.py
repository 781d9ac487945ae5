"""The embedding cache's file when something is wrong with it: telling damage from other failures, setting it aside.

A damaged cache (truncated by a full disk or a crash, bytes corrupted, left empty by a first write that ran out
of space) must never block a build, nor be deleted: it is renamed beside itself, ``embeddings.duckdb.damaged-<time>``
(its write-ahead log with it), and a new cache is started. Other failures (another build holds the lock, no
permission, a full disk) are not damage: the file is left alone.
"""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

#: What DuckDB says of a file that is not, or no longer, a whole database (as opposed to one it may not open now).
DAMAGE_SIGNS = (
    "not a valid duckdb database file",
    "could not read enough bytes",
    "corrupt database file",
    "corrupt wal",
    "does not match stored checksum",
    "failed to deserialize",
)

#: Failures that say nothing about the file's bytes: another build's lock, no permission, no room to write.
NOT_DAMAGE_SIGNS = ("lock", "permission denied", "read-only file system", "no space left", "file too large",
                    "quota exceeded")

#: What DuckDB's magic bytes are and where (after an 8-byte checksum): a file without them is not a database.
MAGIC_AT, MAGIC = 8, b"DUCK"


def is_damaged(path: Path, error: BaseException) -> bool:
    """Whether ``error`` (from opening or using the cache at ``path``) means the file itself is damaged: it is
    empty, lacks DuckDB's header, or DuckDB read a page that is missing or fails its checksum."""
    message = str(error).lower()
    if any(sign in message for sign in DAMAGE_SIGNS):
        return True
    if any(sign in message for sign in NOT_DAMAGE_SIGNS):  # the file may be whole: never moved for these
        return False
    try:
        with path.open("rb") as file:
            head = file.read(MAGIC_AT + len(MAGIC))
    except OSError:
        return False
    return len(head) < MAGIC_AT + len(MAGIC) or head[MAGIC_AT:] != MAGIC


def set_aside(path: Path) -> Path | None:
    """Rename the damaged ``path`` (and its ``.wal``) to ``<name>.damaged-<UTC time>``; an empty file (nothing to
    keep) is removed instead. Returns the new name, or None when it was removed. Raises OSError when it cannot."""
    wal = path.with_name(path.name + ".wal")
    if path.stat().st_size == 0 and not wal.exists():
        path.unlink()
        return None
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    path.rename(aside)
    if wal.exists():
        wal.rename(aside.with_name(aside.name + ".wal"))
    return aside


def first_line(error: BaseException) -> str:
    """The first line of an error's message (DuckDB's run to several), or its type when it has none."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def warn(message: str) -> None:
    """One warning line on stderr, as the build's other cache warnings are printed."""
    print(f"warning: {message}", file=sys.stderr)
