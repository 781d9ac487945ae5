"""Reading an artifact: its manifest, its chunk hashes (for planning) and its vectors."""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import duckdb
import numpy as np

from ..config import artifact_name_problem
from ..errors import UserError
from .arrow_numpy import numpy_view
from .schema import SCHEMA_VERSION
from .vectors import TABLE as VECTORS, read_matrix, read_some


@dataclass(frozen=True)
class ChunkState:
    content_hash: str
    meta_hash: str


@dataclass
class PreviousState:
    """What a build plans against: the last good artifact's hashes and embedder."""

    path: Path
    embedder_id: str
    dim: int
    chunks: dict[str, ChunkState] = field(default_factory=dict)
    table_hashes: dict[str, str] = field(default_factory=dict)
    #: Chunks per second the last build embedded at (None: not measured), for the next plan's estimate.
    embed_rate: float | None = None
    #: Each unit's access as built (a scene's own, else its story's), for the plan's access changes.
    unit_access: dict[str, str] = field(default_factory=dict)


#: What to do about a damaged artifact: a full build writes a new one beside it, then replaces it.
REBUILD_HINT = "rebuild it with `unitrag build --full`"


class ArtifactDamaged(UserError):
    """The file is a unitrag artifact in name only: truncated, or its manifest edited or broken."""

    def __init__(self, path: Path, what: str) -> None:
        super().__init__(f"artifact {path} is damaged ({what}); {REBUILD_HINT}")


#: DuckDB's words when another process holds the file open for writing, and that process's PID where it says it.
_LOCK_HELD = re.compile(r"Could not set lock on file.*?(?:\(PID (\d+)\)|$)", re.DOTALL)


