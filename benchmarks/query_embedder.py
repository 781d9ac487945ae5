"""The query embedder in ``query_latency.py``: one model shared by both parts, a cold cache on demand, the thread probe.

The embed stage is most of a cold search on two shared cores, so it is measured on its
own too: in fresh processes, under the OpenMP environment as launched and under the
settings that could change it (``PROBE_ENVS``).
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import numpy as np

from measure import omp_env, p50_p95
from query_stages import run_child

PROBE_ENVS: list[tuple[str, dict[str, str]]] = [
    ("as launched", {}), ("OMP_WAIT_POLICY=passive", {"OMP_WAIT_POLICY": "passive"}),
    ("OMP_NUM_THREADS=1", {"OMP_NUM_THREADS": "1"}),
]


def make_recording_embedder(inner: Any) -> Any:
    """The same model under the same id, recording every query vector it computes.

    With ``replay`` set, a text seen before is answered from the record: the synthetic
    part reuses the sample part's query vectors instead of paying the model again.
    """
    from unitrag.providers.embedders import Embedder

    class RecordingEmbedder(Embedder):
        provider = inner.provider
        max_tokens = inner.max_tokens

        def __init__(self) -> None:
            super().__init__(inner.model)
            self.record: dict[str, np.ndarray] = {}
            self.replay = False

        @property
        def dim(self) -> int:
            return int(inner.dim)

        def pose_as(self, embedder_id: str) -> None:
            """Answer under another model's id: the synthetic artifact's vectors are random, any model's queries serve."""
            self.provider, self.model = embedder_id.split(":", 1)

        def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
            if query and self.replay and all(t in self.record for t in texts):
                return np.stack([self.record[t] for t in texts])
            out = inner.embed(texts, query=query)
            if query:
                self.record.update(zip(texts, out))
            return out

    return RecordingEmbedder()


def fresh_query_cache(kb: Any) -> None:
    """A new, empty query-embedding cache (same embedder): the next queries are cold."""
    from unitrag.rag.query_embedding import QueryEncoder

    encoder = QueryEncoder(kb.encoder.embedder)
    kb.encoder = encoder
    kb.retriever.encoder = encoder


def child_embed(questions: list[str]) -> None:
    """Query-embedding latency with the artifact's embedder, in this process's OpenMP environment."""
    from unitrag.config import DEFAULT_EMBEDDER
    from unitrag.providers.embedders import load_embedder

    embedder = load_embedder(DEFAULT_EMBEDDER)
    start = time.perf_counter()
    embedder.embed_queries(["warm-up: how much iron do I need?"])
    load_s = time.perf_counter() - start
    times = []
    for q in questions:
        t = time.perf_counter()
        embedder.embed_queries([q])
        times.append((time.perf_counter() - t) * 1000)
    print(json.dumps({"load_and_first_s": load_s, "ms": times, "omp": omp_env()}))


def part_probe(questions: list[str]) -> dict[str, Any]:
    """Part 0: query-embedding latency per ``PROBE_ENVS`` setting, each in a fresh process (one already set is skipped)."""
    results = {}
    for label, extra in PROBE_ENVS:
        if extra and all(os.environ.get(k) == v for k, v in extra.items()):
            continue  # same as launched
        res = run_child(["--child-embed", json.dumps(questions)], extra)
        results[label] = {**p50_p95(res["ms"]), "load_and_first_s": res["load_and_first_s"], "ms": res["ms"]}
    return results
