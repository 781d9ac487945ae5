"""Exact top-k over unit vectors, with filters applied before ranking."""

from __future__ import annotations

import numpy as np
import pytest

from unitrag.rag.store import dense
from unitrag.rag.store.dense import top_k


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


def _by_sort(vectors: np.ndarray, query: np.ndarray, k: int, mask: np.ndarray) -> list[int]:
    """The reference: every kept row scored, sorted (ties by row)."""
    scores = vectors @ query
    kept = np.flatnonzero(mask)
    return kept[np.lexsort((kept, -scores[kept]))][:k].tolist()


@pytest.mark.parametrize("share", [0.03, 0.09, 0.3, 0.95])
def test_a_filter_of_any_selectivity_gives_the_exact_filtered_top_k(share):
    # below SUBSET_SHARE the kept rows are gathered block by block, above it the whole matrix is scored:
    # both must equal sorting every kept row, across several gather blocks
    rng = np.random.default_rng(2)
    vectors = _unit(rng.normal(size=(5 * dense.GATHER_BLOCK + 17, 24)))
    mask = rng.random(vectors.shape[0]) < share
    for query in vectors[:5]:
        rows, scores = top_k(vectors, query, 20, mask)
        assert rows.tolist() == _by_sort(vectors, query, 20, mask)
        np.testing.assert_allclose(scores, vectors[rows] @ query, rtol=1e-6)
        assert mask[rows].all()


@pytest.mark.parametrize("share", [0.05, 0.5])
def test_a_restricted_row_never_takes_a_slot_even_as_an_exact_duplicate_of_the_query(share):
    rng = np.random.default_rng(3)
    vectors = _unit(rng.normal(size=(4000, 16)))
    mask = rng.random(4000) < share
    hidden = np.flatnonzero(~mask)[:50]
    vectors[hidden] = vectors[hidden[0]]  # fifty restricted copies of the query: each the best match
    rows, _ = top_k(vectors, vectors[hidden[0]], 20, mask)
    assert len(rows) == 20 and not set(hidden.tolist()) & set(rows.tolist())


def test_k_larger_than_the_kept_rows_of_a_selective_filter():
    rng = np.random.default_rng(4)
    vectors = _unit(rng.normal(size=(2000, 8)))
    mask = np.zeros(2000, dtype=bool)
    mask[[5, 900, 1999]] = True
    rows, scores = top_k(vectors, vectors[0], 50, mask)
    assert sorted(rows.tolist()) == [5, 900, 1999] and np.isfinite(scores).all()


def test_tied_scores_rank_the_lower_row_first():
    vectors = _unit(np.tile(np.array([[1.0, 0.0]], dtype=np.float32), (3000, 1)))
    vectors[[10, 20]] = _unit(np.array([[1.0, 0.2], [1.0, 0.2]], dtype=np.float32))
    rows, scores = top_k(vectors, vectors[10], 4)
    assert rows[:2].tolist() == [10, 20] and scores[0] == scores[1]
    mask = np.zeros(3000, dtype=bool)
    mask[[7, 3, 2999, 10]] = True  # a selective filter: the gathered path orders ties the same way
    assert top_k(vectors, vectors[7], 4, mask)[0].tolist() == [3, 7, 2999, 10]


def test_a_query_of_the_wrong_dimension_is_refused():
    vectors = _unit(np.eye(4, dtype=np.float32) + 0.1)
    with pytest.raises(ValueError, match="does not match"):
        top_k(vectors, np.ones(3, dtype=np.float32), 2)
