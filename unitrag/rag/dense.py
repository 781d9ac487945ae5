"""Exact dense search in memory: one matrix-vector product and a partial sort.

At 100k × 384 this is a few milliseconds on two cores, faster than any index
and always exact; the filters are applied before ranking, so a restricted chunk
can never take a slot in the top-k.
"""

from __future__ import annotations

import numpy as np


def top_k(vectors: np.ndarray, query: np.ndarray, k: int, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Row indexes and cosine scores of the ``k`` best rows (unit vectors), best first."""
    scores = vectors @ np.asarray(query, dtype=np.float32)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
        k = min(k, int(mask.sum()))
    k = min(k, scores.shape[0])
    if k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    part = np.argpartition(-scores, k - 1)[:k] if k < scores.shape[0] else np.arange(scores.shape[0])
    order = part[np.argsort(-scores[part], kind="stable")]
    return order, scores[order]
