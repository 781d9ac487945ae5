"""Held columns: dictionary-encoded where values repeat, in buffers of their own, read as the same values."""

from __future__ import annotations

import pyarrow as pa

from unitrag.rag.store.columns import Column, RowsByKey, categories, columns_of, rows_with_any
from unitrag.rag.store.held_columns import ENCODED

TABLE = pa.table({
    "chunk_id": ["a#p1", "a#p2", "b#p1", "c#p1"],
    "kind": ["rule", "rule", None, "scene"],
    "title": ["Salt", "Salt", "Iron", None],
    "topics": [["salt", "heart"], [], None, ["iron", None]],
    "citation_ids": [["who-2012"], ["who-2012", "nih"], [], []],
    "story_id": [None, None, "s1", "s1"],
    "page": [1, None, 3, 4],
})


def _buffers(array: pa.Array) -> list[pa.Buffer]:
    """Every buffer ``array`` reads, its children's and dictionaries' included."""
    found = [b for b in array.buffers() if b is not None]
    if pa.types.is_dictionary(array.type):
        found += _buffers(array.indices) + _buffers(array.dictionary)
    if pa.types.is_list(array.type):
        found += _buffers(array.values)
    return found


def _overlaps(a: pa.Buffer, b: pa.Buffer) -> bool:
    return a.size > 0 and b.size > 0 and a.address < b.address + b.size and b.address < a.address + a.size


def test_held_columns_read_as_the_table_and_share_no_buffer_with_it() -> None:
    """A kept column sharing a buffer with the batch DuckDB returned would keep the whole batch (every column) alive."""
    held = columns_of(TABLE)
    for name in TABLE.column_names:
        column, plain = held[name], Column(TABLE.column(name))
        kind = column.array.type
        assert pa.types.is_dictionary(kind.value_type if pa.types.is_list(kind) else kind) == (name in ENCODED), name
        assert list(column) == list(plain) and [column[i] for i in range(4)] == [plain[i] for i in range(4)]
        assert column[1:3] == plain[1:3] and column.array.to_pylist() == TABLE.column(name).to_pylist()
        theirs = _buffers(TABLE.column(name).chunk(0))
        assert not any(_overlaps(mine, other) for mine in _buffers(column.array) for other in theirs), name


def test_filters_read_encoded_columns_as_plain_ones() -> None:
    held = columns_of(TABLE)
    for wanted in (["iron"], ["salt", "nih"], ["zinc"], []):
        assert rows_with_any(held["topics"], wanted).tolist() == rows_with_any(Column(TABLE.column("topics")), wanted).tolist()
    assert categories(held["kind"]).tolist() == ["rule", "rule", None, "scene"] == categories(Column(TABLE.column("kind"))).tolist()


def test_a_sliced_list_column_keeps_its_values() -> None:
    sliced = TABLE.slice(1, 3)
    assert list(columns_of(sliced)["topics"]) == [[], None, ["iron", None]]
    assert list(columns_of(sliced)["citation_ids"]) == [["who-2012", "nih"], [], []]


def test_registry_rows_read_the_same_encoded() -> None:
    units = pa.table({"unit_id": ["u1", "u2"], "kind": ["rule", "rule"], "trigger": [None, '{"any": ["x"]}']})
    rows = RowsByKey(units, "unit_id", lambda row: row)
    assert rows["u2"] == {"unit_id": "u2", "kind": "rule", "trigger": '{"any": ["x"]}'}
    assert dict(rows.items()) == {"u1": {"unit_id": "u1", "kind": "rule", "trigger": None}, "u2": rows["u2"]}
