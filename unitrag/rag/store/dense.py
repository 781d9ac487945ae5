"""Exact dense search in memory: one matrix-vector product and a partial sort.

At 100k × 384 this is a few milliseconds on two cores, faster than any index
and always exact; the filters are applied before ranking, so a restricted chunk
can never take a slot in the top-k.

A selective filter (a language and a kind, a topic) is scored on its own rows only:
they are gathered block by block into a buffer that stays in cache, so the cost
follows the rows kept, not the matrix. Quantised first passes (int8 or binary codes,
PCA-reduced float32, float16 or bfloat16 storage) were measured at 1M × 384 and none
beat this in NumPy on these CPUs: docs/benchmarks/scale.md, "1M chunks".
"""

from __future__ import annotations

import numpy as np

#: Up to this share of the rows kept by a filter, score only the kept rows (gathered); above it the
#: one product over the whole matrix is cheaper. Measured at 1M × 384 on two busy cores: 7% of the
#: rows gathered cost about a third of the full product, 20% about three quarters (docs/benchmarks/scale.md).
SUBSET_SHARE = 0.1
#: Rows gathered per block: 1,024 × 384 float32 is 1.5 MB, which stays in cache while it is scored
#: (4,096-row blocks measured 3× slower, a single gather of every kept row slower still).
GATHER_BLOCK = 1024


def top_k(vectors: np.ndarray, query: np.ndarray, k: int, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Row indexes and cosine scores of the ``k`` best rows (unit vectors) ``mask`` keeps, best first."""
    query = np.asarray(query, dtype=np.float32)
    if query.shape != vectors.shape[1:]:
        raise ValueError(f"query vector of shape {query.shape} does not match the matrix's {vectors.shape[1:]} dimensions")
    if mask is None:
        return best(vectors @ query, k)
    rows = np.flatnonzero(mask)
    if rows.shape[0] <= SUBSET_SHARE * vectors.shape[0]:
        order, scores = best(scores_of_rows(vectors, rows, query), k)
        return rows[order], scores
    scores = vectors @ query
    scores[~mask] = -np.inf
    return best(scores, min(k, rows.shape[0]))


def scores_of_rows(vectors: np.ndarray, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``vectors[rows] @ query`` without copying every row at once: block by block through a cached buffer."""
    out = np.empty(rows.shape[0], dtype=np.float32)
    buffer = np.empty((min(GATHER_BLOCK, rows.shape[0]), vectors.shape[1]), dtype=vectors.dtype)
    for start in range(0, rows.shape[0], GATHER_BLOCK):
        block = rows[start : start + GATHER_BLOCK]
        np.take(vectors, block, axis=0, out=buffer[: block.shape[0]])
        out[start : start + block.shape[0]] = buffer[: block.shape[0]] @ query
    return out


def best(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions and values of the ``k`` highest ``scores``, highest first (ties: lower position first)."""
    n = scores.shape[0]
    k = min(k, n)
    if k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    part = np.argpartition(scores, n - k)[n - k :] if k < n else np.arange(n)
    order = part[np.lexsort((part, -scores[part]))]
    return order, scores[order]
