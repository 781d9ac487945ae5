"""A content problem: one line an author can act on, ``path:line: field: message``.

A problem names a file of a pull request, and its line is printed to a reviewer's
terminal or a CI log: whatever in it could act there (an escape sequence in a file
name, a newline that forges a second line, a text-direction override, a byte of a
name that is not UTF-8) is printed escaped, never as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: What a problem never prints as it is: C0 and C1 controls (tab and newline too: one problem, one line), the
#: text-direction overrides and isolates ("Trojan Source"), the line and paragraph separators (a line break in many
#: viewers and in JavaScript), and lone surrogates (bytes of a name that is not UTF-8).
UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
#: Where Python puts the bytes of a file name that are not UTF-8 (``surrogateescape``: byte 0xff is U+DCFF).
_ESCAPED_BYTES = range(0xDC80, 0xDD00)


@dataclass(frozen=True, order=True)
class Problem:
    path: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return printable(f"{self.path}:{self.line}: {self.field}: {self.message}")

    def to_dict(self) -> dict[str, object]:
        """The problem for ``--json``: escaped too (JSON leaves C1 controls and lone surrogates as they are, and a lone
        surrogate cannot even be written to a UTF-8 stdout)."""
        return {"path": printable(self.path), "line": self.line, "field": printable(self.field),
                "message": printable(self.message)}


def printable(text: str) -> str:
    """``text`` with every ``UNPRINTABLE`` character escaped as Python writes it (``\\x1b``, ``\\n``, ``\\u202e``), a
    byte of a name that is not UTF-8 as that byte (``\\xff``): nothing a file name holds reaches a terminal raw."""
    return UNPRINTABLE.sub(_escaped, text)


def unprintable_byte(char: str) -> int | None:
    """The byte a lone surrogate stands for in a file name that is not UTF-8 (``surrogateescape``), else None."""
    return ord(char) - 0xDC00 if ord(char) in _ESCAPED_BYTES else None


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    byte = unprintable_byte(char)
    return f"\\x{byte:02x}" if byte is not None else char.encode("unicode_escape").decode("ascii")
