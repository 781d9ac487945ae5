"""The package's layers and its lack of import cycles, as pyproject.toml's import-linter contracts state them.

The contracts run on the package as it is, and once on a copy with one upward import added, so a contract
that stopped checking anything (a renamed package, an emptied layer list) fails here too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """import-linter over the ``unitrag`` package found at ``root``, with ``root``'s pyproject.toml."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    code = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports())"
    return subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_layers_and_acyclic_contracts_hold() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


def upward_copy(tmp_path: Path, module: str, line: str) -> Path:
    """A copy of the package and its pyproject.toml with ``line`` appended to ``module``'s file."""
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "unitrag", copy / "unitrag", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    target = copy / module
    target.write_text(target.read_text(encoding="utf-8") + "\n" + line + "\n", encoding="utf-8")
    return copy


def test_an_upward_import_breaks_the_layers(tmp_path: Path) -> None:
    # the compiler reaching into the runtime: the kind of import issue 26 found (compiler -> rag.guard)
    copy = upward_copy(tmp_path, "unitrag/compiler/hashing.py", "from ..rag import gate  # noqa")
    result = lint_imports(copy)
    assert result.returncode != 0
    assert "unitrag.compiler is not allowed to import unitrag.rag" in result.stdout


def test_a_cycle_inside_a_package_breaks_the_acyclic_contract(tmp_path: Path) -> None:
    # the store importing the search stage, which imports the store: a cycle between two packages of rag
    copy = upward_copy(tmp_path, "unitrag/rag/store/dense.py", "from ..search import retrieval  # noqa")
    result = lint_imports(copy)
    assert result.returncode != 0
    assert "No cycles are allowed in unitrag.rag" in result.stdout
