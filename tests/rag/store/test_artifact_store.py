"""The in-memory store's filter masks: right rows, and a cache that stays bounded however many filters arrive."""

from __future__ import annotations

import concurrent.futures
import itertools

import numpy as np

from unitrag.rag.store.artifact_store import MASK_CACHE_SIZE
from unitrag.rag.types import SearchFilter


def test_public_mask_hides_restricted_rows(tiny_store):
    store = tiny_store()
    public = store.filter_mask(SearchFilter())
    assert [store.ids[i] for i in np.flatnonzero(~public)] == ["en-b12-treat#p1"]
    assert store.filter_mask(SearchFilter(restricted=True)) is None  # every row: the fast path


def test_topic_and_language_filters_combine(tiny_store):
    store = tiny_store()
    mask = store.filter_mask(SearchFilter(lang="zh", topics=("sodium",)))
    assert [store.ids[i] for i in np.flatnonzero(mask)] == ["zh-iodine-salt#p1"]


def test_the_mask_cache_stays_within_its_bound_after_many_distinct_filters(tiny_store):
    store = tiny_store()
    filters = [SearchFilter(topics=(f"topic-{n}",), kinds=kinds)
               for n, kinds in zip(range(3 * MASK_CACHE_SIZE), itertools.cycle([(), ("scene",)]))]
    for where in filters:
        store.filter_mask(where)
    assert 0 < store.mask_cache_size() <= MASK_CACHE_SIZE
    # the common filters are still answered (and correctly) after the churn
    assert store.filter_mask(SearchFilter()).sum() == len(store) - 1


def test_the_bounded_cache_is_safe_under_threads(tiny_store):
    store = tiny_store()
    filters = [SearchFilter(topics=(f"topic-{n % (2 * MASK_CACHE_SIZE)}",)) for n in range(20 * MASK_CACHE_SIZE)]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        masks = list(pool.map(store.filter_mask, filters))
    assert all(m is not None and not m.any() for m in masks)  # no row has those topics
    assert store.mask_cache_size() <= MASK_CACHE_SIZE


def test_topic_order_does_not_make_another_cache_entry(tiny_store):
    store = tiny_store()
    store.filter_mask(SearchFilter(topics=("sodium", "iodine")))
    store.filter_mask(SearchFilter(topics=("iodine", "sodium")))
    assert store.mask_cache_size() == 1
