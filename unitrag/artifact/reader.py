"""Reading an artifact: its manifest, its chunk hashes (for planning) and its vectors."""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import duckdb
import numpy as np

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


#: What to do about a damaged artifact: a full build writes a new one beside it, then replaces it.
REBUILD_HINT = "rebuild it with `unitrag build --full`"


class ArtifactDamaged(UserError):
    """The file is a unitrag artifact in name only: truncated, or its manifest edited or broken."""

    def __init__(self, path: Path, what: str) -> None:
        super().__init__(f"artifact {path} is damaged ({what}); {REBUILD_HINT}")


@contextmanager
def open_artifact(path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to a checked artifact, or a UserError that says what is wrong with the file.

    The manifest is checked on every open (a few rows), and any DuckDB error while
    the connection is in use (a truncated file fails only when a damaged page is
    read) becomes the same one-line error naming the file and what to do.
    """
    if not path.exists():
        raise UserError(f"artifact {path} not found: run `unitrag build` first (or pass --kb/--out)")
    if path.is_file() and not _looks_like_duckdb(path):
        raise UserError(f"artifact {path} is not a DuckDB file: pass the one `unitrag build` writes "
                        f"(dist/kb.duckdb by default), or {REBUILD_HINT}")
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
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


def _looks_like_duckdb(path: Path) -> bool:
    """DuckDB files carry ``DUCK`` at byte 8; an empty file is left to DuckDB's own error."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(12)
    except OSError:
        return True  # unreadable: DuckDB says why
    return head[8:12] == b"DUCK" if len(head) >= 12 else not head


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
    return PreviousState(
        path=path,
        embedder_id=manifest["embedder"]["id"],
        dim=int(manifest["embedder"]["dim"]),
        chunks={cid: ChunkState(ch, mh) for cid, ch, mh in rows},
        table_hashes=manifest.get("table_hashes", {}),
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