@contextmanager
def open_artifact(path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to a checked artifact, or a UserError that says what is wrong with the file.

    The manifest is checked on every open (a few rows), and any DuckDB error while
    the connection is in use (a truncated file fails only when a damaged page is
    read) becomes the same one-line error naming the file and what to do.
    """
    check_artifact_file(path)  # a FIFO or a device would hang DuckDB's open (a FIFO with no writer never opens)
    if not path.exists():
        from ..content.errors import misspelled_file  # on this error only: the reader's start-up stays lean

        if (meant := misspelled_file(path)) is not None:
            raise UserError(f"artifact {path} not found: did you mean {meant}?")
        raise UserError(f"artifact {path} not found: run `unitrag build` first (or pass --kb/--out)")
    if not looks_like_duckdb(path):  # said, never "rebuild it": a build would replace what the file holds
        raise UserError(f"artifact {path} is not a DuckDB file: pass the one `unitrag build` writes "
                        "(dist/kb.duckdb by default)")
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        held = _LOCK_HELD.search(str(exc))
        if held is not None:  # the file is sound: "rebuild it with --full" would re-embed all and meet the same lock
            raise UserError(f"artifact {path} is locked by another process (PID {held.group(1) or 'unknown'}), "
                            "which opened it for writing: close that process, or wait for it to finish, and run "
                            "this again") from None
        raise UserError(f"artifact {path} cannot be opened as a DuckDB file ({_first_line(exc)}); {REBUILD_HINT}") from None
    try:
        version = con.execute("SELECT max(version) FROM schema_migrations").fetchone()
        if version is None or version[0] is None:
            raise UserError(f"{path} is not a unitrag artifact (no schema_migrations)")
        if int(version[0]) > SCHEMA_VERSION:
            raise UserError(
                f"{path} has artifact schema {version[0]}, newer than this unitrag knows ({SCHEMA_VERSION}); upgrade unitrag"
            )
        _check_manifest(con, path)
        yield con
    except duckdb.CatalogException:
        raise UserError(f"{path} is not a unitrag artifact (missing tables)") from None
    except duckdb.Error as exc:
        raise ArtifactDamaged(path, f"truncated or corrupt: {_first_line(exc)}") from None
    finally:
        con.close()


def _check_manifest(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """The manifest fields every reader relies on, and its dimension against the vectors' column."""
    try:
        manifest = read_manifest(con)
    except ValueError as exc:  # a value that is not JSON
        raise ArtifactDamaged(path, f"manifest is not JSON: {exc}") from None
    embedder = manifest.get("embedder")
    if not isinstance(embedder, dict) or not isinstance(embedder.get("id"), str) or not embedder["id"]:
        raise ArtifactDamaged(path, "manifest has no embedder id")
    dim = embedder.get("dim")
    if isinstance(dim, bool) or not isinstance(dim, int) or dim <= 0:
        raise ArtifactDamaged(path, f"manifest embedder dim {dim!r} is not a positive whole number")
    column = con.execute(
        "SELECT data_type FROM duckdb_columns() WHERE table_name = 'chunks' AND column_name = 'embedding'"
    ).fetchone()
    if column is not None and column[0] != f"FLOAT[{dim}]":
        raise ArtifactDamaged(path, f"manifest says {dim} dimensions, the vectors are {column[0]}")
    if not isinstance(manifest.get("table_hashes", {}), dict):
        raise ArtifactDamaged(path, "manifest table_hashes is not a mapping")


def check_artifact_file(path: Path) -> None:
    """A UserError unless ``path`` is a regular file (or absent): checked by its status, before any open."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:  # absent, a part of the path not a folder, no permission: whoever opens or creates it says why
        if exc.errno == errno.ENAMETOOLONG:  # else a traceback from the next stat (``Path.exists`` lets it through)
            problem = artifact_name_problem(path) or "the path is longer than the system allows; choose a shorter one"
            shown = path.name if len(path.name) <= 40 else f"{path.name[:40]}…"
            raise UserError(f"artifact {shown}: {problem} (config key 'artifact': --out, --kb, UNITRAG_ARTIFACT "
                            "or unitrag.toml)") from None
        return
    if stat.S_ISDIR(mode):
        raise UserError(f"artifact {path} is a folder: give the artifact file (dist/kb.duckdb by default)")
    if not stat.S_ISREG(mode):
        raise UserError(f"artifact {path} is not a regular file (a FIFO, a device or a socket): give the artifact "
                        "file (dist/kb.duckdb by default)")


#: Where every DuckDB database file carries its magic bytes (after an 8-byte checksum).
DUCKDB_MAGIC = (8, b"DUCK")


def looks_like_duckdb(path: Path) -> bool:
    """A DuckDB file, perhaps damaged: ``DUCK`` at byte 8 (a truncated or corrupt artifact keeps its header).

    Empty counts as one (DuckDB says why it cannot open it; replacing it loses nothing); any other file shorter
    than the header does not. Read without blocking: call ``check_artifact_file`` first for a FIFO.
    """
    offset, magic = DUCKDB_MAGIC
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError:
        return True  # unreadable: DuckDB says why
    try:
        head = os.read(fd, offset + len(magic))
    except OSError:
        return True
    finally:
        os.close(fd)
    return head[offset:] == magic if len(head) >= offset + len(magic) else not head


def refuse_non_artifact(path: Path) -> None:
    """A UserError when ``path`` exists and is not a DuckDB file: writing the artifact there would replace it.

    A damaged artifact (truncated, corrupt) keeps DuckDB's header and may be replaced (``unitrag build --full``);
    a YAML file, a Markdown unit or anything else given as ``--out`` by mistake never is.
    """
    check_artifact_file(path)  # a FIFO or a device: said before anything opens it
    if path.is_file() and not looks_like_duckdb(path):
        raise UserError(f"cannot write the artifact to {path}: the file exists and is not a DuckDB artifact, and a build "
                        "would replace it; choose another --out (or `artifact` in unitrag.toml), or delete the file "
                        "yourself if it is an old artifact")


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def read_manifest(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    return {key: json.loads(value) for key, value in con.execute("SELECT key, value FROM manifest").fetchall()}


def read_previous(path: Path) -> PreviousState | None:
    """The state to plan against, or None when there is no artifact yet."""
    if not path.exists():
        return None
    with open_artifact(path) as con:
        manifest = read_manifest(con)
        rows = con.execute("SELECT chunk_id, content_hash, meta_hash FROM chunks").fetchall()
        # each unit's access as its chunks serve it (public when any is): a chunk --reconcile held back keeps its old
        # row, and the build that embeds it is the one that changes what the public sees, to be said in its plan
        access = dict(con.execute("SELECT unit_id, access FROM units").fetchall())
        access.update(con.execute("SELECT unit_id, CASE WHEN bool_or(access = 'public') THEN 'public' ELSE min(access) "
                                  "END FROM chunks GROUP BY unit_id").fetchall())
    return PreviousState(
        path=path,
        embedder_id=manifest["embedder"]["id"],
        dim=int(manifest["embedder"]["dim"]),
        chunks={cid: ChunkState(ch, mh) for cid, ch, mh in rows},
        table_hashes=manifest.get("table_hashes", {}),
        unit_access=access,
        embed_rate=_positive((manifest.get("embed_rate") or {}).get("chunks_per_s") if isinstance(manifest.get("embed_rate"), dict) else None),
    )


def _positive(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None


#: Up to this many chunks ``read_vectors`` fetches their rows by number; past it, one read of the whole table.
FEW_VECTORS = 1000


def read_vectors(con: duckdb.DuckDBPyConnection, where: str = "", params: list[Any] | None = None) -> tuple[list[str], np.ndarray]:
    """Chunk ids (``where`` selects them) in id order and their vectors as one contiguous float32 matrix.

    From ``dense_vectors`` in a schema-6 artifact (only the selected rows when they are few),
    else from the ``embedding`` column older artifacts hold.
    """
    if not has_table(con, VECTORS):
        sql = f"SELECT chunk_id, embedding FROM chunks {where} ORDER BY chunk_id"
        table = con.execute(sql, params or []).to_arrow_table()
        ids = table.column("chunk_id").to_pylist()
        column = table.column("embedding").combine_chunks()
        flat = column.values.to_numpy(zero_copy_only=False)
        return ids, np.ascontiguousarray(flat.reshape(len(ids), column.type.list_size), dtype=np.float32)
    table = con.execute(f"SELECT chunk_id, chunk_no FROM chunks {where} ORDER BY chunk_id", params or []).to_arrow_table()
    dim = int(read_manifest(con)["embedder"]["dim"])
    chunk_nos = numpy_view(table.column("chunk_no"))
    few = chunk_nos.shape[0] <= FEW_VECTORS
    return table.column("chunk_id").to_pylist(), (read_some if few else read_matrix)(con, dim, chunk_nos)


def has_table(con: Any, name: str) -> bool:
    """Tables added by later migrations are absent from older artifacts.

    No bound parameter: DuckDB's Python client imports pandas to bind one (1 s at ``KnowledgeBase.open``).
    """
    return name in {row[0] for row in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}


def rows_as_dicts(con: Any, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    """Each row of ``sql`` as a dict by column name (any DB-API connection: DuckDB, psycopg)."""
    cursor = con.execute(sql, params) if params is not None else con.execute(sql)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]
