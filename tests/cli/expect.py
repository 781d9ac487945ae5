"""What the CLI's tests expect of a refused command: one line on stderr, exit 1 (2: a usage error), no traceback."""

from __future__ import annotations

import subprocess


def one_error_line(result: subprocess.CompletedProcess, *words: str, code: int = 1) -> str:
    """The error line, asserted to be the only one, to start with ``error: `` and to hold each of ``words``; the exit
    status ``code`` (2: a command line the parser cannot read)."""
    assert result.returncode == code and "Traceback" not in result.stderr, (result.returncode, result.stderr[-2000:])
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]
