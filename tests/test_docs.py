"""The documentation: the site builds with --strict (broken links and anchors fail), the README stays short and
its links resolve, and the design page states the layers the import-linter contract enforces."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: [text](target): the target up to the closing parenthesis or a space (a title after it)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)[^)]*\)")


def test_the_site_builds_strict(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "cli" / "index.html").read_text(encoding="utf-8").count("unitrag build --help") == 1


def test_the_readme_is_at_most_200_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: move detail into docs/"


def test_every_relative_link_in_the_readme_exists() -> None:
    targets = LINK.findall(README.read_text(encoding="utf-8"))
    relative = [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]
    assert relative, "README.md links into docs/"
    missing = [t for t in relative if not (ROOT / t.split("#", 1)[0]).exists()]
    assert not missing, f"README.md links to missing files: {missing}"


def test_the_design_page_states_the_enforced_layers() -> None:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c["type"] == "layers")
    stated = " → ".join(f"`{layer}`" for layer in layers if layer != "__main__")
    assert stated in (ROOT / "docs" / "design.md").read_text(encoding="utf-8"), f"docs/design.md, Layers: {stated}"


def test_every_repository_path_the_docs_name_exists() -> None:
    """`unitrag/...`, `tests/...`, `benchmarks/...` and `examples/...` in the README and the pages (the benchmarks
    pages aside): a module that moved must not leave its old path in the documentation."""
    pages = [README, *(p for p in (ROOT / "docs").glob("*.md") if not p.name.startswith("benchmarks"))]
    named = {(page.name, path) for page in pages
             for path in re.findall(r"`((?:unitrag|tests|benchmarks|examples)/[\w./-]*)`", page.read_text(encoding="utf-8"))}
    missing = sorted(f"{page}: {path}" for page, path in named if not (ROOT / path).exists())
    assert not missing, missing


def test_the_docs_say_init_only_writes_files_and_prints_the_next_commands() -> None:
    """`unitrag init` validates and builds nothing (unitrag/cli/init_cmd.py): no page may say it does."""
    pages = [README, ROOT / "docs" / "index.md", ROOT / "docs" / "cli.md"]
    for page in pages:
        text = " ".join(page.read_text(encoding="utf-8").split())
        assert not re.search(r"validates and builds as (it )?is", text), page.name
    assert "Init only writes these files, then prints the commands to run next" in \
        " ".join((ROOT / "docs" / "index.md").read_text(encoding="utf-8").split())
