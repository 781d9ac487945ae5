"""One build at a time per artifact: a second is refused at once, naming the first; a dry run needs no lock;
the lock goes with its holder however it exits (kill -9 too)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from unitrag.compiler.build_lock import artifact_lock, lock_path
from unitrag.errors import UserError

REPO = Path(__file__).resolve().parents[2]
HOLD = ("import sys, time\nfrom pathlib import Path\nfrom unitrag.compiler.build_lock import artifact_lock\n"
        "with artifact_lock(Path(sys.argv[1])):\n    print('held', flush=True)\n    time.sleep(600)\n")


def hold_lock(artifact: Path) -> subprocess.Popen:
    """Another process holding the artifact's build lock, as a build in progress does."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(artifact)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


@pytest.mark.skipif(sys.platform == "win32", reason="no fcntl: builds are not locked")
def test_a_second_build_is_refused_while_one_writes_and_goes_ahead_once_it_is_killed(tiny) -> None:
    tiny.build()
    before = tiny.artifact.read_bytes()
    rule = sorted((tiny.content / "rules").iterdir())[0]
    rule.write_text(rule.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    holder = hold_lock(tiny.artifact)
    try:
        calls = tiny.embedder.calls
        with pytest.raises(UserError) as refused:
            tiny.build()
        assert str(refused.value) == f"another build is writing {tiny.artifact} (pid {holder.pid}): wait for it or stop it"
        assert tiny.embedder.calls == calls and tiny.artifact.read_bytes() == before  # refused before any work
        assert tiny.build(dry_run=True).plan.changed  # a dry run writes nothing: it needs no lock
    finally:
        holder.send_signal(signal.SIGKILL)  # no chance to release it: the kernel does
        holder.wait()
    report = tiny.build()
    assert report.written and report.embedded == 1
    assert lock_path(tiny.artifact).exists()  # the file stays; only the flock on it went


@pytest.mark.skipif(sys.platform == "win32", reason="no fcntl: builds are not locked")
def test_the_lock_is_released_when_a_build_fails(tiny) -> None:
    (tiny.content / "rules" / "broken.md").write_text("---\nkind: nope\n---\n\nbody\n", encoding="utf-8")
    with pytest.raises(Exception):
        tiny.build()
    with artifact_lock(tiny.artifact):  # not still held by the failed build
        pass


def test_without_fcntl_builds_are_not_locked(tiny, monkeypatch) -> None:
    import unitrag.compiler.build_lock as build_lock

    monkeypatch.setattr(build_lock, "fcntl", None)
    with artifact_lock(tiny.artifact), artifact_lock(tiny.artifact):
        pass
    assert not lock_path(tiny.artifact).exists()


@pytest.mark.skipif(sys.platform == "win32", reason="no fcntl: builds are not locked")
def test_a_long_legal_artifact_name_gets_a_lock_of_a_legal_name(tmp_path: Path) -> None:
    """Audit F7: ``<251-byte name>.lock`` is too long a name; the lock is named after a hash of it instead."""
    import os

    artifact = tmp_path / ("k" * 244 + ".duckdb")
    with artifact_lock(artifact):
        with pytest.raises(UserError, match="another build is writing"):
            with artifact_lock(artifact):
                pass
    assert len(os.fsencode(lock_path(artifact).name)) <= 255 and lock_path(artifact).exists()


@pytest.mark.skipif(sys.platform == "win32", reason="no fcntl: builds are not locked")
def test_a_full_disk_costs_the_lock_only_its_holders_pid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Audit F2: writing the pid into the lock file on a full disk was a traceback before the build began."""
    import errno

    import unitrag.compiler.build_lock as build_lock

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(build_lock.os, "write", full)
    with artifact_lock(tmp_path / "kb.duckdb"):
        pass
