"""What the CLI's tests expect of a refused command: one line on stderr, exit 1, no traceback."""

from __future__ import annotations

import subprocess


def one_error_line(result: subprocess.CompletedProcess, *words: str) -> str:
    """The error line, asserted to be the only one, to start with ``error: `` and to hold each of ``words``."""
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]
