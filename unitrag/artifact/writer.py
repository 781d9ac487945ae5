"""Writing an artifact atomically: a new file beside the old, verified, then renamed over it.

Whatever happens before the rename (an exception, Ctrl-C, SIGKILL, a full disk),
the previous artifact is untouched byte for byte; after it, the new one is
complete. Leftover temporary files of dead processes are swept on the next write.
"""

from __future__ import annotations

import json
import os
import signal
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from glob import escape as glob_escape
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from ..content.text.tokenize import TOKENIZER_VERSION
from ..errors import UserError
from .names import sibling_stem, temporary_path
from .postings import Postings, count_postings, write_postings
from .reader import refuse_non_artifact
from .schema import migrate
from .vectors import write_vectors
from .write_errors import plain_write_errors

#: Test hook: set to a fault point ("before-rename"; "after-copy" in an incremental write) to SIGKILL the process there.
FAULT_ENV = "UNITRAG_FAULT_INJECT"


def write_artifact(
    path: Path, *, dim: int, manifest: dict[str, Any], tables: dict[str, list[dict[str, Any]]],
    chunk_rows: list[dict[str, Any]], embeddings: np.ndarray,
) -> None:
    """Replace ``path`` with an artifact holding exactly these rows, or leave it as it was (a full disk: one
    UserError saying so, ``write_errors``)."""
    if embeddings.shape != (len(chunk_rows), dim):
        raise ValueError(f"embeddings shape {embeddings.shape} does not match {len(chunk_rows)} chunks × {dim}")
    check_destination(path)
    sweep_stale_temporaries(path)
    order = sorted(range(len(chunk_rows)), key=lambda i: chunk_rows[i]["chunk_id"])  # stored in chunk_id order:
    chunk_rows, embeddings = [chunk_rows[i] for i in order], embeddings[order]  # a reader then needs no sort
    postings = stored_postings(chunk_rows)
    with writing_beside(path) as tmp:
        _write(tmp, dim, manifest, tables, chunk_rows, embeddings, postings)
        expected = {name: len(rows) for name, rows in tables.items()}
        expected.update(chunks=len(chunk_rows), sparse_postings=len(postings) if postings else 0,
                        sparse_vocab=len(postings.terms) if postings else 0, dense_vectors=len(chunk_rows))
        commit_temporary(tmp, path, expected)


@contextmanager
def writing_beside(path: Path) -> Iterator[Path]:
    """A new temporary beside ``path`` for a write that ends in ``commit_temporary``: removed when anything fails
    (a signal included), and a failure for want of room is one UserError (``write_errors``). Both writers, the
    full one and the incremental one, write through it."""
    tmp = temporary_path(path, uuid.uuid4().hex[:8])
    with plain_write_errors(path):  # a full disk, ulimit -f: one line, the temporary removed
        try:
            yield tmp
        except BaseException:
            remove_temporary(tmp)
            raise


#: Rows per DuckDB row group in a written artifact (DuckDB's default is 122,880). A checkpoint rewrites the
#: row group an insert lands in: with small groups a one-chunk incremental write rewrites ≤ 16k rows, not
#: the whole chunks table (measured at 100k chunks: 0.08 s instead of 13.8 s).
ROW_GROUP_SIZE = 16_384


def connect_for_writing(path: Path) -> duckdb.DuckDBPyConnection:
    """A connection whose default database is ``path``, attached with ``ROW_GROUP_SIZE`` rows per row group."""
    con = duckdb.connect()
    quoted = str(path).replace("'", "''")
    con.execute(f"ATTACH '{quoted}' AS artifact (ROW_GROUP_SIZE {ROW_GROUP_SIZE})")
    con.execute("USE artifact")
    return con


