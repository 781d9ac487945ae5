"""How the chunk metadata is held after open: repeated strings dictionary-encoded, every column in buffers of its own.

DuckDB hands a read to Arrow as one batch whose buffers are freed together, when the last
column still referring to any of them goes. So a column kept as read keeps every other
column's bytes too, encoded or not: at 100k chunks the 26 MiB batch stayed whole while any
column lived. Here each kept column gets buffers of its own (a copy, ~2 ms for 7 MiB), so
the batch is freed once the caller drops it. The columns whose values repeat (4 kinds, 2
access levels, 2 languages, 5,000 titles, 10,869 stories, 22 topics, 120 citation ids in the
100k-chunk synthetic artifact) are dictionary-encoded with indices as narrow as the values
allow: 18 → 2.3 MiB, for ~30 ms at open. Chunk, unit and scene ids are nearly all distinct:
encoding them would cost 5-7 ms each for little.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from .keys import one_piece

#: Held columns are allocated by the C library's malloc: in Arrow's default pool (mimalloc) the same 9.4 MiB of
#: columns left ~9 MiB more resident at 100k chunks (pages of the encoding's freed temporaries), which
#: ``malloc_trim`` after open (``store.return_freed_memory``) hands back when they are malloc's.
POOL = pa.system_memory_pool()
ENCODED = frozenset({"kind", "access", "lang", "title", "story_id", "topics", "citation_ids"})


def held(array: pa.Array | pa.ChunkedArray, *, encode: bool) -> pa.Array:
    """``array`` in buffers of its own: dictionary-encoded when ``encode`` and it holds strings (or lists of them)."""
    array = one_piece(array)
    coded = encoded(array) if encode else None
    return coded if coded is not None else copied(array)


def encoded(array: pa.Array) -> pa.Array | None:
    """``array`` (strings, or lists of strings) dictionary-encoded in new buffers; None for any other type.

    It reads as the same Python values: ``as_py``, ``to_pylist`` and slices give the strings.
    """
    if pa.types.is_list(array.type) or pa.types.is_large_list(array.type):
        values = encoded(array.values)  # the offsets index .values whatever the slice: copied as they are
        if values is None:
            return None
        kind = pa.ListArray if pa.types.is_list(array.type) else pa.LargeListArray
        mask = pc.is_null(array, memory_pool=POOL) if array.null_count else None
        return kind.from_arrays(copied(array.offsets), values, pool=POOL, mask=mask)
    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        return None
    coded = pc.dictionary_encode(array, memory_pool=POOL)
    size = len(coded.dictionary)
    narrow = next(t for t in (pa.int8(), pa.int16(), pa.int32(), pa.int64()) if size < 2 ** (t.bit_width - 1) - 1)
    indices = pc.cast(coded.indices, narrow, memory_pool=POOL)
    return pa.DictionaryArray.from_arrays(indices, coded.dictionary, safe=False)  # the encoder's indices are in range


def copied(array: pa.Array) -> pa.Array:
    """``array`` in new buffers (only the slice it spans)."""
    return pa.concat_arrays([array, array.slice(0, 0)], memory_pool=POOL)
