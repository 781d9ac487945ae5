"""Chunk metadata as Arrow columns: a value becomes a Python object only when a result reads it.

At 100k chunks, Python lists of every column cost 315 MiB and 0.8 s at open; the same
columns as Arrow arrays cost their bytes and no conversion. Filters read them
vectorised (``categories``, ``rows_with_any``); ``Source`` reads one row at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, ItemsView, Iterator, Mapping, Sequence
from typing import Any, overload

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...artifact.arrow_numpy import numpy_view
from .held_columns import ENCODED, held
from .keys import KeyIndex, one_piece


class Column(Sequence[Any]):
    """One column, read-only, indexable like the list it replaces."""

    __slots__ = ("array",)

    def __init__(self, array: pa.Array | pa.ChunkedArray) -> None:
        self.array: pa.Array = one_piece(array)

    def __len__(self) -> int:
        return len(self.array)

    @overload
    def __getitem__(self, i: int) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...
    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return self.array[i].to_pylist()
        return self.array[i].as_py()

    def __iter__(self) -> Iterator[Any]:
        return iter(self.array.to_pylist())

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, (Column, list, tuple)) else NotImplemented

    __hash__ = None  # type: ignore[assignment]


class RowsByKey(Mapping[str, dict[str, Any]]):
    """A registry table (the units) held as Arrow, keyed by one column; a row becomes a dict when read.

    At 100k chunks the 61k units as Python dicts held 39 MiB after open; as Arrow plus a dict of key → row, 14;
    with the key column bisected instead of that dict (``KeyIndex``) and the other columns dictionary-encoded
    (``held_columns``: 4 kinds, 5,000 titles, 20 triggers; ~11 ms), 2.5.
    """

    def __init__(self, table: pa.Table, key: str, parse: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        table = pa.table({name: held(table.column(name), encode=name != key) for name in table.column_names})
        self.table, self.key, self.parse = table, key, parse
        self._row_of = KeyIndex(table.column(key))

    def __getitem__(self, key: str) -> dict[str, Any]:
        i = self._row_of[key]
        return self.parse({name: self.table.column(name)[i].as_py() for name in self.table.column_names})

    def value(self, key: str, column: str) -> Any:
        """One column's value in ``key``'s row (None when no row has that key), without making the row."""
        i = self._row_of.get(key)
        return None if i is None else self.table.column(column)[i].as_py()

    def __iter__(self) -> Iterator[str]:
        return iter(self._row_of)

    def __len__(self) -> int:
        return len(self._row_of)

    def items(self) -> ItemsView[str, dict[str, Any]]:
        """Every row, made in one pass over the columns (a lookup per key costs ~10 µs: 0.6 s for 61k units)."""
        return _RowItems(self)


class _RowItems(ItemsView[str, dict[str, Any]]):
    def __iter__(self) -> Iterator[tuple[str, dict[str, Any]]]:
        rows: RowsByKey = self._mapping  # type: ignore[assignment]
        names = rows.table.column_names
        for values in zip(*(rows.table.column(name).to_pylist() for name in names)):
            row = rows.parse(dict(zip(names, values)))
            yield row[rows.key], row


def columns_of(table: pa.Table) -> dict[str, Column]:
    """Every column of ``table`` by name, each in buffers of its own, repeated strings dictionary-encoded
    (``held_columns``): they read as the same values, and the batch ``table`` came in is freed when dropped."""
    return {name: Column(held(table.column(name), encode=name in ENCODED)) for name in table.column_names}


def table_of(columns: dict[str, Sequence[Any]]) -> pa.Table:
    """A table from columns given as lists (a backend's rows, a test's store) or as ``Column``s."""
    return pa.table({name: values.array if isinstance(values, Column) else list(values) for name, values in columns.items()})


def categories(column: Column) -> np.ndarray:
    """An object array of a low-cardinality string column (access, lang, kind) sharing one str per value.

    Vectorised comparisons work as on the old lists' arrays, without one Python string per row. A column
    ``columns_of`` encoded is read as it is.
    """
    values, indices = codes(column.array)
    return np.array(values + [None], dtype=object)[indices]


def rows_with_any(column: Column, wanted: Sequence[str]) -> np.ndarray:
    """Bool per row: the row's list (topics) holds any of ``wanted``."""
    array = column.array
    keep = np.zeros(len(array), dtype=bool)
    if len(array) == 0 or not wanted:
        return keep
    flat, parents = pc.list_flatten(array), pc.list_parent_indices(array)
    if pa.types.is_null(flat.type):  # every list empty
        return keep
    values, indices = codes(flat)  # compared per distinct value: no Python list made into Arrow (pandas)
    chosen = set(wanted)
    known = np.array([value in chosen for value in values] + [False], dtype=bool)
    keep[numpy_view(parents)[known[indices]]] = True
    return keep


def list_value_counts(column: Column) -> dict[str, int]:
    """How many rows' lists (topics) hold each value (a value listed twice in one row counts twice)."""
    if len(column.array) == 0:
        return {}
    flat = pc.list_flatten(column.array)
    if pa.types.is_null(flat.type) or len(flat) == 0:
        return {}
    values, indices = codes(flat)
    counts = np.bincount(indices, minlength=len(values) + 1)
    return {value: int(count) for value, count in zip(values, counts) if count}


def codes(array: pa.Array) -> tuple[list[Any], np.ndarray]:
    """The distinct values of ``array`` and each row's index into them, a null's index one past the last
    (a column ``columns_of`` encoded is read as it is)."""
    coded = array if pa.types.is_dictionary(array.type) else pc.dictionary_encode(array)
    indices = coded.indices.fill_null(len(coded.dictionary)) if coded.indices.null_count else coded.indices
    return coded.dictionary.to_pylist(), numpy_view(indices)


def readable(levels: Collection[str], roles: Collection[str]) -> bool:
    """Whether a caller holding ``roles`` may read a row of one of ``levels`` (``levels_by_id``'s values)."""
    return "public" in levels or any(level in roles for level in levels)


def levels_by_id(lists: pa.Array, access: pa.Array) -> dict[str, frozenset[str]]:
    """Each id in a list column → the access levels of the rows holding it (a row without a level: "", nobody's).
    One vectorised pass, without pandas (which Arrow's group_by would import when a knowledge base opens)."""
    flat = pc.list_flatten(lists) if len(lists) else None
    if flat is None or not len(flat) or pa.types.is_null(flat.type):
        return {}
    id_values, id_codes = codes(pc.cast(flat, pa.string()))
    level_values, level_codes = codes(access)
    row_level = level_codes[numpy_view(pc.list_parent_indices(lists))]
    pairs = np.unique(np.stack([id_codes.astype(np.int64), row_level.astype(np.int64)]), axis=1)
    levels = [*level_values, ""]  # a null level: nobody's
    found: dict[str, set[str]] = {}
    for id_code, level in pairs.T.tolist():
        if id_code < len(id_values):  # not a null id
            found.setdefault(id_values[id_code], set()).add(levels[level])
    return {key: frozenset(held) for key, held in found.items()}
