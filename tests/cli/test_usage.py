"""A command line the parser cannot read: one ``error:`` line naming what is wrong and what to do, exit 2, for every
command (click's four-line usage block was what black-box testers got)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.expect import one_error_line


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "unitrag", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args, line", [
    (["ask", "salt", "--foo"], "error: ask: no such option --foo (run 'unitrag ask --help')"),
    (["ask", "salt", "pepper"], "error: ask: got unexpected extra argument(s) (pepper) (run 'unitrag ask --help')"),
    (["ask"], "error: ask: missing argument 'question' (run 'unitrag ask --help')"),
    (["ask", "salt", "--lang"], "error: ask: option '--lang' requires an argument (run 'unitrag ask --help')"),
    (["ask", "salt", "--kbb", "x"], "error: ask: no such option --kbb: did you mean --kb? (run 'unitrag ask --help')"),
    # another tool's name for an option this command has (a new team asked so as its restricted role)
    (["ask", "--role", "staff", "salt"], "error: ask: no such option --role: did you mean --restricted? "
                                         "(run 'unitrag ask --help')"),
    (["serve", "--role", "staff"], "error: serve: no such option --role (run 'unitrag serve --help')"),  # none there
    # the nearest first, not in alphabetical order
    (["eval", "--question", "q.yaml"], "error: eval: no such option --question: did you mean --questions or "
                                       "--unit-questions or --json? (run 'unitrag eval --help')"),
    (["inspect", "-x"], "error: inspect: no such option -x (run 'unitrag inspect --help')"),  # a path is optional
    (["no-such-command"], "error: no such command 'no-such-command' (run 'unitrag --help')"),
    (["--foo"], "error: no such option --foo (run 'unitrag --help')"),
])
def test_a_usage_error_is_one_line_naming_what_is_wrong_and_the_commands_help(tmp_path, args, line):
    assert one_error_line(_run(tmp_path, *args), code=2) == line


@pytest.mark.parametrize("value", ["1e3", "abc"])
def test_a_value_of_the_wrong_type_names_its_option(tmp_path, value):
    line = one_error_line(_run(tmp_path, "search", "salt", "--k", value), code=2)
    assert line.startswith("error: search: --k: ") and line.endswith("(run 'unitrag search --help')")


@pytest.mark.parametrize("command", ["ask", "search"])
def test_an_option_in_the_questions_place_says_that_double_dash_ends_the_options(tmp_path, command):
    for args in ([command, "-x"], [command, "--kb", "kb.duckdb", "-x"]):  # no question but the option
        assert one_error_line(_run(tmp_path, *args), code=2) == (
            f"error: {command}: no such option -x: a question that starts with '-' goes after '--', which ends the "
            f"options: unitrag {command} -- \"-x ...\"")


def test_an_option_written_with_a_newline_cannot_forge_a_second_line(tmp_path):
    line = one_error_line(_run(tmp_path, "ask", "salt", "--x\nerror: forged\x1b[2J"), code=2)
    assert "\\n" in line and "\\x1b" in line


def test_unitrag_alone_still_prints_the_help(tmp_path):
    result = _run(tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "ask" in result.stderr and "validate" in result.stderr and len(result.stderr.splitlines()) > 5
