"""The reranker's reach: its cut, and the question's own best first-stage matches below it."""

from __future__ import annotations

from unitrag.rag.search.retrieval import reranked
from unitrag.rag.types import Source


def _source(chunk: str) -> Source:
    return Source(chunk, chunk, "document", chunk, "x", [], [], "public", "en")


def test_the_reranker_reads_its_cut_and_the_kept_chunks_below_it_in_their_fused_order():
    candidates = [_source(c) for c in "abcdefg"]
    assert [s.chunk_id for s in reranked(candidates, 3)] == ["a", "b", "c"]
    assert [s.chunk_id for s in reranked(candidates, 3, {"f", "b", "e"})] == ["a", "b", "c", "e", "f"]
    assert [s.chunk_id for s in reranked(candidates, 10, {"z"})] == list("abcdefg")  # an id not among them adds nothing
