"""`unitrag init --name/--description/--languages/--restricted-role`: flags, prompts on a terminal, defaults in a script."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest


def _unitrag(cwd: Path, *args: str, **kwargs: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "unitrag", *args], cwd=cwd, capture_output=True, text=True, check=False,
                          timeout=120, **kwargs)


def _identity(kb: Path) -> tuple[str, str, list[str]]:
    table = tomllib.loads((kb / "unitrag.toml").read_text(encoding="utf-8"))["unitrag"]
    return table["name"], table["description"], table["languages"]


def test_the_flags_land_in_unitrag_toml(tmp_path: Path) -> None:
    result = _unitrag(tmp_path, "init", "kb", "--name", "Garden club", "--description", "Growing vegetables.",
                      "--languages", "zh,en", stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    assert _identity(tmp_path / "kb") == ("Garden club", "Growing vegetables.", ["zh", "en"])
    readme = (tmp_path / "kb" / "README.md").read_text(encoding="utf-8")
    assert readme.startswith("# Garden club\n\nGrowing vegetables.\n\n由 `unitrag init` 创建。")  # Chinese first: its kit
    assert 'unitrag ask "一个内容单元应该写多长？"' in result.stdout


def test_a_script_gets_the_defaults_and_no_prompt(tmp_path: Path) -> None:
    result = _unitrag(tmp_path, "init", "garden-club", stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    assert _identity(tmp_path / "garden-club") == ("Garden club", "", ["en", "zh"])
    assert (tmp_path / "garden-club" / "README.md").read_text(encoding="utf-8").startswith("# Garden club\n\nMade with")


def test_a_bad_flag_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    result = _unitrag(tmp_path, "init", "kb", "--name", "Garden", "--languages", "fr", stdin=subprocess.DEVNULL)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == ["error: --languages: unknown language 'fr' (supported: en, zh)"]
    assert not (tmp_path / "kb").exists()


def test_on_a_terminal_the_missing_ones_are_asked(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    try:
        os.write(leader, b"Garden club\nGrowing vegetables.\nzh\n")
        result = subprocess.run([sys.executable, "-m", "unitrag", "init", "kb"], cwd=tmp_path, stdin=follower, check=False,
                                capture_output=True, text=True, timeout=120)
    finally:
        os.close(follower)
        os.close(leader)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Name of the knowledge base" in result.stdout
    assert _identity(tmp_path / "kb") == ("Garden club", "Growing vegetables.", ["zh"])


def test_the_restricted_role_flag_lands_in_unitrag_toml_and_the_readme(tmp_path: Path) -> None:
    """A help desk had to edit `restricted_role = "agent"` into unitrag.toml by hand."""
    result = _unitrag(tmp_path, "init", "kb", "--restricted-role", "agent", stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    kb = tmp_path / "kb"
    assert tomllib.loads((kb / "unitrag.toml").read_text(encoding="utf-8"))["unitrag"]["restricted_role"] == "agent"
    assert "`access: agent`" in (kb / "README.md").read_text(encoding="utf-8")
    default = _unitrag(tmp_path, "init", "other", stdin=subprocess.DEVNULL)
    assert default.returncode == 0, default.stderr
    assert 'restricted_role = "staff"' in (tmp_path / "other" / "unitrag.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("role", ["Agent", "public", "", "a b", "x" * 33])
def test_a_bad_restricted_role_is_one_line_naming_the_flag_and_writes_nothing(tmp_path: Path, role: str) -> None:
    result = _unitrag(tmp_path, "init", "kb", "--name", "Desk", "--restricted-role", role, stdin=subprocess.DEVNULL)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert [line.split(" (")[0] for line in result.stderr.strip().splitlines()] == [
        "error: --restricted-role: expected a role name"]
    assert not (tmp_path / "kb").exists()
