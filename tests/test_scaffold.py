"""`unitrag init DIR`: a new knowledge base that validates and builds as created, and never overwrites anything."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from unitrag.errors import UserError
from unitrag.scaffold import INSTALL_FROM_SOURCE, TEMPLATE, destination, init_knowledge_base, template_files
from unitrag.scaffold.install import default_install
from unitrag.scaffold.starter import starter_question

REPO = Path(__file__).resolve().parents[1]
KINDS = {"story", "scene", "rule", "document"}


def _unitrag(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "unitrag", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_init_writes_the_whole_skeleton(tmp_path):
    kb = tmp_path / "kb"
    written = {str(p) for p in init_knowledge_base(kb)}
    assert {"unitrag.toml", ".gitignore", "content/topics.yaml", "content/guard.yaml", "content/eval/questions.yaml",
            ".github/workflows/content-pr.yml", ".github/workflows/build-main.yml"} <= written
    assert any(p.startswith("content/citations/") for p in written)
    kinds = {yaml.safe_load(path.read_text(encoding="utf-8").split("---")[1])["kind"] for path in (kb / "content").rglob("*.md")}
    assert kinds == KINDS
    assert all((kb / p).is_file() for p in written)


def test_the_prompts_are_the_projects_own():
    for prompt in sorted((REPO / "prompts").glob("*.j2")):
        copy = TEMPLATE / "prompts" / prompt.name
        assert copy.is_file() and copy.read_bytes() == prompt.read_bytes(), f"copy prompts/{prompt.name} to {copy}"
    assert {p.name for p in (TEMPLATE / "prompts").iterdir()} == {p.name for p in (REPO / "prompts").glob("*.j2")}


@pytest.mark.parametrize("name", ["content-pr.yml", "build-main.yml"])
def test_the_workflows_are_the_projects_own_installing_the_release(name, tmp_path):
    stored = TEMPLATE / "github" / "workflows" / name
    assert stored.read_bytes() == (REPO / ".github" / "workflows" / name).read_bytes(), \
        f"copy .github/workflows/{name} to {stored}"
    init_knowledge_base(tmp_path / "kb")
    written = (tmp_path / "kb" / ".github" / "workflows" / name).read_text(encoding="utf-8")
    assert INSTALL_FROM_SOURCE not in written and f'pip install "{default_install().requirement}"' in written
    assert yaml.safe_load(written)["jobs"]


def test_dotted_names_are_restored():
    assert destination(Path("github/workflows/x.yml")) == Path(".github/workflows/x.yml")
    assert destination(Path("gitignore")) == Path(".gitignore")
    assert destination(Path("content/github/a.md")) == Path("content/github/a.md")
    assert not any(part.startswith(".") for stored in template_files() for part in stored.parts)


def test_an_empty_folder_is_fine(tmp_path):
    assert init_knowledge_base(tmp_path)


def test_a_non_empty_folder_is_refused_and_left_alone(tmp_path):
    (tmp_path / "notes.md").write_text("mine", encoding="utf-8")
    with pytest.raises(UserError, match="is not empty"):
        init_knowledge_base(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.md"]


def test_a_file_is_refused(tmp_path):
    (tmp_path / "kb").write_text("", encoding="utf-8")
    with pytest.raises(UserError, match="not a folder"):
        init_knowledge_base(tmp_path / "kb")


def test_a_folder_under_a_file_is_refused_before_anything_is_written(tmp_path):
    (tmp_path / "f").write_text("", encoding="utf-8")
    with pytest.raises(UserError, match="is a file, so .* cannot be created under it"):
        init_knowledge_base(tmp_path / "f" / "kb")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc, where nothing can be created")
def test_a_folder_that_cannot_be_written_is_one_clear_line(tmp_path):
    result = _unitrag(tmp_path, "init", "/proc/unitrag-kb", "--name", "X", "--languages", "en")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "error: cannot write /proc/unitrag-kb/README.md: No such file or directory; give unitrag init a folder you "
        "can write to"]


def test_cli_refuses_a_non_empty_folder_in_one_line(tmp_path):
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "x").write_text("", encoding="utf-8")
    result = _unitrag(tmp_path, "init", "kb")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == ["error: kb is not empty: unitrag init writes only into a new or empty folder, to overwrite nothing"]


def test_init_then_validate_and_plan(tmp_path):
    created = _unitrag(tmp_path, "init", "tmp/kb")
    assert created.returncode == 0, created.stderr
    kb = tmp_path / "tmp" / "kb"
    validated = _unitrag(kb, "validate")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    planned = _unitrag(kb, "build", "--dry-run", "--json")
    assert planned.returncode == 0, planned.stderr
    plan = json.loads(planned.stdout)["plan"]
    assert plan["ids"]["new"] == ["en-new-unit-checklist", "en-unit-too-large", "en-writing-units", "en-writing-units-citations",
                                  "en-writing-units-size"]


@pytest.mark.e2e
def test_init_then_build_and_ask(tmp_path):
    assert _unitrag(tmp_path, "init", "kb").returncode == 0
    kb = tmp_path / "kb"
    built = _unitrag(kb, "build")
    assert built.returncode == 0, built.stderr
    assert (kb / "dist" / "kb.duckdb").is_file()
    answer = _unitrag(kb, "ask", starter_question(), "--json")
    assert answer.returncode == 0, answer.stderr
    assert "en-writing-units-size" in answer.stdout


def test_a_new_knowledge_base_uses_the_default_embedder(tmp_path):
    from unitrag.config import DEFAULT_EMBEDDER

    init_knowledge_base(tmp_path / "kb")
    config = (tmp_path / "kb" / "unitrag.toml").read_text(encoding="utf-8")
    assert f'embedder = "{DEFAULT_EMBEDDER}"' in config


def test_a_new_knowledge_base_has_held_out_test_sets_for_its_gates(tmp_path):
    kb = tmp_path / "kb"
    init_knowledge_base(kb)
    workflow = (kb / ".github" / "workflows" / "content-pr.yml").read_text(encoding="utf-8")
    named = set(re.findall(r"content/eval/[\w*]+\.yaml", workflow))  # paths and globs the gates read
    matched = {path.name for pattern in named for path in kb.glob(pattern)}
    assert all(any(kb.glob(pattern)) for pattern in named), named
    assert {"questions.yaml", "questions_test.yaml", "guard_test.yaml"} <= matched
