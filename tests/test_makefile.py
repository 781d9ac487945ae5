"""The Makefile's set-up: `make demo` installs the core only, `make test` adds a CPU-only torch (pinned, first)
and then the dev extras; two stamps make `make demo` then `make test`, and `make test` alone, both work.
Checked with `make -n` (what would run), so nothing is installed here."""

from __future__ import annotations

import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def _plan(target: str, venv: Path) -> list[str]:
    result = subprocess.run(["make", "-n", "-C", str(REPO), target, f"VENV={venv}"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return [line for line in result.stdout.splitlines() if not line.startswith("make")]


def _installs(lines: list[str]) -> list[str]:
    return [line for line in lines if "pip install" in line and "--upgrade pip" not in line]


def _stamp(venv: Path, name: str) -> None:
    venv.mkdir(exist_ok=True)
    (venv / name).touch()
    future = time.time() + 60  # newer than pyproject.toml and constraints.txt, whatever their mtimes
    os.utime(venv / name, (future, future))


def test_demo_installs_the_core_only(tmp_path):
    installs = _installs(_plan("demo", tmp_path / "venv"))
    assert len(installs) == 1 and installs[0].endswith("-e .")
    assert not any("torch" in line or "[dev]" in line for line in installs)


def test_test_pins_a_cpu_torch_before_the_dev_extras_and_checks_it_after(tmp_path):
    lines = _plan("test", tmp_path / "venv")
    installs = _installs(lines)
    torch = next(i for i, line in enumerate(lines) if re.search(r'pip install .*"torch==', line))
    dev = next(i for i, line in enumerate(lines) if '".[dev]"' in line)
    check = next(i for i, line in enumerate(lines) if "torch.version.cuda" in line)
    assert torch < dev < check
    assert "download.pytorch.org/whl/cpu" in lines[torch] and "--no-deps" in lines[torch]
    if platform.system() == "Linux":  # PyPI's Linux wheel of the same version is the CUDA build
        assert '"torch==2.13.0+cpu"' in lines[torch]
    assert all("-c constraints.txt" in line for line in installs), installs  # no install may swap torch
    assert lines[-1].endswith("-m pytest -q")


def test_the_constraints_pin_torch_exactly():
    pins = [line.split("#")[0].strip() for line in (REPO / "constraints.txt").read_text().splitlines()]
    assert [pin for pin in pins if pin.startswith("torch")] == ["torch==2.13.0"]


def test_test_after_demo_adds_only_the_dev_install(tmp_path):
    venv = tmp_path / "venv"
    _stamp(venv, ".installed-core")
    installs = _installs(_plan("test", venv))
    assert len(installs) == 2 and "torch" in installs[0] and '".[dev]"' in installs[1]


def test_nothing_is_installed_twice(tmp_path):
    venv = tmp_path / "venv"
    _stamp(venv, ".installed-core")
    _stamp(venv, ".installed-dev")
    assert _installs(_plan("test", venv)) == [] and _installs(_plan("demo", venv)) == []


@pytest.mark.parametrize("cuda, fails", [(None, False), ("12.8", True)])
def test_the_cuda_check_runs_and_fails_only_on_a_cuda_build(tmp_path, cuda, fails):
    venv = tmp_path / "venv"
    (check,) = [line for line in _plan("test", venv) if "torch.version.cuda" in line]
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "torch.py").write_text(f"__version__ = '2.13.0'\nclass version:\n    cuda = {cuda!r}\n", encoding="utf-8")
    command = check.replace(f"{venv}/bin/python", shlex.quote(sys.executable))
    result = subprocess.run(["bash", "-c", command], env={**os.environ, "PYTHONPATH": str(stub)},
                            capture_output=True, text=True, timeout=60)
    assert (result.returncode != 0) == fails, result.stderr
    assert ("is a CUDA build" in result.stderr) == fails
