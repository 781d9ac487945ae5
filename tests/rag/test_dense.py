"""Exact top-k over unit vectors, with filters applied before ranking."""

from __future__ import annotations

import numpy as np

from unitrag.rag.dense import top_k


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def test_top_k_matches_a_full_sort():
    rng = np.random.default_rng(0)
    vectors = _unit(rng.normal(size=(500, 16)))
    query = vectors[7] + 0.01
    rows, scores = top_k(vectors, query, 20)
    expected = np.argsort(-(vectors @ query), kind="stable")[:20]
    assert rows.tolist() == expected.tolist()
    assert rows[0] == 7 and np.all(np.diff(scores) <= 0)


def test_masked_rows_never_appear_even_when_they_are_best():
    rng = np.random.default_rng(1)
    vectors = _unit(rng.normal(size=(100, 8)))
    mask = np.ones(100, dtype=bool)
    mask[[3, 4, 5]] = False
    rows, _ = top_k(vectors, vectors[3], 10, mask)
    assert not {3, 4, 5} & set(rows.tolist())
    assert len(rows) == 10


def test_k_larger_than_the_visible_rows_returns_only_visible_ones():
    vectors = _unit(np.eye(4, dtype=np.float32) + 0.1)
    mask = np.array([True, False, True, False])
    rows, scores = top_k(vectors, vectors[0], 10, mask)
    assert sorted(rows.tolist()) == [0, 2] and np.isfinite(scores).all()


def test_nothing_visible_returns_empty():
    vectors = _unit(np.eye(3, dtype=np.float32) + 0.1)
    rows, scores = top_k(vectors, vectors[0], 5, np.zeros(3, dtype=bool))
    assert rows.size == 0 and scores.size == 0
