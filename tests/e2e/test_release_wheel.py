"""The wheel the release workflow builds, as a user gets it: installed into a clean venv and run from
outside the source tree, it creates a knowledge base that validates, builds and answers one of the
starter's own questions from a starter unit, with checked citations.

Offline, like the rest of the suite: the wheel is built without build isolation (setuptools of this
venv) and installed alone (``--no-deps --no-index``); its dependencies are this venv's, on the path
through a ``.pth`` line, which does not run this venv's own ``.pth`` files, so the editable unitrag
of the source tree stays out of sight. The release workflow's ``smoke`` job does the same with the
dependencies from PyPI.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
FILES = ("pyproject.toml", "README.md", "LICENSE")  # with unitrag/: what the wheel is built from


def _run(*args: str | Path, cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                            check=False)
    assert result.returncode == 0, f"{' '.join(map(str, args))}\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clean venv holding the freshly built wheel and nothing else of unitrag."""
    root = tmp_path_factory.mktemp("release")
    source = root / "source"  # a copy, so the build leaves no build/ in the working tree
    shutil.copytree(REPO / "unitrag", source / "unitrag", ignore=shutil.ignore_patterns("__pycache__"))
    for name in FILES:
        shutil.copy(REPO / name, source / name)
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", root / "wheels", source,
         cwd=root)
    (wheel,) = (root / "wheels").glob("unitrag-*.whl")
    env = root / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", env, cwd=root)
    purelib = Path(sysconfig.get_path("purelib", vars={"base": str(env), "platbase": str(env)}))
    (purelib / "project_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    _run(sys.executable, "-m", "pip", "--python", env / "bin" / "python", "install", "--no-deps", "--no-index", "-q", wheel,
         cwd=root)
    return env


def test_the_wheel_alone_is_what_runs(venv: Path, tmp_path: Path) -> None:
    where = _run(venv / "bin" / "python", "-c", "import unitrag, sys; print(unitrag.__file__)", cwd=tmp_path).stdout
    assert Path(where.strip()).is_relative_to(venv), where


def test_the_installed_wheel_inits_builds_and_answers_a_starter_question(venv: Path, tmp_path: Path) -> None:
    unitrag = venv / "bin" / "unitrag"
    created = _run(unitrag, "init", "kb", cwd=tmp_path)
    assert "workflows install unitrag with: pip install" in created.stdout
    kb = tmp_path / "kb"
    _run(unitrag, "validate", cwd=kb)
    _run(unitrag, "build", cwd=kb)
    labelled = yaml.safe_load((kb / "content" / "eval" / "questions.yaml").read_text(encoding="utf-8"))
    asked = next(q for q in labelled if q.get("expected_units"))
    answer = json.loads(_run(unitrag, "ask", asked["question"], "--json", cwd=kb).stdout)
    assert not answer["not_found"] and answer["guard"] is None, answer["answer"]
    assert set(asked["expected_units"]) & {s["unit_id"] for s in answer["sources"][:5]}, answer["sources"]
    assert answer["faithfulness"]["valid_ids"] and not answer["faithfulness"]["invalid_ids"], answer["faithfulness"]
