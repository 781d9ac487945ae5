"""The user cache's atomic write: the old file or the new one, never half of one, no temporary left."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from unitrag.user_cache import CACHE_ENV, cache_root, write_atomically


def test_a_write_replaces_the_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "table.bin"
    write_atomically(target, b"old")
    write_atomically(target, b"new")
    assert target.read_bytes() == b"new" and sorted(p.name for p in target.parent.iterdir()) == ["table.bin"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "table.bin"
    write_atomically(target, b"old")

    def broken(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        write_atomically(target, b"new")
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["table.bin"]


def test_the_cache_root_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    assert cache_root() == tmp_path
    monkeypatch.delenv(CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "unitrag"
