"""A damaged, empty, read-only or full embedding cache never blocks a build, and never changes its result:
damage is set aside (renamed, nothing lost) and a new cache started; a cache that can only be read is read."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import numpy as np
import pytest

import unitrag.compiler.cache as cache_module
from unitrag.compiler.cache import FILE, EmbeddingCache
from unitrag.compiler.cache_file import is_damaged

from tests.compiler.test_cache import unit_vectors

RULE = "en-blood-pressure-severe.md"


def filled_cache(directory: Path, n: int = 6000) -> list[str]:
    """A cache of ``n`` 64-dimension vectors (about 1.7 MB: several DuckDB blocks); returns their hashes."""
    hashes = [f"h{i}" for i in range(n)]
    cache = EmbeddingCache(directory)
    cache.put_many("e", hashes, np.random.default_rng(0).standard_normal((n, 64)).astype(np.float32))
    cache.close()
    return hashes


def warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("warning:")]


@pytest.mark.parametrize("damage", ["truncated", "corrupted"])
def test_a_cache_damaged_mid_file_is_set_aside_when_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str) -> None:
    directory = tmp_path / "cache"
    hashes = filled_cache(directory)
    path = directory / FILE
    size = path.stat().st_size
    if damage == "truncated":
        os.truncate(path, size // 2)
    else:
        with path.open("r+b") as file:
            file.seek(size // 2)
            file.write(os.urandom(64 * 4096))
    damaged = path.read_bytes()
    cache = EmbeddingCache(directory)
    assert cache.get_many("e", hashes) == {}  # the damage shows when its pages are read: no traceback
    [line] = warnings(capsys.readouterr().err)
    assert f"embedding cache {path} is damaged" in line and "a new cache was started" in line
    cache.put_many("e", ["new"], unit_vectors(1))  # the new cache takes vectors at once
    assert set(cache.get_many("e", ["new", "h1"])) == {"new"}
    cache.close()
    [aside] = directory.glob(f"{FILE}.damaged-*")
    assert aside.read_bytes() == damaged  # set aside, not deleted


def test_an_empty_cache_file_left_by_a_full_disk_is_replaced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = tmp_path / "cache"
    directory.mkdir()
    (directory / FILE).write_bytes(b"")
    cache = EmbeddingCache(directory)
    cache.put_many("e", ["h"], unit_vectors(1))
    assert set(cache.get_many("e", ["h"])) == {"h"}
    cache.close()
    [line] = warnings(capsys.readouterr().err)
    assert "is damaged" in line and "it was empty and was removed" in line
    assert [p.name for p in directory.iterdir() if p.name.startswith(FILE)] == [FILE]  # nothing to keep: no .damaged


def test_a_lock_or_permission_error_is_not_damage(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    filled_cache(directory, 10)
    for message in ('IO Error: Could not set lock on file "x": Conflicting lock is held in python (PID 1)',
                    'IO Error: Cannot open file "x": Permission denied'):
        assert not is_damaged(directory / FILE, duckdb.IOException(message))


def _read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening the cache for writing fails as it does for a file the build may read but not write."""
    real = duckdb.connect

    def connect(database: str = ":memory:", read_only: bool = False, **kwargs: object) -> duckdb.DuckDBPyConnection:
        if str(database).endswith(FILE) and not read_only:
            raise duckdb.IOException(f'IO Error: Cannot open file "{database}": Permission denied')
        return real(database, read_only=read_only, **kwargs)

    monkeypatch.setattr(cache_module.duckdb, "connect", connect)


def test_a_read_only_cache_is_read_and_the_plan_says_the_same(
        tiny, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    rule = tiny.content / "rules" / RULE
    text = rule.read_text(encoding="utf-8")
    tiny.build()
    rule.write_text(text + "\nMore.\n", encoding="utf-8")
    tiny.build()  # the edited chunk's vector goes to the cache
    rule.write_text(text, encoding="utf-8")  # reverted: its vector is in the cache, not in the artifact
    capsys.readouterr()
    cache_file = tiny.config.cache_dir / FILE
    before = cache_file.read_bytes()
    _read_only(monkeypatch)
    plan = tiny.build(dry_run=True)
    report = tiny.build()
    assert plan.estimate.from_cache == report.from_cache == 1 and report.embedded == 0
    [line] = [w for w in warnings(capsys.readouterr().err) if "embedding cache" in w]
    assert "can be read but not written: its vectors are used, new ones are not saved" in line
    assert cache_file.read_bytes() == before


def test_a_full_disk_while_saving_vectors_is_one_warning_and_the_build_goes_on(
        tiny, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def full(*args: object) -> None:
        raise duckdb.IOException('IO Error: Could not write file "embeddings.duckdb.wal": No space left on device')

    monkeypatch.setattr(cache_module, "_write", full)
    report = tiny.build()
    assert report.written and report.embedded > 0
    [line] = [w for w in warnings(capsys.readouterr().err) if "embedding cache" in w]
    assert "saving new vectors failed" in line and "No space left on device" in line
    assert not list(tiny.config.cache_dir.glob(f"{FILE}.damaged-*"))  # not damage: left as it is


def test_a_build_past_a_truncated_cache_succeeds_and_full_does_not_leave_it_to_crash_the_next(
        tiny, capsys: pytest.CaptureFixture[str]) -> None:
    rule = tiny.content / "rules" / RULE
    text = rule.read_text(encoding="utf-8")
    filled_cache(tiny.config.cache_dir)  # vectors of another "embedder" make the file several blocks long
    path = tiny.config.cache_dir / FILE
    os.truncate(path, path.stat().st_size // 2)
    assert tiny.build(full=True).written  # --full reads no cache ...
    rule.write_text(text + "\nMore.\n", encoding="utf-8")
    report = tiny.build()  # ... and the next build, which does, goes on
    assert report.written and report.embedded == 1
    assert len(list(tiny.config.cache_dir.glob(f"{FILE}.damaged-*"))) == 1
    assert "Traceback" not in capsys.readouterr().err
    rule.write_text(text, encoding="utf-8")
    assert tiny.build().embedded == 1  # its vector was in the cache set aside
    rule.write_text(text + "\nMore.\n", encoding="utf-8")
    again = tiny.build()
    assert again.from_cache == 1 and again.embedded == 0  # the new cache saved the edited chunk's vector


def test_a_full_disk_on_first_use_is_not_taken_for_damage(tmp_path: Path) -> None:
    """The empty file a first write leaves on a full disk is recovered by a later build, not by this one (which
    would only fail again and say two things)."""
    directory = tmp_path / "cache"
    directory.mkdir()
    (directory / FILE).write_bytes(b"")
    error = duckdb.IOException(f'IO Error: Could not write file "{directory / FILE}": No space left on device')
    assert not is_damaged(directory / FILE, error)
