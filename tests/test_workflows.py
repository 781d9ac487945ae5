"""The GitHub workflows: they parse, and they have the properties a wrong edit silently loses
(permissions, one embedding-cache key prefix, the plan written before the build, a loud "no previous artifact")."""

from __future__ import annotations

import os
import posixpath
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
WORKFLOWS = REPO / ".github" / "workflows"
NO_PREVIOUS = "no previous artifact: every unit shows as new"
CODE_PATHS = {"unitrag/**", "tests/**", "pyproject.toml", "Makefile", ".ci/**", "prompts/**"}


def _load(name: str) -> dict[str, Any]:
    return yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))


def _on(workflow: dict[str, Any]) -> dict[str, Any]:
    return workflow.get("on", workflow.get(True))  # PyYAML reads the bare key `on` as True


def _steps(workflow: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(job, step) for job, spec in workflow["jobs"].items() for step in spec["steps"]]


def _uses(step: dict[str, Any], action: str) -> bool:
    return str(step.get("uses", "")).split("@")[0] == action


def _index(steps: list[dict[str, Any]], predicate) -> int:  # type: ignore[no-untyped-def]
    found = [i for i, step in enumerate(steps) if predicate(step)]
    assert found, "no such step"
    return found[0]


def _permissions(workflow: dict[str, Any], job: str) -> dict[str, str]:
    return workflow["jobs"][job].get("permissions", workflow.get("permissions", {}))


@pytest.mark.parametrize("path", sorted(WORKFLOWS.glob("*.yml")), ids=lambda p: p.name)
def test_every_workflow_parses_and_has_jobs_with_steps(path):
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert _on(workflow) and workflow["jobs"]
    for job, spec in workflow["jobs"].items():
        assert spec["steps"], job


def test_ci_runs_the_test_entry_on_code_pushes_and_pull_requests():
    workflow = _load("ci.yml")
    on = _on(workflow)
    for event in ("push", "pull_request"):
        assert CODE_PATHS <= set(on[event]["paths"]), event
    steps = [step for _, step in _steps(workflow)]
    assert any(step.get("run", "").strip() == ".ci/run" for step in steps)
    python = next(step for step in steps if _uses(step, "actions/setup-python"))
    assert str(python["with"]["python-version"]) == "3.11" and python["with"]["cache"] == "pip"
    assert any(_uses(step, "actions/cache") and step["with"]["path"] == ".unitrag/cache" for step in steps)


def test_jobs_that_download_an_artifact_may_read_actions():
    downloading = [(name, job) for name in ("content-pr.yml", "build-main.yml")
                   for job, step in _steps(_load(name)) if _uses(step, "dawidd6/action-download-artifact")]
    assert {name for name, _ in downloading} == {"content-pr.yml", "build-main.yml"}
    for name, job in downloading:
        assert _permissions(_load(name), job).get("actions") == "read", (name, job)


def test_the_downloaded_artifact_lands_where_the_plan_looks():
    upload = next(step for _, step in _steps(_load("build-main.yml")) if _uses(step, "actions/upload-artifact"))
    paths = [line.strip() for line in upload["with"]["path"].splitlines() if line.strip()]
    root = posixpath.commonpath([posixpath.dirname(p) for p in paths])  # upload-artifact stores paths below this
    for name in ("content-pr.yml", "build-main.yml"):
        download = next(step for _, step in _steps(_load(name)) if _uses(step, "dawidd6/action-download-artifact"))
        stored = posixpath.relpath("dist/kb.duckdb", root or ".")
        assert posixpath.normpath(posixpath.join(download["with"]["path"], stored)) == "dist/kb.duckdb", name


def _embedding_caches(name: str) -> list[dict[str, Any]]:
    return [step["with"] for _, step in _steps(_load(name)) if _uses(step, "actions/cache") and step["with"]["path"] == ".unitrag/cache"]


def test_every_embedding_cache_uses_one_key_prefix_and_restores_what_main_saves():
    (saved_by_main,) = [cache["key"] for cache in _embedding_caches("build-main.yml")]
    caches = [cache for name in ("ci.yml", "content-pr.yml", "build-main.yml") for cache in _embedding_caches(name)]
    assert len(caches) == 3
    for cache in caches:
        restore = str(cache["restore-keys"]).strip()
        assert str(cache["key"]).startswith(restore), cache
        assert saved_by_main.startswith(restore), f"{restore!r} never matches main's key {saved_by_main!r}"


def _no_previous_step(steps: list[dict[str, Any]]) -> int:
    return _index(steps, lambda s: NO_PREVIOUS in s.get("run", ""))


@pytest.mark.parametrize("name, job", [("content-pr.yml", "plan"), ("build-main.yml", "build")])
def test_plan_is_written_after_the_previous_artifact_check_and_before_any_build(name, job):
    steps = _load(name)["jobs"][job]["steps"]
    download = _index(steps, lambda s: _uses(s, "dawidd6/action-download-artifact"))
    plan = _index(steps, lambda s: "--dry-run --markdown" in s.get("run", "") and "GITHUB_STEP_SUMMARY" in s["run"])
    assert download < _no_previous_step(steps) < plan
    builds = [i for i, s in enumerate(steps) if "unitrag build" in s.get("run", "") and "--dry-run" not in s["run"]]
    assert all(plan < i for i in builds), "the plan summary must be written before the build makes everything unchanged"


@pytest.mark.parametrize("name, job", [("content-pr.yml", "plan"), ("build-main.yml", "build")])
def test_no_previous_artifact_is_said_in_the_log_and_the_job_summary(name, job, tmp_path):
    steps = _load(name)["jobs"][job]["steps"]
    script = steps[_no_previous_step(steps)]["run"]
    summary = tmp_path / "summary.md"
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary)}
    result = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("::warning") and NO_PREVIOUS in result.stdout
    assert NO_PREVIOUS in summary.read_text(encoding="utf-8")

    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "kb.duckdb").write_bytes(b"")
    summary.unlink()
    result = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout == "" and not summary.exists()
