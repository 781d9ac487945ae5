"""Whatever kills a build (SIGKILL before the rename, Ctrl-C, bad content), the last good artifact survives."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from unitrag.artifact.reader import open_artifact, read_vectors

pytestmark = pytest.mark.e2e


def _unitrag(ws, *args: str, env: dict[str, str] | None = None, **kwargs) -> subprocess.Popen:
    cfg = ws.config
    cmd = [sys.executable, "-m", "unitrag", "build", "--content", str(cfg.content_dir), "--out", str(cfg.artifact),
           "--prompts", str(cfg.prompts_dir), "--cache-dir", str(cfg.cache_dir), *args]
    return subprocess.Popen(cmd, env={**os.environ, **(env or {})}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=_default_sigint, **kwargs)


def _default_sigint() -> None:
    """A child of a non-interactive shell may inherit SIGINT as ignored; a terminal user's never is."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _first_scene(ws) -> Path:
    return sorted((ws.config.content_dir / "scenes").rglob("*.md"))[0]


def _assert_valid(path: Path, chunks: int) -> None:
    with open_artifact(path) as con:
        ids, matrix = read_vectors(con)
    assert len(ids) == chunks and matrix.shape[0] == chunks


@pytest.mark.parametrize("point", ["before-rename", "after-copy"])  # a one-scene edit is written as a delta on a copy
def test_sigkill_before_rename_leaves_the_old_artifact_byte_identical(workspace, point):
    before = workspace.artifact.read_bytes()
    chunks = workspace.build(dry_run=True).chunks
    scene = _first_scene(workspace)
    scene.write_text(scene.read_text(encoding="utf-8") + "\nA change that never lands.\n", encoding="utf-8")
    proc = _unitrag(workspace, env={"UNITRAG_FAULT_INJECT": point})
    proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL
    assert workspace.artifact.read_bytes() == before
    leftovers = list(workspace.artifact.parent.glob("kb.duckdb.tmp-*"))
    assert leftovers, "the killed build should have left its temporary file"
    _assert_valid(workspace.artifact, chunks)
    # the next build succeeds and sweeps the dead build's temporary file
    report = workspace.build()
    assert report.written and not list(workspace.artifact.parent.glob("kb.duckdb.tmp-*"))


def test_ctrl_c_during_embedding_is_clean_and_keeps_the_artifact(workspace):
    before = workspace.artifact.read_bytes()
    proc = _unitrag(workspace, "--full")  # --full: no cache, so it embeds every chunk (tens of seconds)
    time.sleep(5)
    assert proc.poll() is None, "the build ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert workspace.artifact.read_bytes() == before


def test_invalid_content_exits_1_and_writes_nothing(workspace):
    before = workspace.artifact.read_bytes()
    (workspace.config.content_dir / "rules" / "broken.md").write_text("---\nkind: rule\nid: broken\n---\n\nbody\n", encoding="utf-8")
    proc = _unitrag(workspace)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1
    assert "broken.md:2: title: required field is missing" in stderr.replace("\\", "/")
    assert "Traceback" not in stderr
    assert workspace.artifact.read_bytes() == before
