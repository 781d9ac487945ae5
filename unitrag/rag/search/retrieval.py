"""Candidate retrieval: dense (and sparse, fused by RRF) over every query, then rerank.

Broadened questions arrive as several queries; their candidate lists are fused
like any other list, so a chunk found by several sub-queries rises.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...access import DEFAULT_ROLE
from ...config import Config
from ..arguments import question_text
from ..store.exemplars import AUTHORED_ANSWERS
from .crosslingual import OTHER, CrossLingual, Probe
from .exemplar_reading import ExemplarReading
from .named_topics import NamedTopics, topic_idf
from .postprocess import focus
from .query_embedding import QueryEncoder
from ..store.artifact_store import ChunkStore
from ..timing import timed
from ..types import SearchFilter, Source, UserContext

RRF_K = 60
#: Probes whose lists add candidates but whose scores the reranker and the gate never read: they search
#: words other than the question's own (the gate was fitted on the question's cosines).
UNSCORED_PROBES = frozenset({"expand", "translate"})
_SPARSE_LOCK = threading.Lock()
#: The first this many chunks of each of the question's own first-stage lists (dense, BM25) are reranked whatever
#: their fused rank: probes for a topic the question names ("blue bin") heap RRF on that topic's chunks, and a new
#: team's unit ranked first by BM25 fell below the reranker's cut (``rerank_k``), out of every answer. Two, fixed
#: before measuring: Success@5 on the sample's and the examples' dev sets 514 → 518 of 550, test 578 → 580 of 594,
#: six new teams' dev and test sets 213 → 216 of 231 (docs/benchmarks/quality.md).
OWN_KEPT = 2


@dataclass
class Retriever(NamedTopics, ExemplarReading):
    store: ChunkStore
    encoder: QueryEncoder
    config: Config
    sparse_index: Any = None  # unitrag.rag.store.sparse.SparseIndex: at open when sparse is on, else on first use
    public_sparse: Any = None  # the same, with the public rows' statistics (``SparseIndex.seen_by``): the public's
    reranker: Any = None
    gate: Any = None
    crosslingual: CrossLingual | None = None  # probes into the other language's units (rag.search.crosslingual)
    rows_of_unit: dict[str, list[int]] | None = None  # unit or scene id → chunk rows, for context probes
    topic_idf: dict[str, float] | None = None  # topic → log(chunks / chunks carrying it), for named-topic boosts
    public_topic_idf: dict[str, float] | None = None  # the same over the public chunks (``_public_topic_idf``)
    translator: Any = None  # rag.search.translate.QueryTranslator: with an LLM configured, the question in the other language
    exemplars: Any = None  # rag.store.exemplars.Exemplars: questions known to be answerable or not, for the gate
    lexicon: Any = None  # rag.answer.focus.Lexicon: idf and topic names for the extractive answer, on first use
    full_lexicon: Any = None  # the same over every chunk, for a caller holding the restricted role
    #: roles → the topics units those roles may read carry (``KnownIds.covered_topics``): any other is, for that caller,
    #: a declared gap. None: every topic a chunk carries (a retriever without a knowledge base's ids)
    covered: Callable[[Collection[str]], Collection[str]] | None = None
    restricted_role: str = DEFAULT_ROLE  # the knowledge base's: a caller holding it reads restricted units

    @classmethod
    def build(cls, store: ChunkStore, encoder: QueryEncoder, config: Config) -> Retriever:
        retriever = cls(store, encoder, config)
        retriever.crosslingual = CrossLingual.from_rows(store.topics, public_langs(store.lang, store.mask(restricted=False)))
        if config.reranker != "none":
            from ...providers.rerankers import load_reranker

            retriever.reranker = load_reranker(config.reranker)
        if config.sparse:  # built at open, from the terms the build stored: no first-query stall
            retriever._sparse()
        retriever.topic_idf = topic_idf(store)
        return retriever

    def retrieve(
        self, queries: list[str], where: SearchFilter, timings: dict[str, float], *, sparse: bool,
        probes: Sequence[Probe] = (), user: UserContext | None = None,
    ) -> list[Source]:
        """Candidates best first, each carrying its dense / sparse / rrf / rerank / topic scores.

        A question about the user's context (``focused``) gets that context's candidates first, so the
        reranker's cut keeps them.
        """
        user = user or UserContext()
        fused, also = self.first_stage(queries, where, timings, sparse=sparse, probes=probes)
        found = focus(fused, user if self.focused(queries[0], user) else None)
        self.mark_topics(queries[0], found, user)
        self.mark_exemplars(queries[0], found, user)
        return self.rerank(queries[0], found, timings, also) if self.reranker is not None else found

    def candidates(
        self, queries: list[str], where: SearchFilter, timings: dict[str, float], *,
        sparse: bool, dense: bool = True, depth: int | None = None, probes: Sequence[Probe] = (),
    ) -> list[Source]:
        """The first stage: dense and/or BM25 lists of every query and probe, fused by RRF, ``depth`` long.

        Dense cosines are corrected per (query language, chunk language) pair (``crosslingual.offset``).
        A probe's list joins the fusion; only probes that ask the question itself (not ``expand``'s
        topic names, nor ``translate``'s LLM rendering) lend their scores to the ``dense`` / ``sparse``
        a reranker and the gate read.

        Queries over twice ``max_question_chars`` are refused here too: evaluation ranks through this
        method directly, and nothing unbounded may reach jieba, BM25 or the embedder's lock. Twice, since
        a query is the caller's question as the runtime reads it: a question at the limit with a misspelled
        word corrected ("chifon" read as "chiffon") is a few characters longer, and was the caller's to send.
        """
        return self.first_stage(queries, where, timings, sparse=sparse, dense=dense, depth=depth, probes=probes)[0]

    def first_stage(
        self, queries: list[str], where: SearchFilter, timings: dict[str, float], *,
        sparse: bool, dense: bool = True, depth: int | None = None, probes: Sequence[Probe] = (),
    ) -> tuple[list[Source], frozenset[str]]:
        """``candidates``, and the chunks the reranker also reads, past its cut: the first ``OWN_KEPT`` of each of
        the question's own lists (those fused below ``depth`` are added at the end)."""
        for query in queries:
            question_text(query, QUERY_CHARS_PER_QUESTION_CHAR * self.config.max_question_chars)
        k = depth or self.config.dense_k
        searches = [(q, where, True, True) for q in queries] + [
            (p.text, _narrowed(where, p), p.dense, p.sparse) for p in probes if not p.units
        ]
        scored = [True] * len(queries) + [p.why not in UNSCORED_PROBES for p in probes if not p.units]
        dense_lists: list[tuple[np.ndarray, np.ndarray, bool]] = []
        for (query, narrowed, use_dense, _), keep in zip(searches, scored):
            if not (dense and use_dense):
                continue
            with timed(timings, "embed"):
                vector = self.encoder.encode(query)
            with timed(timings, "dense"):
                rows, scores = self.store.dense_search(vector, k, narrowed)
                dense_lists.append((rows, self._corrected(query, rows, scores), keep))
        for probe in probes if dense else ():
            if probe.units:
                with timed(timings, "dense"):
                    rows, scores = self._unit_rows(probe.units, self.encoder.encode(probe.text), where)
                    dense_lists.append((rows, self._corrected(probe.text, rows, scores), True))
        sparse_lists: list[tuple[np.ndarray, np.ndarray, bool]] = []
        if sparse:
            with timed(timings, "sparse"):
                self._sparse()
                for (query, narrowed, _, use_sparse), keep in zip(searches, scored):
                    if use_sparse:
                        index = self.sparse_index if narrowed.restricted else self.public_sparse
                        sparse_lists.append((*index.search(query, k, self.store.filter_mask(narrowed)), keep))
        by_rank = bool(probes) or (bool(sparse_lists) and bool(dense_lists))
        # the question's own lists come first in each arm (``searches``: the queries, then the probes); only a reranker
        # reads them, and only where probes or the other arm could have buried them (``by_rank``)
        own = [row for rows, _, _ in (*dense_lists[:len(queries)], *sparse_lists[:len(queries)])
               for row in rows[:OWN_KEPT].tolist()] if by_rank and self.reranker is not None else []
        with timed(timings, "fuse"):
            return self._fuse(dense_lists, sparse_lists, k, by_rank, own)

    def _unit_rows(self, units: tuple[str, ...], vector: np.ndarray, where: SearchFilter) -> tuple[np.ndarray, np.ndarray]:
        """The chunks of ``units`` the caller may see, by the question's cosine (best first; unscored without vectors)."""
        if self.rows_of_unit is None:  # built on first use (a benign race: both threads build the same dict)
            index: dict[str, list[int]] = {}
            for column in ("unit_id", "scene_id"):
                values = self.store.columns[column]
                for i in range(len(self.store)):
                    if values[i]:
                        index.setdefault(values[i], []).append(i)
            self.rows_of_unit = index
        mask = self.store.filter_mask(where)
        found = sorted({i for unit in units for i in self.rows_of_unit.get(unit, ())})
        rows = np.array([i for i in found if mask is None or mask[i]], dtype=np.int64)
        vectors = getattr(self.store, "vectors", None)
        if not len(rows) or vectors is None or len(vectors) != len(self.store):  # a published store keeps none in memory
            return rows, np.zeros(len(rows), dtype=np.float32)
        scores = (vectors[rows] @ vector).astype(np.float32)
        order = np.argsort(-scores, kind="stable")
        return rows[order], scores[order]

    def _corrected(self, query: str, rows: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """Cosines made comparable across languages: the pair's offset added where the chunk's language differs."""
        if self.crosslingual is None or not len(rows):
            return scores
        langs = self.store.lang[rows]
        if (langs == langs[0]).all() and self.crosslingual.offset(query, str(langs[0])) == 0.0:
            return scores
        return scores + np.array([self.crosslingual.offset(query, str(g)) for g in langs], dtype=scores.dtype)

    def use_calibration(self, rows: list[dict[str, Any]], pipeline: str) -> None:
        """The artifact's gate for ``pipeline`` (and the cosine corrections it was fitted with), else the default.

        The default gate (fitted on the bundled sample's dev questions) keeps "not found" working on a
        knowledge base not yet calibrated; using it is said once, with how to fit one (rag.calibration_file).
        """
        from ..calibration_file import gate_in_use, say_once, uncalibrated_message

        self.gate, is_default = gate_in_use(rows, pipeline)
        if is_default:
            say_once(uncalibrated_message(pipeline, self.gate, brief=True))
        if self.gate is not None and self.gate.lang_offsets is not None and self.crosslingual is not None:
            self.crosslingual.offsets = dict(self.gate.lang_offsets)

    def reads_restricted(self, user: UserContext | None) -> bool:
        """Whether ``user`` (None: anonymous) holds the knowledge base's restricted role."""
        return user is not None and user.holds(self.restricted_role)

    def probes(
        self, question: str, q_lang: str, user: UserContext | None = None, timings: dict[str, float] | None = None
    ) -> list[Probe]:
        """The cross-lingual and user-context searches ``question`` gets besides its own (rag.search.crosslingual, rag.search.translate)."""
        if self.crosslingual is None:
            return []
        user = user or UserContext()
        probes = self.crosslingual.probes(question, q_lang, user.current_topic, user.triggered_rules + user.recent_scenes)
        other = OTHER.get(q_lang)
        if self.translator is not None and other in self.crosslingual.langs:
            with timed(timings if timings is not None else {}, "translate"):
                translation = self.translator.translate(question, other)
            if translation is not None:
                probes.append(Probe(translation, "translate", lang=other, sparse=True))
        return probes

    def rerank(self, question: str, candidates: list[Source], timings: dict[str, float],
               also: Collection[str] = ()) -> list[Source]:
        """The top ``rerank_k`` candidates and those of ``also`` (chunk ids: ``first_stage``) re-scored by the
        reranker, best first (the rest are dropped)."""
        with timed(timings, "rerank"):
            head = reranked(candidates, self.config.rerank_k, also)
            for source, score in zip(head, self.reranker.score(question, head)):
                source.scores["rerank"] = float(score)
                source.score = float(score)
            return sorted(head, key=lambda s: s.score, reverse=True)

    def sparse_terms(self) -> Any:
        """The BM25 index (``store.sparse.SparseIndex``), built on first use, as the public sees it: which terms the
        chunks every caller may read hold, and how rare they are there. What the speller and the extractive answer,
        shared by every caller, read: neither may move with the words of restricted chunks."""
        self._sparse()
        return self.public_sparse

    def _sparse(self) -> Any:
        with _SPARSE_LOCK:  # two threads' first sparse queries must not both build it
            if self.sparse_index is None:
                from ..store.sparse import SparseIndex

                index = SparseIndex.build(self.store)
                public = self.store.mask(restricted=False)
                self.public_sparse = index if public is None or public.all() else index.seen_by(public)
                self.sparse_index = index
        return self.sparse_index

    def _fuse(
        self, dense: list[tuple[np.ndarray, np.ndarray, bool]], sparse: list[tuple[np.ndarray, np.ndarray, bool]], k: int,
        by_rank: bool, kept: Sequence[int] = (),
    ) -> tuple[list[Source], frozenset[str]]:
        """Best dense and sparse score per chunk (from the lists marked to keep theirs), plus RRF of all lists; and
        the chunk ids of ``kept`` (rows), which the reranker reads wherever they fused (appended when below ``k``).

        ``by_rank`` (both arms, or probes): RRF ranks; else (one arm of the queries alone) that arm's own score.
        """
        best_dense: dict[int, float] = {}
        best_sparse: dict[int, float] = {}
        rrf: dict[int, float] = {}
        for lists, best in ((dense, best_dense), (sparse, best_sparse)):
            for rows, scores, keep in lists:
                for rank, (row, score) in enumerate(zip(rows.tolist(), scores.tolist()), start=1):
                    if keep:
                        best[row] = max(best.get(row, -np.inf), score)
                    rrf[row] = rrf.get(row, 0.0) + 1.0 / (RRF_K + rank)
        final = rrf if by_rank else (best_dense if dense else best_sparse)
        top = sorted(final, key=lambda row: final[row], reverse=True)[:k]  # stable: ties keep first-seen order
        top += [row for row in dict.fromkeys(kept) if row not in top]
        stage_scores = []
        for row in top:
            scores = {"dense": best_dense[row]} if row in best_dense else {}
            if row in best_sparse:
                scores["sparse"] = best_sparse[row]
            if by_rank:
                scores["rrf"] = rrf[row]
            stage_scores.append(scores)
        sources = self.store.sources(top, stage_scores)  # one fetch of prompt texts, for the k kept only
        for row, source in zip(top, sources):
            source.score = final[row]
        kept_rows = set(kept)
        return sources, frozenset(source.chunk_id for row, source in zip(top, sources) if row in kept_rows)

    def answerable(self, sources: list[Source]) -> bool:
        """The answerability gate on the final-stage score (calibrated per model); an author's own question of a
        unit, asked nearly word for word, is answered whatever the gate (rag.store.exemplars)."""
        if self.gate is None or (sources and sources[0].scores.get("authored", 0.0) >= AUTHORED_ANSWERS):
            return True
        return bool(self.gate.answerable(sources))


def reranked(candidates: Sequence[Source], cut: int, also: Collection[str] = ()) -> list[Source]:
    """The candidates the reranker reads: the first ``cut``, then those of ``also`` (chunk ids) below it."""
    return [*candidates[:cut], *(s for s in candidates[cut:] if s.chunk_id in also)]


def _narrowed(where: SearchFilter, probe: Probe) -> SearchFilter:
    """The caller's filter narrowed by a probe; the caller's own language or topic filter wins."""
    return replace(
        where, lang=where.lang or probe.lang, topics=where.topics or probe.topics,
    )


def public_langs(langs: np.ndarray, public: np.ndarray | None) -> set[str]:
    """The languages of the chunks every caller may read (``public``: the store's public mask; all of them in a
    knowledge base with none public): which other language a question is probed in must not tell a public caller
    that restricted units exist in another."""
    langs = np.asarray(langs)
    seen = langs if public is None else langs[public]
    return set((seen if len(seen) else langs).tolist()) - {None}


#: How much longer than the question a query made of it may be (``candidates``).
QUERY_CHARS_PER_QUESTION_CHAR = 2
