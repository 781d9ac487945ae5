"""Arrow arrays as NumPy without pyarrow's pandas bridge.

pyarrow's ``to_numpy`` (like any Python value converted to Arrow) imports pandas on first
use: 1.3 s and tens of MiB at ``KnowledgeBase.open`` on these machines, for nothing pandas
does here. Fixed-width arrays without nulls are viewed in place instead; anything else
still goes through pyarrow.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

_DTYPES = {
    pa.int8(): np.int8, pa.int16(): np.int16, pa.int32(): np.int32, pa.int64(): np.int64,
    pa.uint8(): np.uint8, pa.uint16(): np.uint16, pa.uint32(): np.uint32, pa.uint64(): np.uint64,
    pa.float32(): np.float32, pa.float64(): np.float64,
}


def read_whole(con: Any, columns: str, table: str) -> pa.Table:
    """``SELECT columns FROM table`` as one Arrow batch, so each column is one contiguous array.

    DuckDB's default 1M-row batches make the 9.4M postings at 100k chunks ten pieces to copy together
    (a 0.7 s read instead of 0.3); the batch size is the row count, since DuckDB allocates that much up front.
    """
    rows = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    return con.execute(f"SELECT {columns} FROM {table}").to_arrow_table(max(int(rows), 1))


def numpy_view(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """``array`` as a read-only NumPy array: no copy when Arrow holds it in one piece, and no pandas import."""
    if isinstance(array, pa.ChunkedArray):
        if array.num_chunks == 0:  # an empty result
            array = pa.array([], array.type)
        else:
            array = array.chunk(0) if array.num_chunks == 1 else pa.concat_arrays(array.chunks)
    dtype = _DTYPES.get(array.type)
    if dtype is None or array.null_count:
        return np.asarray(array.to_numpy(zero_copy_only=False))
    if len(array) == 0:
        return np.zeros(0, dtype=dtype)
    size = np.dtype(dtype).itemsize
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * size)


def matrix_of(column: pa.ChunkedArray) -> np.ndarray:
    """The FLOAT[dim] column as one (n, dim) float32 matrix, without a copy when Arrow holds it in one piece."""
    array = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()  # combine copies even one chunk
    dim = array.type.list_size
    flat = numpy_view(array.flatten())
    return np.ascontiguousarray(flat.reshape(len(array), dim), dtype=np.float32)
