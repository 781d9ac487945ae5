"""Query embedding is bounded: text past the model's window is not embedded, and the cache keeps a fixed size."""

from __future__ import annotations

import numpy as np
import pytest

from unitrag.config import DEFAULT_EMBEDDER
from unitrag.providers.embedders import load_embedder
from unitrag.rag.search.query_embedding import QueryEncoder, within_window

HEAD = "How much vitamin D do adults over seventy need each day for bone health? " * 40  # ~600 real tokens
ZH_HEAD = "孕妇每天需要多少碘才能保证胎儿的甲状腺发育正常？" * 40


@pytest.fixture(scope="module")
def embedder():
    return load_embedder(DEFAULT_EMBEDDER)


@pytest.mark.parametrize("text", [HEAD, ZH_HEAD])
def test_a_long_text_is_clipped_to_the_models_window(embedder, text):
    clipped = within_window(text, embedder.max_tokens)
    assert text.startswith(clipped) and len(clipped) < len(text)
    assert embedder.token_count(clipped) <= embedder.max_tokens


def test_a_short_text_is_left_alone():
    assert within_window("How much salt a day?", 512) == "How much salt a day?"


def test_what_follows_the_window_does_not_change_the_vector(embedder):
    encoder = QueryEncoder(embedder)
    a = encoder.encode(HEAD + " pizza" * 300)
    b = encoder.encode(HEAD + " chess openings" * 300)
    assert np.array_equal(a, b)


def test_the_cache_never_holds_more_than_its_capacity(embedder):
    encoder = QueryEncoder(embedder, capacity=4)
    for n in range(10):
        encoder.encode(f"question {n}")
    assert encoder.cache_size() == 4
    encoder.warm([f"warm {n}" for n in range(3)])
    assert encoder.cache_size() <= encoder.capacity
