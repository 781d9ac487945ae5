"""write_artifact: atomic replace, verified, old file untouched on failure, stale temporaries swept."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest

import unitrag.artifact.writer as writer
from unitrag.artifact.reader import open_artifact, read_manifest, read_vectors
from unitrag.artifact.writer import sweep_stale_temporaries, write_artifact
from unitrag.errors import UserError

DIM = 6


def unit_vectors(n: int, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def chunk_row(cid: str) -> dict[str, Any]:
    return {
        "chunk_id": cid, "unit_id": cid.split("#")[0], "kind": "scene", "story_id": "s", "scene_id": cid.split("#")[0],
        "page": None, "title": f"Title {cid}", "lang": "en", "access": "public", "topics": ["iron"],
        "citation_ids": ["who"], "text_for_embedding": f"embed {cid}", "text_for_prompt": f"prompt {cid}",
        "extra": '{"order":1}', "source_path": f"scenes/{cid}.md", "content_hash": f"c-{cid}", "meta_hash": f"m-{cid}",
    }


def artifact(ids: list[str], seed: int = 0, embedder: str = "test:emb") -> dict[str, Any]:
    return {
        "dim": DIM,
        "manifest": {"embedder": {"id": embedder, "dim": DIM}, "schema_version": 1, "table_hashes": {"prompts": "p"}},
        "tables": {
            "prompts": [{"name": "answer", "template": "{{ question }}"}],
            "citations": [{"id": "who", "title": "WHO", "authors": ["WHO"], "year": 2020, "venue": None,
                           "url": None, "doi": None, "pmid": None}],
        },
        "chunk_rows": [chunk_row(cid) for cid in ids],
        "embeddings": unit_vectors(len(ids), seed),
    }


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if ".tmp-" in p.name)


def test_write_then_read(tmp_path: Path) -> None:
    path = tmp_path / "dist" / "kb.duckdb"  # parent created
    spec = artifact(["b", "a", "c"])
    write_artifact(path, **spec)
    with open_artifact(path) as con:
        assert read_manifest(con)["embedder"] == {"id": "test:emb", "dim": DIM}
        ids, matrix = read_vectors(con)
        assert con.execute("SELECT count(*) FROM prompts").fetchone() == (1,)
        assert con.execute("SELECT authors FROM citations").fetchone() == (["WHO"],)
    assert ids == ["a", "b", "c"]
    np.testing.assert_array_equal(matrix, spec["embeddings"][[1, 0, 2]])
    assert leftovers(path.parent) == []


def test_writing_replaces_the_previous_artifact(tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    write_artifact(path, **artifact(["a", "b"], seed=1))
    write_artifact(path, **artifact(["c"], seed=2, embedder="other:emb"))
    with open_artifact(path) as con:
        ids, _ = read_vectors(con)
        assert read_manifest(con)["embedder"]["id"] == "other:emb"
    assert ids == ["c"]


def test_zero_chunks_is_a_valid_artifact(tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    write_artifact(path, **artifact([]))
    with open_artifact(path) as con:
        ids, matrix = read_vectors(con)
    assert ids == [] and matrix.shape == (0, DIM)


def test_shape_mismatch_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    spec = artifact(["a", "b"])
    spec["embeddings"] = spec["embeddings"][:1]
    with pytest.raises(ValueError, match="does not match"):
        write_artifact(path, **spec)
    assert not path.exists() and leftovers(tmp_path) == []


@pytest.mark.parametrize("stage", ["_write", "_verify"])
@pytest.mark.parametrize("error", [RuntimeError("disk full"), KeyboardInterrupt()])
def test_failure_leaves_the_old_file_byte_identical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str, error: BaseException) -> None:
    path = tmp_path / "kb.duckdb"
    write_artifact(path, **artifact(["a", "b"], seed=1))
    before = path.read_bytes()
    real = getattr(writer, stage)
    written: list[Path] = []

    def fail_after_real_work(tmp: Path, *args: Any) -> None:
        real(tmp, *args)  # the temporary file really exists when the failure happens
        written.append(tmp)
        assert tmp.exists()
        raise error

    monkeypatch.setattr(writer, stage, fail_after_real_work)
    with pytest.raises(type(error)):
        write_artifact(path, **artifact(["x", "y", "z"], seed=9, embedder="new:emb"))
    assert written and not written[0].exists()
    assert path.read_bytes() == before
    assert leftovers(tmp_path) == []
    with open_artifact(path) as con:
        assert read_vectors(con)[0] == ["a", "b"]


def test_real_verification_failure_keeps_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    write_artifact(path, **artifact(["a"]))
    before = path.read_bytes()
    spec = artifact(["b"])
    del spec["manifest"]["embedder"]  # _verify insists on a manifest embedder
    with pytest.raises(UserError, match="verification failed"):
        write_artifact(path, **spec)
    assert path.read_bytes() == before
    assert leftovers(tmp_path) == []


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_stale_temporaries_of_dead_processes_are_swept(tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    pid = dead_pid()
    stale = tmp_path / f"kb.duckdb.tmp-{pid}-deadbeef"
    stale_wal = tmp_path / f"kb.duckdb.tmp-{pid}-deadbeef.wal"
    live = tmp_path / f"kb.duckdb.tmp-{os.getpid()}-0badc0de"  # a build still running
    odd = tmp_path / "kb.duckdb.tmp-notapid"
    other = tmp_path / f"other.duckdb.tmp-{pid}-deadbeef"  # another artifact's business
    for p in (stale, stale_wal, live, odd, other):
        p.write_bytes(b"partial")
    sweep_stale_temporaries(path)
    assert not stale.exists() and not stale_wal.exists()
    assert live.exists() and odd.exists() and other.exists()


def test_write_artifact_sweeps_before_writing(tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    stale = tmp_path / f"kb.duckdb.tmp-{dead_pid()}-12345678"
    stale.write_bytes(b"partial")
    write_artifact(path, **artifact(["a"]))
    assert not stale.exists()
    assert leftovers(tmp_path) == []


def test_temporary_is_written_beside_the_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Path] = []
    real = writer._write

    def spy(tmp: Path, *args: Any) -> None:
        seen.append(tmp)
        real(tmp, *args)

    monkeypatch.setattr(writer, "_write", spy)
    path = tmp_path / "kb.duckdb"
    write_artifact(path, **artifact(["a"]))
    assert seen[0].parent == path.parent  # same filesystem: the rename is atomic
    assert seen[0].name.startswith(f"kb.duckdb.tmp-{os.getpid()}-")
    assert duckdb.connect(str(path), read_only=True).execute("SELECT count(*) FROM chunks").fetchone() == (1,)


def _uncreatable(tmp_path: Path) -> list[Path]:
    """Artifact paths no one can create, root included (root ignores permission bits)."""
    (tmp_path / "a-file").write_text("not a folder", encoding="utf-8")
    return [tmp_path / "a-file" / "kb.duckdb", tmp_path / "a-file" / "deeper" / "kb.duckdb", Path("/proc/unitrag-test/kb.duckdb")]


def test_an_uncreatable_destination_is_a_user_error_naming_it(tmp_path: Path) -> None:
    for path in _uncreatable(tmp_path):
        with pytest.raises(UserError, match="cannot write the artifact") as caught:
            writer.check_destination(path)
        assert str(path) in str(caught.value) and "--out" in str(caught.value)
        with pytest.raises(UserError, match="cannot write the artifact"):
            write_artifact(path, **artifact(["a"]))


def test_a_folder_as_destination_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="is a folder"):
        writer.check_destination(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_a_user_error(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(UserError, match="cannot write the artifact"):
            writer.check_destination(folder / "kb.duckdb")
    finally:
        folder.chmod(0o755)


def test_check_destination_leaves_nothing_behind(tmp_path: Path) -> None:
    path = tmp_path / "new" / "kb.duckdb"
    writer.check_destination(path)
    assert path.parent.is_dir() and list(path.parent.iterdir()) == []


def test_an_existing_file_that_is_not_a_duckdb_artifact_is_never_replaced(tmp_path: Path) -> None:
    for text in ("topics:\n  - id: iron\n" * 50, "short\n"):
        path = tmp_path / "topics.yaml"
        path.write_text(text, encoding="utf-8")
        for write in (writer.check_destination, lambda p: write_artifact(p, **artifact(["a"]))):
            with pytest.raises(UserError, match="not a DuckDB artifact") as caught:
                write(path)
            assert "delete the file yourself" in str(caught.value) and "--full" not in str(caught.value)
            assert path.read_text(encoding="utf-8") == text


def test_a_damaged_artifact_may_be_replaced_by_a_full_write(tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    write_artifact(path, **artifact(["a", "b"]))
    path.write_bytes(path.read_bytes()[:4096])  # truncated: DuckDB's header is still there
    with pytest.raises(UserError, match="rebuild it with `unitrag build --full`"):
        with open_artifact(path):
            pass
    write_artifact(path, **artifact(["a"]))
    with open_artifact(path) as con:
        assert read_manifest(con)["embedder"]["dim"] == DIM
