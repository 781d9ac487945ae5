"""The vector matrix as the artifact stores it (schema 6): each chunk's vector as raw float32 bytes.

Older artifacts keep each vector in ``chunks.embedding`` (FLOAT[dim]), which DuckDB compresses
(ALPRD) at write and decodes into an Arrow list at read. Here ``dense_vectors`` holds one BLOB
of ``dim`` little-endian float32 per chunk number (``chunks.chunk_no``): nothing to compress
(writing 100k × 384 took 2.5 s against 6.4 s as FLOAT[384], under load) and, read in one
query, the BLOBs arrive as one Arrow buffer that is viewed in place as the (n, dim) matrix, no
per-row object made.

Measured against BLOB parts of 4,096 vectors (docs/benchmarks/scale.md): reads as fast, and a change
to one chunk touches one row: parts sat in one DuckDB row group, which a checkpoint rewrites
whole (146 MiB at 100k chunks) when any part changes.

A full write stores rows in chunk number order, which is ``chunk_id`` order, and DuckDB returns
a table's rows in insertion order, so the rows are the store's and open needs no gather. An incremental write deletes the rows of the numbers it drops
and appends those of the numbers it gives; the reader then gathers the store's order (one copy).
"""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa

from .arrow_numpy import numpy_view, read_whole

TABLE = "dense_vectors"
_FLOAT = np.dtype("<f4")


def write_vectors(con: duckdb.DuckDBPyConnection, vectors: np.ndarray, chunk_nos: np.ndarray) -> None:
    """Store row i of ``vectors`` as the vector of chunk number ``chunk_nos[i]``."""
    n, dim = vectors.shape
    if n == 0:
        return
    raw = pa.py_buffer(np.ascontiguousarray(vectors, dtype=_FLOAT).tobytes())
    blobs = pa.FixedSizeBinaryArray.from_buffers(pa.binary(dim * _FLOAT.itemsize), n, [None, raw]).cast(pa.binary())
    con.register("incoming_vectors", pa.table({"chunk_no": pa.array(np.asarray(chunk_nos, np.int32)), "vector": blobs}))
    con.execute(f"INSERT INTO {TABLE} SELECT chunk_no, vector FROM incoming_vectors")
    con.unregister("incoming_vectors")


def read_matrix(con: duckdb.DuckDBPyConnection, dim: int, chunk_nos: np.ndarray) -> np.ndarray:
    """The (len(chunk_nos), dim) float32 matrix of these chunk numbers' vectors, row i for ``chunk_nos[i]``.

    One read of the whole table. No copy when it holds exactly these numbers in this order (a
    fully written artifact), else one gather. A number without a vector is a ValueError.
    """
    return in_order(read_stored(con, dim), chunk_nos)


def read_stored(con: duckdb.DuckDBPyConnection, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """The whole table as stored: chunk numbers and the (n, dim) matrix (a view of the read's buffer).

    Apart from ``in_order`` so a reader can run it on its own cursor while it reads other tables.
    """
    return _stored(read_whole(con, "chunk_no, vector", TABLE), dim)


def in_order(stored: tuple[np.ndarray, np.ndarray], chunk_nos: np.ndarray) -> np.ndarray:
    """``read_stored``'s matrix with row i the vector of ``chunk_nos[i]``."""
    return _pick(stored[0], stored[1], chunk_nos)


def read_some(con: duckdb.DuckDBPyConnection, dim: int, chunk_nos: np.ndarray) -> np.ndarray:
    """Like ``read_matrix`` for a few chunk numbers: only their rows are fetched."""
    chunk_nos = np.asarray(chunk_nos, dtype=np.int64)
    wanted = ", ".join(str(no) for no in sorted(set(chunk_nos.tolist()))) or "NULL"
    table = con.execute(f"SELECT chunk_no, vector FROM {TABLE} WHERE chunk_no IN ({wanted})").to_arrow_table()
    return in_order(_stored(table, dim), chunk_nos)


def _stored(table: pa.Table, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """A read of (chunk_no, vector) rows as chunk numbers and their (n, dim) matrix."""
    return numpy_view(table.column("chunk_no")), _matrix(table.column("vector"), dim)


def _matrix(column: pa.ChunkedArray, dim: int) -> np.ndarray:
    """BLOBs of ``dim`` float32 each as an (n, dim) matrix: a view of Arrow's buffer when it is one piece."""
    width = dim * _FLOAT.itemsize
    out: list[np.ndarray] = []
    for chunk in column.chunks:
        wide = pa.types.is_large_binary(chunk.type)
        offsets = np.frombuffer(chunk.buffers()[1], np.int64 if wide else np.int32, len(chunk) + 1,
                                chunk.offset * (8 if wide else 4))
        if chunk.null_count or (np.diff(offsets) != width).any():
            raise ValueError(f"a stored vector is not {dim} float32")
        count = (int(offsets[-1]) - int(offsets[0])) // _FLOAT.itemsize
        out.append(np.frombuffer(chunk.buffers()[2], _FLOAT, count, int(offsets[0])).reshape(-1, dim))
    if len(out) == 1:
        return out[0]
    return np.concatenate(out) if out else np.zeros((0, dim), dtype=_FLOAT)


def _pick(stored: np.ndarray, matrix: np.ndarray, chunk_nos: np.ndarray) -> np.ndarray:
    """Rows of ``matrix`` (whose chunk numbers are ``stored``) in the order of ``chunk_nos``."""
    chunk_nos = np.asarray(chunk_nos, dtype=np.int64)
    if np.array_equal(stored, chunk_nos):
        return matrix if matrix.flags["C_CONTIGUOUS"] else np.ascontiguousarray(matrix)
    top = int(max(stored.max(initial=-1), chunk_nos.max(initial=-1)))
    row_of = np.full(top + 2, -1, dtype=np.int64)
    row_of[stored] = np.arange(stored.shape[0])
    rows = row_of[np.where(chunk_nos < 0, top + 1, chunk_nos)]
    if (rows < 0).any():
        raise ValueError(f"a chunk has no stored vector ({stored.shape[0]} stored)")
    return matrix[rows]
