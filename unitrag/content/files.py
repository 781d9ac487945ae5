"""Reading author files: UTF-8 text with LF line endings and no control characters, or a clear problem.

Line endings are normalised on read (CRLF and a lone CR become LF), so a file
saved by another editor hashes the same and is never re-embedded for that alone.
Control characters other than tab and newline (NUL, escape codes, C1 controls)
are problems at their line: invisible in an editor, they end up in chunks,
prompts and the published database, which refuses NUL.

Reads are bounded: a file over its kind's ``SizeLimit`` (``max_unit_bytes``,
``max_file_bytes``...) is a problem read no further than one byte past the limit,
and a FIFO, a device or a folder is refused before any read.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..regular_file import FileTooLarge, NotRegularFile, read_regular  # noqa: F401 - re-exported: the content's readers
from .problems import UNPRINTABLE, Problem, unprintable_byte

#: Control characters content may not hold (tab, newline and CR, normalised to LF on read, are fine).
#: C0 and C1 controls but tab and newline, and the text-direction overrides and isolates (U+202A–E, U+2066–9): a
#: line holding one reads, on screen, differently from what it is ("Trojan Source"); no en or zh text needs them.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_MAX_REPORTED = 10  # per file: enough to see the pattern, not a flood


def display_path(path: Path) -> str:
    """A path as an author would type it: relative to the working folder when inside it."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def display_under(shown_root: str, rel: str) -> str:
    """``display_path(root / rel)`` from ``display_path(root)``, without a ``relpath`` per file (5,000 of them add up)."""
    native = rel.replace("/", os.sep)
    return native if shown_root == os.curdir else os.path.join(shown_root, native)


def tree_files(root: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """Every non-folder under ``root`` (dangling links too) as a POSIX path inside it, in path order,
    hidden files and folders (a name starting with ``.``) left out, links to folders not followed;
    and the folders that could not be listed or were not followed, with why (their units are unknown: nothing may
    be swept)."""
    found: list[str] = []
    unreadable: list[tuple[str, str]] = []
    folders = [""]
    while folders:
        prefix = folders.pop()
        try:
            with os.scandir(root / prefix if prefix else root) as entries:
                listed = list(entries)
        except OSError as exc:
            unreadable.append((prefix.rstrip("/"), exc.strerror or str(exc)))  # "": the root itself
            continue
        for entry in listed:
            if entry.name.startswith("."):
                continue
            rel = f"{prefix}{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                folders.append(rel + "/")
            elif _is_dir(entry):  # said, not skipped in silence: an author who linked it expects its units built
                unreadable.append((rel, "it is a link to a folder, which is not followed: copy its files into the "
                                        "content folder"))
            else:
                found.append(rel)
    return sorted(found, key=lambda rel: rel.split("/")), sorted(unreadable)


def name_fault(rel: str) -> str | None:
    """Why a content path may not be read as it is named (a control character, bytes that are not UTF-8), else None.

    Names come with a pull request: an escape sequence in one rewrites the reviewer's terminal or CI log wherever the
    path is printed, and a name that is not UTF-8 can be neither a cache key, nor an artifact's path, nor JSON. Such a
    file is refused, like text holding a control character (``control_character_problems``)."""
    match = UNPRINTABLE.search(rel)
    if match is None:
        return None
    char = match.group()
    part = "folder" if "/" in rel[match.end():] else "file"
    if "\ud800" <= char <= "\udfff":
        byte = unprintable_byte(char)
        fault = "is not UTF-8" + (f" (byte 0x{byte:02x})" if byte is not None else "")
    else:
        fault = f"holds control character U+{ord(char):04X}"
    return f"the {part} name {fault}: rename it (content names are UTF-8 text without control characters)"


def link_outside(root: Path, path: Path) -> str | None:
    """Where ``path`` leads when it is a link out of ``root`` (resolved), else None.

    Content is what a pull request adds; a link to ``/etc/passwd`` or a CI secret must not
    be read into the plan's messages or the artifact. Links inside the tree are fine.
    """
    if not path.is_symlink():
        return None
    try:
        target = Path(os.path.realpath(path))
    except OSError:  # a link into what cannot be read (/proc/1/cwd): outside, wherever it leads
        try:
            return os.readlink(path)
        except OSError:
            return "a place that cannot be read"
    return None if target.is_relative_to(root) else str(target)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # a link to a folder: neither walked into nor a file
    except OSError:
        return False


@dataclass(frozen=True)
class SizeLimit:
    """The most bytes one kind of content file may hold, the config key that sets it, and what to do instead."""

    bytes: int
    key: str
    noun: str  # what the file is to an author: "unit", "registry file"...
    advice: str  # what to do instead of raising the limit

    def problem(self, shown: str, size: int | None) -> Problem:
        """The problem of a file over this limit (``size`` None: it grew past the limit while being read)."""
        held = f"{size:,} bytes" if size is not None else f"more than {self.bytes:,} bytes"
        return Problem(shown, 1, "file", f"{self.noun} is {held}, over the limit of {self.bytes:,} ({self.key}): "
                                         f"{self.advice}, or raise {self.key} in unitrag.toml if it must be this large")


def read_text(path: Path, problems: list[Problem], limit: SizeLimit | None = None) -> str | None:
    """UTF-8 text of a file, or None with a problem that says how to fix it."""
    raw = read_bytes(path, problems, limit)
    return None if raw is None else decode_text(raw, display_path(path), problems)


def read_bytes(path: Path, problems: list[Problem], limit: SizeLimit | None = None) -> bytes | None:
    """The bytes of a regular file, or None with a problem (a file the loader hashes before it decodes);
    a file over ``limit`` is a problem, never read whole (``read_regular``)."""
    shown = display_path(path)
    try:
        return read_regular(path, None if limit is None else limit.bytes)
    except FileTooLarge as exc:
        assert limit is not None  # only raised under a limit
        problems.append(limit.problem(shown, exc.size))
    except NotRegularFile:
        problems.append(Problem(shown, 1, "file", f"cannot read the file: {NotRegularFile.message}; content "
                                                  "files are plain files"))
    except OSError as exc:
        problems.append(Problem(shown, 1, "file", f"cannot read the file: {exc.strerror or exc}"))
    return None


def decode_text(raw: bytes, shown: str, problems: list[Problem]) -> str | None:
    """``raw`` as LF-normalised UTF-8 text, or None with a problem for ``shown`` that says how to fix it."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        utf16 = " (it is UTF-16: its first bytes are a UTF-16 byte-order mark)" if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else ""
        problems.append(
            Problem(shown, line, "file", f"not UTF-8 text (byte 0x{raw[exc.start]:02x}){utf16}; save the file as UTF-8")
        )
        return None
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    found = control_character_problems(shown, text)
    if found:
        problems.extend(found)
        return None
    return text


def control_character_problems(shown: str, text: str) -> list[Problem]:
    """One problem per line holding a control character (tab and newline are fine), at most ten."""
    if CONTROL_CHARACTERS.search(text) is None:
        return []
    found: list[Problem] = []
    for number, line in enumerate(text.split("\n"), start=1):
        match = CONTROL_CHARACTERS.search(line)
        if match is None:
            continue
        found.append(Problem(
            shown, number, "file",
            f"control character U+{ord(match.group()):04X} in column {match.start() + 1}: remove it "
            "(only tab and newline are allowed in content)",
        ))
        if len(found) == _MAX_REPORTED:
            break
    return found
