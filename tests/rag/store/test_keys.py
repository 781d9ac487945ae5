"""KeyIndex: a key's row by binary search over an Arrow column, answering as the dict it replaces would."""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pytest

from unitrag.rag.store.keys import KeyIndex, one_piece
from unitrag.rag.store.artifact_store import ChunkStore


def _as_dict(keys: list[str | None]) -> dict[str, int]:
    return {key: row for row, key in enumerate(keys) if key is not None}


@pytest.mark.parametrize("keys", [
    ["a", "b", "c#p1", "c#p2", "zh-盐", "é"],  # sorted: bisected as it is
    ["zh-盐", "b", "é", "a", "c#p2", "c#p1"],  # out of order: through a sorted permutation
    ["b", "a", None, "a", "c"],  # a null and a repeated key (the last row wins, as in a dict)
    [],
])
def test_lookups_answer_as_a_dict(keys: list[str | None]) -> None:
    index, expected = KeyIndex(pa.array(keys, pa.string())), _as_dict(keys)
    assert dict(index) == expected and len(index) == sum(key is not None for key in keys)
    for key, row in expected.items():
        assert index[key] == row and key in index and index.get(key) == row
    for missing in ("", "0", "a#", "zz", "c#p", 3, None):
        assert missing not in index and index.get(missing) is None
        with pytest.raises(KeyError):
            index[missing]  # type: ignore[index]


def test_many_keys_in_any_order_and_in_pieces() -> None:
    keys = [f"u{n:05d}#p{p}" for n in range(2000) for p in (1, 2)]
    shuffled = keys[:]
    random.Random(0).shuffle(shuffled)
    for given in (keys, shuffled):
        halves = pa.chunked_array([pa.array(given[:1000]), pa.array(given[1000:])])
        index = KeyIndex(halves)
        assert all(index[key] == row for row, key in enumerate(given))
    assert len(one_piece(pa.chunked_array([], pa.string()))) == 0


def test_a_store_from_unsorted_rows_keeps_its_rows_and_finds_them() -> None:
    ids = ["c", "a", "b"]
    store = ChunkStore.assemble(
        manifest={}, vectors=np.zeros((3, 2), np.float32), citations=[], topics=[], guard_rules=[], prompts={},
        units=[{"unit_id": u, "kind": "rule", "title": u.upper()} for u in ("u2", "u1")], calibration=[],
        columns={"chunk_id": ids, "unit_id": ["u2", "u1", "u1"], "kind": ["rule"] * 3, "title": ["T"] * 3,
                 "topics": [[], ["iron"], []], "citation_ids": [[]] * 3, "access": ["public"] * 3, "lang": ["en"] * 3,
                 "story_id": [None] * 3, "scene_id": [None] * 3, "page": [None] * 3, "text_for_prompt": ["x"] * 3},
    )
    assert list(store.ids) == ids and [store.index[cid] for cid in ids] == [0, 1, 2] and "d" not in store.index
    assert store.units["u1"]["title"] == "U1" and list(store.units) == ["u2", "u1"] and store.units.get("u3") is None
