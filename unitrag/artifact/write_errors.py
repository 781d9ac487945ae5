"""A final write that fails for want of room (a full disk, a quota, ``ulimit -f``) or in DuckDB's write or commit:
one line naming the artifact, the cause and what to do, never a traceback.

The writers remove their temporary before the error gets here, and the previous artifact is never touched before
the rename, so the line can say it is unchanged.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from ..errors import UserError

#: How DuckDB words the system errors it wraps (its exceptions carry no errno).
_DUCKDB_WORDING = {
    "no space left on device": errno.ENOSPC,
    "file too large": errno.EFBIG,
    "disk quota exceeded": errno.EDQUOT,
}


@contextmanager
def plain_write_errors(path: Path) -> Iterator[None]:
    """Turn an OSError, or a DuckDB I/O or transaction error, raised while writing ``path`` into one UserError."""
    try:
        yield
    except OSError as exc:
        raise UserError(write_failure(path, exc.errno, exc.strerror or str(exc))) from None
    except (duckdb.IOException, duckdb.TransactionException) as exc:
        message = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        code = next((number for words, number in _DUCKDB_WORDING.items() if words in message.lower()), None)
        raise UserError(write_failure(path, code, message)) from None


def write_failure(path: Path, code: int | None, reason: str) -> str:
    """The line for a write of ``path`` that failed with ``code`` (an errno, if known) and ``reason``."""
    folder = path.parent if str(path.parent) != "." else Path(".")
    outcome = "the previous artifact is unchanged" if path.exists() else "nothing was written"
    if code == errno.ENOSPC:
        return (f"cannot write the artifact {path}: no space left on the device holding {folder}/: free space and "
                f"build again; {outcome}")
    if code == errno.EDQUOT:
        return (f"cannot write the artifact {path}: disk quota exceeded on the device holding {folder}/: free space "
                f"or raise the quota and build again; {outcome}")
    if code == errno.EFBIG:
        return (f"cannot write the artifact {path}: file too large for the file-size limit (`ulimit -f`) or the "
                f"file system: raise the limit, or choose another --out, and build again; {outcome}")
    return f"cannot write the artifact {path}: {reason}; {outcome}"
