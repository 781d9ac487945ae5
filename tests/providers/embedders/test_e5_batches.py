"""Windows, truncation, length-sorted batches and the weighted pooling of windows."""

from __future__ import annotations

import numpy as np

from unitrag.providers.embedders.e5_batches import TRUNCATE, Pooler, batches, rows_for


def test_long_texts_become_windows_weighted_by_content_tokens() -> None:
    rows = rows_for([[5] * 7, [6] * 3], bos=0, eos=2, window=3)
    assert [(r.text, r.ids, r.weight) for r in rows] == [
        (0, [0, 5, 5, 5, 2], 3.0), (0, [0, 5, 5, 5, 2], 3.0), (0, [0, 5, 2], 1.0), (1, [0, 6, 6, 6, 2], 3.0),
    ]


def test_truncation_keeps_the_head_and_empty_texts_still_get_a_row() -> None:
    rows = rows_for([[1, 2, 3, 4], []], bos=0, eos=2, window=3, long_text=TRUNCATE)
    assert [(r.ids, r.weight) for r in rows] == [([0, 1, 2, 3, 2], 3.0), ([0, 2], 1.0)]


def test_batches_are_sorted_padded_and_within_budget() -> None:
    rows = rows_for([[7] * n for n in (1, 9, 4, 9, 2)], bos=0, eos=2, window=20)
    out = list(batches(rows, pad=1, max_tokens=24))
    assert sum(len(b.rows) for b in out) == 5
    for b in out:
        assert b.ids.shape[0] * b.ids.shape[1] <= 24 or len(b.rows) == 1
        assert (b.mask.sum(axis=1) == [len(r.ids) for r in b.rows]).all()
        assert (b.ids[b.mask == 0] == 1).all()
    assert [len(r.ids) for b in out for r in b.rows] == [11, 11, 6, 4, 3]


def test_pooler_averages_windows_by_weight_then_normalises() -> None:
    rows = rows_for([[5] * 4, [6]], bos=0, eos=2, window=3)  # text 0: windows of 3 and 1 tokens
    batch = next(batches(rows, pad=1, max_tokens=100))
    pooled = {3.0: [1.0, 0.0], 1.0: [0.0, 4.0]}
    vectors = [pooled[r.weight] if r.text == 0 else [0.0, 2.0] for r in batch.rows]
    pooler = Pooler(2, 2)
    pooler.add(batch, np.array(vectors))
    out = pooler.vectors()
    np.testing.assert_allclose(out[0], np.array([0.75, 1.0]) / 1.25)
    np.testing.assert_allclose(out[1], [0.0, 1.0])
