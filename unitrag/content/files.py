"""Reading author files: UTF-8 or a clear problem, and paths shown as authors type them."""

from __future__ import annotations

import os
from pathlib import Path

from .problems import Problem


def display_path(path: Path) -> str:
    """A path as an author would type it: relative to the working folder when inside it."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def read_text(path: Path, problems: list[Problem]) -> str | None:
    """UTF-8 text of a file, or None with a problem that says how to fix it."""
    shown = display_path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        problems.append(Problem(shown, 1, "file", f"cannot read the file: {exc.strerror or exc}"))
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        problems.append(
            Problem(shown, line, "file", f"not UTF-8 text (byte 0x{raw[exc.start]:02x}); save the file as UTF-8")
        )
        return None
    return text.removeprefix("\ufeff")
