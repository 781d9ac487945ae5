"""A final write that runs out of room (a full disk, ``ulimit -f``) or fails in DuckDB's commit: one line naming the
artifact and the cause, the previous artifact unchanged, no temporary left; names too long for a temporary."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import duckdb
import pytest

import unitrag.artifact.incremental as incremental
import unitrag.artifact.writer as writer
from unitrag.artifact.incremental import write_delta
from unitrag.artifact.names import sibling_stem
from unitrag.artifact.reader import open_artifact
from unitrag.artifact.writer import sweep_stale_temporaries, write_artifact
from unitrag.errors import UserError

from tests.artifact.test_incremental_write import DIM, TABLES, edited, full, vectors_for
from tests.artifact.test_writer import artifact, dead_pid


def _fail_with(exc: BaseException):
    def fail(*args: object, **kwargs: object) -> None:
        raise exc
    return fail


def test_a_full_disk_during_a_full_write_is_one_line_and_the_old_artifact_stays(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "dist" / "kb.duckdb"
    write_artifact(path, **artifact(["a"]))
    original = path.read_bytes()
    monkeypatch.setattr(writer, "_write", _fail_with(OSError(errno.ENOSPC, "No space left on device")))
    with pytest.raises(UserError) as caught:
        write_artifact(path, **artifact(["a", "b"]))
    assert str(caught.value) == (f"cannot write the artifact {path}: no space left on the device holding "
                                 f"{path.parent}/: free space and build again; the previous artifact is unchanged")
    assert path.read_bytes() == original and not list(path.parent.glob("kb.duckdb.tmp-*"))


def test_a_duckdb_commit_that_runs_out_of_space_is_said_as_a_full_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "kb.duckdb"
    failure = duckdb.TransactionException(
        'TransactionContext Error: Failed to commit: Could not write file "kb.duckdb.tmp-1-x.wal": No space left on device')
    monkeypatch.setattr(writer, "_write", _fail_with(failure))
    with pytest.raises(UserError, match=r"no space left on the device holding .*; nothing was written$"):
        write_artifact(path, **artifact(["a"]))
    assert not path.exists() and not list(tmp_path.glob("kb.duckdb.tmp-*"))


def test_a_file_size_limit_during_a_delta_is_one_line_and_the_old_artifact_stays(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before, _, deletes, upserts = edited()
    path = tmp_path / "kb.duckdb"
    full(path, before)
    original = path.read_bytes()

    real_copy = shutil.copyfile

    def copy_then_fail(src: Path, dst: Path) -> None:  # as `ulimit -f` does: part of the copy, then EFBIG
        real_copy(src, dst)
        raise OSError(errno.EFBIG, "File too large")

    monkeypatch.setattr(incremental.shutil, "copyfile", copy_then_fail)
    with pytest.raises(UserError, match=r"file too large for the file-size limit \(`ulimit -f`\).*"
                                        r"the previous artifact is unchanged$"):
        write_delta(path, dim=DIM, manifest={"embedder": {"id": "test:model", "dim": DIM}}, tables=TABLES,
                    upserts=upserts, embeddings=vectors_for(upserts), deletes=deletes)
    assert path.read_bytes() == original and not list(tmp_path.glob("kb.duckdb.tmp-*"))


def test_a_legal_long_name_gets_short_temporaries_and_they_are_swept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / ("k" * 244 + ".duckdb")  # 251 bytes: legal, but name + ".tmp-<pid>-<id>.wal" is not
    seen: list[Path] = []
    real = writer._write
    monkeypatch.setattr(writer, "_write", lambda tmp, *args: (seen.append(tmp), real(tmp, *args))[1])
    write_artifact(path, **artifact(["a"]))
    write_artifact(path, **artifact(["a", "b"]))  # the second replaces the first: rename and sweep work too
    assert all(len(os.fsencode(tmp.name + ".wal")) <= 255 for tmp in seen)
    stale = tmp_path / f"{sibling_stem(path)}.tmp-{dead_pid()}-deadbeef"
    stale.write_bytes(b"partial")
    sweep_stale_temporaries(path)
    assert not stale.exists()
    with open_artifact(path) as con:
        assert con.execute("SELECT count(*) FROM chunks").fetchone() == (2,)
    assert sibling_stem(tmp_path / "kb.duckdb") == "kb.duckdb"  # an ordinary name keeps its temporaries' names
