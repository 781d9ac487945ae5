"""One build at a time per artifact: an exclusive, non-blocking ``flock`` on a lock file beside it.

Two builds of one artifact would both embed everything and the last to finish would win, each planned against
an artifact the other replaces. The second is refused at once, naming the first's process. The kernel releases
an ``flock`` when its holder exits however it exits (kill -9 included), so a lock never outlives its build; the
file itself stays (removing it would let a third build lock a new file while the second holds the old one).
On a platform without ``fcntl`` builds are not locked.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..artifact.names import sibling_stem
from ..errors import UserError

try:
    import fcntl
except ImportError:  # Windows: no flock
    fcntl = None  # type: ignore[assignment]


def lock_path(artifact: Path) -> Path:
    """``kb.duckdb.lock`` beside the artifact (a hash of a name too long to take the suffix: ``artifact.names``)."""
    return artifact.with_name(f"{sibling_stem(artifact)}.lock")


@contextmanager
def artifact_lock(artifact: Path) -> Iterator[None]:
    """Hold the artifact's build lock for the block, or raise a UserError naming the build that holds it."""
    if fcntl is None:
        yield
        return
    path = lock_path(artifact)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError:  # a folder that cannot be written: the build's destination check says so, in its words
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise UserError(f"another build is writing {artifact}{_holder(fd)}: wait for it or stop it") from None
        try:  # who holds it, for a second build's message; a full disk only loses that
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError:
            pass
        yield
    finally:
        os.close(fd)  # closing the only descriptor releases the lock


def _holder(fd: int) -> str:
    """`` (pid N)`` from the lock file, or nothing when its holder has not written it yet."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""
    return f" (pid {text})" if text.isdigit() else ""
