"""Reading a file that must be a regular file of bounded size: a FIFO, a device or a huge file never hangs a reader.

Shared by every reader of a file a user names (content, a user context, the config file), below all of them.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class NotRegularFile(OSError):
    """A FIFO, a device, a socket or a folder where a file was expected."""

    message = "not a regular file (a FIFO, a device or a folder)"


class FileTooLarge(OSError):
    """A file over the most bytes its reader takes; ``size`` is None when it grew past them while being read."""

    def __init__(self, size: int | None) -> None:
        super().__init__(f"over the size limit ({size:,} bytes)" if size is not None else "over the size limit")
        self.size = size


def read_regular(path: Path, max_bytes: int | None = None) -> bytes:
    """The bytes of the regular file at ``path``, reading at most ``max_bytes + 1`` of them.

    Raises FileTooLarge past ``max_bytes`` (by its size, or as it reads: a file that grows, or a
    /proc file that says 0), NotRegularFile for a FIFO, a device or a folder (opened without
    blocking and refused before any read: a FIFO with no writer would hang, /dev/zero never ends),
    OSError when it cannot be read.
    """
    return _read(path, max_bytes, head=False)


def read_head(path: Path, max_bytes: int) -> bytes:
    """The first ``max_bytes`` of the regular file at ``path``, whatever its size (a glance, not a read: a FIFO or a
    device is refused as ``read_regular`` refuses it)."""
    return _read(path, max_bytes, head=True)


def _read(path: Path, max_bytes: int | None, head: bool) -> bytes:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(NotRegularFile.message)
        if max_bytes is not None and info.st_size > max_bytes and not head:
            raise FileTooLarge(info.st_size)
        with os.fdopen(fd, "rb", closefd=False) as file:
            raw = file.read() if max_bytes is None else file.read(max_bytes if head else max_bytes + 1)
    finally:
        os.close(fd)
    if max_bytes is not None and len(raw) > max_bytes:
        raise FileTooLarge(None)
    return raw
