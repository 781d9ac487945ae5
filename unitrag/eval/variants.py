"""Pipeline variants: the runtime's search with stages switched off, to see what each adds.

Cumulative, as the query path is built: ``dense`` → ``rerank`` (+ the reranker) →
``sparse`` (+ BM25 fused by RRF) → ``full`` (+ post-processing: exactly ``search``).
``bm25`` and ``hybrid`` (dense + BM25, no reranker) are there to compare against
published baselines.

Every variant ranks ``depth`` candidates: the reranked (and post-processed) head,
then the first-stage candidates below it in their order, so Recall@100 and MAP@100
are defined for each. A scene also stands for its story, as the roll-up drops a
story summary when one of its scenes ranks above it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..errors import UserError
from ..rag.search.postprocess import focus, postprocess
from ..rag.types import SearchFilter, Source, UserContext


@dataclass(frozen=True)
class Variant:
    name: str
    dense: bool = True
    sparse: bool = False
    rerank: bool = False
    postprocess: bool = False
    description: str = ""


VARIANTS = {v.name: v for v in (
    Variant("bm25", dense=False, sparse=True, description="BM25 alone"),
    Variant("dense", description="dense (cosine) alone"),
    Variant("hybrid", sparse=True, description="dense + BM25, fused by RRF"),
    Variant("rerank", rerank=True, description="dense, then the reranker"),
    Variant("sparse", sparse=True, rerank=True, description="dense + BM25 (RRF), then the reranker"),
    Variant("full", sparse=True, rerank=True, postprocess=True,
            description="the configured search: dense (+ BM25 when sparse is on), reranker, post-processing"),
)}
DEFAULT_VARIANTS = ("bm25", "dense", "hybrid", "rerank", "sparse", "full")
NEEDS_RERANKER = {name for name, v in VARIANTS.items() if v.rerank}


def parse_variants(spec: str | None, has_reranker: bool) -> list[Variant]:
    """``"dense,full"`` → variants; the default list leaves out reranker variants when none is configured."""
    if spec is None:
        return [VARIANTS[n] for n in DEFAULT_VARIANTS if has_reranker or n not in NEEDS_RERANKER]
    names = [n.strip() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in VARIANTS]
    if unknown or not names:
        raise UserError(f"--variants: unknown variant(s) {', '.join(unknown) or '(none given)'} (known: {', '.join(VARIANTS)})")
    if not has_reranker and NEEDS_RERANKER.intersection(names):
        raise UserError(f"--variants {', '.join(sorted(NEEDS_RERANKER.intersection(names)))} need a reranker: "
                        "pass --reranker (e.g. fusion) or leave them out")
    return [VARIANTS[n] for n in dict.fromkeys(names)]


@dataclass
class Ranking:
    units: list[str]  # unit ids, best first
    sources: list[Source]  # the chunks behind them, in the same order
    seconds: float


def rank(kb: Any, question: str, variant: Variant, depth: int, user: UserContext | None = None) -> Ranking:
    """The unit ids ``variant`` ranks for ``question``, ``depth`` candidates deep."""
    user = user or UserContext()
    started = time.perf_counter()
    timings: dict[str, float] = {}
    queries, probes, authored = [question], [], ()
    if variant.postprocess:  # spelling, script, broadening and the cross-lingual probes: the runtime's own reading
        read = kb.read(question, user)
        question, queries, probes, authored = read.text, read.queries, read.probes, read.authored
    where = SearchFilter(restricted=user.holds(kb.restricted_role))
    sparse = kb.config.sparse if variant.postprocess else variant.sparse  # full: whatever the config runs
    candidates, also = kb.retriever.first_stage(queries, where, timings, sparse=sparse, dense=variant.dense, depth=depth,
                                                probes=probes)
    focused = variant.postprocess and kb.retriever.focused(question, user)
    candidates = focus(candidates, user if focused else None)
    head, tail = candidates, []
    if variant.rerank and kb.retriever.reranker is not None:
        head = kb.retriever.rerank(question, candidates, timings, also)
        read = {s.chunk_id for s in head}
        tail = [s for s in candidates if s.chunk_id not in read]
    if variant.postprocess:
        head = postprocess(head, user, len(head), kb.boosts, kb.config.max_pages, focused, kb.retriever.named_topics(question, user),
                           authored)
    sources = head + tail
    return Ranking(_unit_order(sources), sources, time.perf_counter() - started)


def warm_up(kb: Any, texts: list[str], variants: list[Variant], depth: int) -> float:
    """Embed every query once, up front, and load each stage's models; the seconds embedding took.

    Variant timings then measure ranking alone: query embedding costs the same for every
    variant with a dense arm, and a lazily loaded model would bill its start-up to one variant.
    """
    from ..content.text.tokenize import tokenize

    started = time.perf_counter()
    kb.encoder.warm(texts)
    seconds = time.perf_counter() - started
    tokenize("营养 nutrition")  # the segmenter's and stemmer's dictionaries load on first use
    for variant in variants:
        rank(kb, texts[0], variant, depth)
    return seconds


def _unit_order(sources: list[Source]) -> list[str]:
    order: dict[str, None] = {}
    for source in sources:
        order.setdefault(source.unit_id, None)
        if source.story_id:
            order.setdefault(source.story_id, None)
    return list(order)
