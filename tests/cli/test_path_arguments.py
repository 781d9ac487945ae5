"""An empty path is refused by name before a command reads it as the current folder (``cli.path_arguments``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.expect import one_error_line
from unitrag.cli.path_arguments import empty_path_message


@pytest.mark.parametrize(("argv", "said"), [
    (["ask", "q", "--kb", ""], "--kb"), (["ask", "q", "--kb="], "--kb"), (["validate", "--content", " "], "--content"),
    (["build", "--out=", "--dry-run"], "--out"), (["eval", "--questions", "a.yaml", "--questions", ""], "--questions"),
    (["init", ""], "DIRECTORY"), (["init", "--name", "x", ""], "DIRECTORY"),
])
def test_an_empty_path_is_named(argv: list[str], said: str) -> None:
    message = empty_path_message(argv)
    assert message is not None and message.startswith(f"{said}: empty path")


@pytest.mark.parametrize("argv", [
    ["ask", ""], ["ask", "q", "--kb", "dist/kb.duckdb"], ["init", "--name", "", "x"], ["init", "x"], ["build"],
    ["ask", "--", "--kb", ""],  # after "--" it is the question's words
    ["search", "q", "--lang", ""],  # not a path: its own check names it
])
def test_a_path_given_or_an_empty_value_that_is_no_path_is_left_to_the_command(argv: list[str]) -> None:
    assert empty_path_message(argv) is None


def test_the_command_line_says_it_in_one_line_and_reads_nothing(tmp_path: Path) -> None:
    """An attacker's audit: `validate --content ""` scanned the project root and listed 80 problems."""
    run = subprocess.run([sys.executable, "-m", "unitrag", "validate", "--content", ""], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert one_error_line(run, code=2) == "error: --content: empty path: give a path, or leave --content out for its default"