def commit_temporary(tmp: Path, path: Path, expected: dict[str, int]) -> None:
    """Verify the finished temporary, fsync it, rename it over ``path`` and fsync the folder."""
    _verify(tmp, expected)
    _fsync_file(tmp)  # the new file's bytes reach the disk before the rename makes it the artifact
    fault_point("before-rename")
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def fault_point(name: str) -> None:
    """Test hook: SIGKILL this process here when ``UNITRAG_FAULT_INJECT`` names this point."""
    if os.environ.get(FAULT_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


def check_destination(path: Path) -> None:
    """Create the artifact's folder and prove a file can be written there.

    Builds call this before embedding anything: finding out after minutes of
    embedding that ``--out`` points nowhere writable wastes all of them.
    """
    if path.is_dir():
        raise UserError(f"cannot write the artifact to {path}: it is a folder; pass a file path with --out")
    refuse_non_artifact(path)
    probe = temporary_path(path, "probe")  # swept like any temporary if we die here
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        probe.open("xb").close()
        probe.unlink()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        if isinstance(exc, (FileExistsError, NotADirectoryError)):
            reason = "a part of the path is a file, not a folder"
        raise UserError(
            f"cannot write the artifact {path}: {reason}; choose another --out or fix the folder"
        ) from None


def _write(
    tmp: Path, dim: int, manifest: dict[str, Any], tables: dict[str, list[dict[str, Any]]],
    chunk_rows: list[dict[str, Any]], embeddings: np.ndarray, postings: Postings | None,
) -> None:
    con = connect_for_writing(tmp)
    try:
        migrate(con, dim)
        con.execute("BEGIN")
        manifest = {**manifest, **sparse_manifest(postings, len(chunk_rows))}
        con.executemany(
            "INSERT INTO manifest VALUES (?, ?)", [[k, json.dumps(v, ensure_ascii=False)] for k, v in manifest.items()]
        )
        for name, rows in tables.items():
            _insert(con, name, rows)
        if chunk_rows:
            con.register("chunk_rows", chunk_table(chunk_rows, np.arange(len(chunk_rows)), postings))
            con.execute("INSERT INTO chunks BY NAME SELECT * FROM chunk_rows")
            con.unregister("chunk_rows")
            write_vectors(con, embeddings, np.arange(len(chunk_rows)))
        if postings is not None:
            write_postings(con, postings, np.arange(len(chunk_rows)))
        con.execute("COMMIT")
        con.execute("CHECKPOINT")
    finally:
        con.close()


def stored_postings(chunk_rows: list[dict[str, Any]]) -> Postings | None:
    """The BM25 postings of rows that all carry ``sparse_terms``; None when any lacks them (the runtime tokenises)."""
    if not chunk_rows or any(row.get("sparse_terms") is None for row in chunk_rows):
        return None
    return count_postings([row["sparse_terms"] for row in chunk_rows])


def sparse_manifest(postings: Postings | None, n_chunks: int) -> dict[str, Any]:
    """The manifest entry that says the stored BM25 index covers every chunk (absent: no stored index), made by this
    tokenizer (the chunks' ``sparse_terms`` are: ``compiler.tables``)."""
    if postings is None:
        return {}
    return {"sparse_index": {"chunks": n_chunks, "terms": len(postings.terms), "postings": len(postings), "grouped": True,
                             "tokenizer": TOKENIZER_VERSION}}


def chunk_table(chunk_rows: list[dict[str, Any]], chunk_nos: np.ndarray, postings: Postings | None) -> pa.Table:
    """``chunks`` rows as one Arrow table: the rows, their chunk numbers and BM25 lengths (vectors: ``write_vectors``)."""
    table = pa.Table.from_pylist(chunk_rows).append_column("chunk_no", pa.array(np.asarray(chunk_nos, np.int32)))
    if postings is not None:
        table = table.append_column("sparse_length", pa.array(postings.lengths))
    return table


def _insert(con: duckdb.DuckDBPyConnection, name: str, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    con.register("incoming", pa.Table.from_pylist(rows))
    con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM incoming")
    con.unregister("incoming")


def _verify(tmp: Path, expected: dict[str, int]) -> None:
    """Reopen the new file and check every table holds what was written."""
    con = duckdb.connect(str(tmp), read_only=True)
    try:
        for table, count in expected.items():
            row = con.execute(f"SELECT count(*) FROM {table}").fetchone()
            found = int(row[0]) if row else -1
            if found != count:
                raise UserError(f"artifact verification failed: {table} has {found} rows, expected {count}; nothing was replaced")
        if con.execute("SELECT count(*) FROM manifest WHERE key = 'embedder'").fetchone() != (1,):
            raise UserError("artifact verification failed: manifest has no embedder; nothing was replaced")
    finally:
        con.close()


def sweep_stale_temporaries(path: Path) -> None:
    """Remove temporaries left by builds that died (their pid no longer runs)."""
    for tmp in path.parent.glob(f"{glob_escape(sibling_stem(path))}.tmp-*"):
        pid_text = tmp.name.split(".tmp-", 1)[1].split("-", 1)[0]
        if pid_text.isdigit() and not _alive(int(pid_text)):
            remove_temporary(tmp)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_temporary(tmp: Path) -> None:
    for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
        try:
            leftover.unlink()
        except FileNotFoundError:
            pass


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
