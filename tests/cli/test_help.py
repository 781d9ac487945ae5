"""`--help` and `--version`: every option says what it does, and no help text is swallowed on the way out."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import version

import click
import pytest
import typer
from typer.testing import CliRunner

from unitrag.cli import app

ROOT = typer.main.get_command(app)
COMMANDS = {name: ROOT.get_command(click.Context(ROOT), name) for name in ROOT.list_commands(click.Context(ROOT))}  # type: ignore[attr-defined]


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _help(*args: str) -> str:
    result = CliRunner().invoke(app, [*args, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    return _flat(result.output)


def test_the_command_tree_is_walked():
    assert {"validate", "build", "inspect", "search", "ask", "eval", "calibrate", "publish"} <= set(COMMANDS)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_and_argument_has_help_and_it_is_printed_whole(name):
    command = COMMANDS[name]
    assert (command.help or "").strip(), f"{name}: no command help"
    shown = _help(name)
    for param in command.params:
        text = (getattr(param, "help", None) or "").strip()
        assert text, f"unitrag {name} {param.opts}: no help"
        assert _flat(text) in shown, f"unitrag {name} --help lost part of {param.opts}'s help: {text!r}"


def test_group_options_have_help():
    for param in ROOT.params:
        assert (getattr(param, "help", None) or "").strip(), param.opts


def test_config_defaults_are_not_swallowed():
    # rich markup used to eat "[config: artifact]", printing "a postgresql:// URL published to ."
    shown = _help("ask")
    assert "published to [config: artifact]" in shown
    assert "published to ." not in shown


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_prints_the_installed_package_version(flag: str):
    result = subprocess.run([sys.executable, "-m", "unitrag", flag], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"unitrag {version('unitrag')}"


@pytest.mark.parametrize("toml, said", [
    ('[unitrag]\nrestricted_role = "staff"\n', "restricted role (restricted_role in its unitrag.toml; here 'staff')"),
    ("[unitrag\n", "restricted role (restricted_role in its unitrag.toml):"),  # broken: the command says so, not help
])
def test_the_restricted_flag_says_which_role_it_means_here(tmp_path, toml, said):
    """A tea shop's role is `staff`: `--restricted, --clinician` read as the health sample's role only."""
    (tmp_path / "unitrag.toml").write_text(toml, encoding="utf-8")
    for command in ("search", "ask"):
        result = subprocess.run([sys.executable, "-m", "unitrag", command, "--help"], cwd=tmp_path, capture_output=True,
                                text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "COLUMNS": "100"})
        assert result.returncode == 0 and result.stderr == "", result.stderr
        assert said in _flat(result.stdout) and "--restricted, --clinician" in result.stdout
