"""Ctrl-C at any moment of a command is one line and exit 130 (audit F8, F10): also while the command line is still
importing its libraries, and when the interrupt hits a C extension's initialisation (``ImportError`` from it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

#: The console script (``from unitrag.cli import main``), with an import that a Ctrl-C interrupts: a real signal
#: lands at a random point; this lands it, every time, inside the import named.
SCRIPT = """
import sys
target, how = sys.argv[1], sys.argv[2]

class Interrupt:
    def find_spec(self, name, path=None, target_=None):
        if name == target:
            if how == "import-error":  # what `import duckdb` raised when Ctrl-C hit its initialisation
                raise ImportError("initialization failed") from KeyboardInterrupt()
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv = ["unitrag", *sys.argv[3:]]
from unitrag.cli import main
main()
"""


def run_interrupted(tmp_path: Path, target: str, how: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", SCRIPT, target, how, *argv], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("target, how", [
    ("typer", "interrupt"),  # the first library the command line imports (was a traceback through rich / pickle)
    ("unitrag.cli.build_cmds", "interrupt"),
    ("unitrag.cli.build_cmds", "import-error"),  # was a traceback and exit 1
])
def test_ctrl_c_during_the_imports_is_one_line_and_exit_130(tmp_path: Path, target: str, how: str) -> None:
    result = run_interrupted(tmp_path, target, how, "build")
    assert result.returncode == 130, result.stderr
    assert result.stderr == "interrupted: the previous artifact is unchanged\n"


def test_ctrl_c_while_serve_starts_says_the_server_did_not_start(tmp_path: Path) -> None:
    (tmp_path / "kb.duckdb").write_bytes(b"")  # never opened: interrupted while serve imports uvicorn
    result = run_interrupted(tmp_path, "uvicorn", "interrupt", "serve", "--kb", "kb.duckdb", "--port", "0")
    assert result.returncode == 130, result.stderr
    assert result.stderr.splitlines()[-1] == "interrupted: the server did not start"
    assert "artifact is unchanged" not in result.stderr and "Traceback" not in result.stderr


def test_an_error_raised_from_an_interrupt_counts_as_one() -> None:
    from unitrag.cli import caused_by_interrupt, interrupted_message

    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise ImportError("initialization failed") from exc
    except ImportError as exc:
        assert caused_by_interrupt(exc)
    assert not caused_by_interrupt(ImportError("no module named x"))
    assert interrupted_message("build") == "interrupted: the previous artifact is unchanged"
    assert interrupted_message("serve") == "interrupted: the server did not start"


def test_ctrl_c_during_a_publish_says_readers_keep_the_last_publish(tmp_path: Path) -> None:
    """A publish touches no artifact: "the previous artifact is unchanged" told the wrong thing (an attacker's)."""
    result = run_interrupted(tmp_path, "unitrag.postgres.publish", "interrupt", "publish", "--to", "postgresql://u@h/db")
    assert result.returncode == 130, result.stderr
    assert result.stderr.splitlines()[-1] == ("interrupted: readers still see the last complete publish; "
                                              "run publish again to complete this one")
