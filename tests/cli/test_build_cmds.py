"""CLI error paths: one readable message, the right exit code, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from unitrag.config import DEFAULT_EMBEDDER

REPO = Path(__file__).resolve().parents[2]


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "unitrag", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_validate_bundled_content_is_clean():
    result = _run(REPO, "validate")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok:")


def test_validate_prints_every_problem_and_exits_1(tmp_path):
    content = tmp_path / "content"
    (content / "rules").mkdir(parents=True)
    (content / "topics.yaml").write_text("topics: []\n", encoding="utf-8")
    (content / "rules" / "a.md").write_text("---\nkind: rule\nid: a\n---\n\nbody\n", encoding="utf-8")
    (content / "rules" / "b.md").write_text("---\nkind: nope\n---\n\nbody\n", encoding="utf-8")
    result = _run(tmp_path, "validate")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert "content/rules/a.md:2: title: required field is missing" in lines
    assert "content/rules/b.md:2: kind: unknown kind 'nope' (expected one of story, scene, rule, document)" in lines
    # validate never writes: the last line says what it read, not "nothing was written"
    assert lines[-1] == ("6 problem(s) in 2 file(s); checked every file in content and prompts; "
                         "valid: 0 units, 0 citations, 0 topics, 0 guard rules, 0 prompt templates")
    assert "Traceback" not in result.stderr


def test_validate_checks_the_prompt_templates_too(tmp_path):
    import shutil

    shutil.copytree(REPO / "content", tmp_path / "content")
    shutil.copytree(REPO / "prompts", tmp_path / "prompts")
    with open(tmp_path / "prompts" / "user.j2", "a", encoding="utf-8") as handle:
        handle.write("{{ question | no_such_filter }}\n")
    line = (tmp_path / "prompts" / "user.j2").read_text(encoding="utf-8").count("\n")
    for command in (("validate",), ("build", "--dry-run")):
        result = _run(tmp_path, *command)
        assert result.returncode == 1, command
        assert f"prompts/user.j2:{line}: template: No filter named 'no_such_filter'." in result.stderr.splitlines()
        assert "Traceback" not in result.stderr


def test_unknown_flag_is_a_usage_error_not_a_traceback(tmp_path):
    result = _run(tmp_path, "build", "--no-such-flag")
    assert result.returncode == 2
    assert "No such option" in result.stderr and "Traceback" not in result.stderr


def test_inspect_without_an_artifact_says_what_to_do(tmp_path):
    result = _run(tmp_path, "inspect")
    assert result.returncode == 1
    assert result.stderr.strip() == "error: artifact dist/kb.duckdb not found: run `unitrag build` first (or pass --kb/--out)"


def test_unknown_embedder_is_named(tmp_path):
    result = _run(REPO, "build", "--dry-run", "--embedder", "bogus:model", "--out", str(tmp_path / "kb.duckdb"))
    assert result.returncode == 1
    assert "unknown embedder 'bogus:model'" in result.stderr and "Traceback" not in result.stderr


def test_bad_config_value_from_the_environment(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "unitrag", "build", "--dry-run"], cwd=REPO, capture_output=True, text=True,
        env={"PATH": "/usr/bin:/bin", "UNITRAG_BATCH_SIZE": "many"}, timeout=120,
    )
    assert result.returncode == 1
    assert "batch_size" in result.stderr and "positive whole number" in result.stderr


def _registry_only(tmp_path: Path) -> Path:
    content = tmp_path / "content"
    content.mkdir()
    for name in ("topics.yaml", "guard.yaml"):
        (content / name).write_bytes((REPO / "content" / name).read_bytes())
    return content


def test_building_registry_files_only_is_refused_unless_allow_empty(tmp_path):
    content, out = _registry_only(tmp_path), tmp_path / "kb.duckdb"
    result = _run(tmp_path, "build", "--dry-run", "--content", str(content), "--out", str(out))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "--allow-empty" in result.stderr
    allowed = _run(tmp_path, "build", "--dry-run", "--allow-empty", "--content", str(content), "--out", str(out))
    assert allowed.returncode == 0, allowed.stderr


def test_an_output_path_that_cannot_be_created_is_one_line_before_any_embedding(tmp_path):
    (tmp_path / "a-file").write_text("not a folder", encoding="utf-8")
    out = tmp_path / "a-file" / "kb.duckdb"
    result = _run(REPO, "build", "--out", str(out), "--cache-dir", str(tmp_path / "cache"))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        f"error: cannot write the artifact {out}: a part of the path is a file, not a folder; choose another --out or fix the folder"
    ]
    assert not (tmp_path / "cache").exists()  # failed before the embedding cache was opened


def test_the_dry_run_plan_shows_the_embedding_estimate(tmp_path):
    import json
    import re

    args = ("build", "--dry-run", "--out", str(tmp_path / "kb.duckdb"))
    data = json.loads(_run(REPO, *args, "--json").stdout)
    chunks = data["plan"]["new"]
    assert data["estimate"]["chunks"] == chunks and data["estimate"]["seconds"] > 0
    human = _run(REPO, *args)
    assert human.returncode == 0, human.stderr
    text = " ".join(human.stdout.split())
    assert re.search(rf"would embed {chunks} chunk\(s\) with {re.escape(DEFAULT_EMBEDDER)}: ~\d+ (s|min|h)", text), text
