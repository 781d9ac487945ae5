"""The row of a key (a chunk id, a unit id) found by binary search over the Arrow column that holds the keys.

At 100k chunks a dict of chunk id → row held 13 MiB after open, the ids as a Python list 7.6 MiB
more, and the units' dict 7.5 MiB; the keys are already in memory as Arrow, and sorted as the
artifact is read (chunks put in ``chunk_id`` order, units stored by ``unit_id``). So a lookup bisects
the column's UTF-8 bytes in place (~10 µs, against ~0.1 µs for a dict: the runtime's searches look up
no key; a published store maps its k results). Keys given out of order (a test's rows, an artifact an
older writer left unsorted) are bisected through a sorted permutation (4 bytes a key) instead. Bytes
order is code point order, the order Arrow's sort and DuckDB's and PostgreSQL's "C" collation give.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...artifact.arrow_numpy import numpy_view


class KeyIndex(Mapping[str, int]):
    """key → row of an Arrow string column, read-only.

    Keys are meant to be unique (chunk ids, unit ids); one held twice maps to its last row, as in a dict
    built from the rows, though it counts and iterates twice.
    """

    __slots__ = ("_keys", "_offsets", "_data", "_order", "_size")

    def __init__(self, keys: pa.Array | pa.ChunkedArray) -> None:
        keys = one_piece(keys)
        if not (pa.types.is_string(keys.type) or pa.types.is_large_string(keys.type)):
            keys = pc.cast(keys, pa.large_string())  # a dictionary or string-view column: plain offsets and bytes
        self._keys: pa.Array = keys
        self._size = len(keys) - keys.null_count
        self._order: memoryview | None = None if _ascending(keys) else _sorted_rows(keys)
        _, offsets, data = keys.buffers()
        code = "q" if pa.types.is_large_string(keys.type) else "i"
        self._offsets = memoryview(offsets).cast(code)[keys.offset:keys.offset + len(keys) + 1] if offsets else memoryview(b"")
        self._data = memoryview(data) if data is not None else memoryview(b"")

    def __getitem__(self, key: str) -> int:
        if not isinstance(key, str):
            raise KeyError(key)
        wanted = key.encode()
        offsets, data, order = self._offsets, self._data, self._order
        lo, hi = 0, self._size
        while lo < hi:  # bisect_right: the last of equal keys, as a dict keeps the last row
            mid = (lo + hi) >> 1
            row = mid if order is None else order[mid]
            if wanted < data[offsets[row]:offsets[row + 1]].tobytes():
                hi = mid
            else:
                lo = mid + 1
        if lo:
            row = lo - 1 if order is None else order[lo - 1]
            if data[offsets[row]:offsets[row + 1]].tobytes() == wanted:
                return int(row)
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        """The keys in row order."""
        return (key for key in self._keys.to_pylist() if key is not None)

    def __len__(self) -> int:
        return self._size


def one_piece(array: pa.Array | pa.ChunkedArray) -> pa.Array:
    """``array`` as one Arrow array: no copy when it is one chunk (``combine_chunks`` copies even then, and with
    no chunk at all imports pandas, as ``pa.array`` of a list does: 1 s at open)."""
    if not isinstance(array, pa.ChunkedArray):
        return array
    if array.num_chunks == 1:
        return array.chunk(0)
    return pa.concat_arrays(array.chunks) if array.num_chunks else pa.nulls(0, array.type)


def _ascending(keys: pa.Array) -> bool:
    """Strictly ascending and without nulls: bisected as it is (a pass of ~1 ms at 100k keys)."""
    if keys.null_count:
        return False
    if len(keys) < 2:
        return True
    return bool(pc.all(pc.less(keys.slice(0, len(keys) - 1), keys.slice(1))).as_py())


def _sorted_rows(keys: pa.Array) -> memoryview:
    """Rows in key order (stable, so equal keys keep row order), nulls left out."""
    order = numpy_view(pc.array_sort_indices(keys, null_placement="at_end"))[:len(keys) - keys.null_count]
    return memoryview(order.astype(np.int32 if len(keys) < 2**31 else np.int64))
