"""The runtime an app holds: open the artifact once, then search and ask from many threads.

ask: guard → broaden → embed query → dense (+ sparse, RRF) → rerank → answerability
gate → post-process → prompt → generate → citation check. Every stage is its own
module; this one only wires them and times them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Collection
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Config
from ..content.models import UNIT_KINDS
from ..errors import InvalidArgument
from ..providers.embedders import Embedder
from .example_questions import EXAMPLES_PER_LANG, example_questions
from .kb_identity import kb_identity, kb_languages, restricted_role
from .kb_location import check_location, load_store, open_arguments
from .arguments import choice, how_many, names, question_text, result_count, switch
from .search.postprocess import Boosts, postprocess
from .search.query_embedding import QueryEncoder
from .question_reading import QuestionReading, Reading  # noqa: F401 - Reading: part of this module's API
from .results import Answer, SearchResult
from .stated_questions import states_the_question
from .search.retrieval import Retriever
from .store.artifact_store import ChunkStore, return_freed_memory
from .store.known_ids import KnownIds
from .timing import timed
from .types import LANGS, GuardOutcome, ResolvedCitation, SearchFilter, UserContext, user_context

if TYPE_CHECKING:
    from ..postgres.url import DatabaseUrl
    from .ask_stream import AskStream
    from .answer.generate import Generation


@dataclass
class _Retrieved:
    """A question past the guard and the answerability gate: what generating its answer needs."""

    question: str
    lang: str
    result: SearchResult
    timings: dict[str, float]
    started: float  # perf_counter() when the ask began
    focus: Any = None  # (rag.answer.focus.QuestionFocus, Lexicon): the question as the extractive answer reads it
    caution: GuardOutcome | None = None  # the guard's note to show with the answer
    stated: bool = False  # answered whatever the gate said: one span states the question whole (``stated_questions``)

    @property
    def whitelist(self) -> set[str]:
        """The ids the answer may cite: every citation of the sources it is given."""
        return {cid for s in self.result.sources for cid in s.citation_ids}


#: A question this short (letters and digits) is "not found" unless the knowledge base knows one of its words.
UNKNOWN_SHORT = 4


class KnowledgeBase(QuestionReading):
    """Load once at start-up (vectors into memory); thread-safe afterwards."""

    def __init__(
        self, store: ChunkStore, encoder: QueryEncoder, config: Config, llm: Any = None, semantic_guard: Any = None,
        exemplars: Any = None,
    ) -> None:
        from .search.broaden import Broadener
        from .gate import pipeline_id
        from .guard.screen import Guard
        from ..providers.llm import is_none, parse_spec

        if not is_none(config.llm):  # a provider nobody registered is refused now, not at the first answerable question
            parse_spec(config.llm)
        self.store = store
        self.config = config
        self.identity = kb_identity(config, store.manifest)  # what the prompts say this knowledge base is
        self.restricted_role = restricted_role(store.manifest)  # the role its units were validated with
        self.languages = kb_languages(config, store.manifest)  # what it answers in when a question could be either
        self.encoder = encoder
        self.guard = Guard.from_rows(store.guard_rules, semantic=semantic_guard, embed=encoder.encode,
                                    embed_many=encoder.encode_many, llm=self._get_llm,
                                    service=self.identity.service(), spell=self._guard_spelling)
        self._guard_speller: Any = None  # the guard's speller: made on the first question (it needs the BM25 terms)
        self.broadener = Broadener.from_rows(store.topics)
        self.retriever = Retriever.build(store, encoder, config)
        self.retriever.restricted_role = self.restricted_role
        self.retriever.exemplars = exemplars  # rag.store.exemplars: the gate's "exemplar" feature
        self.retriever.use_calibration(store.calibration, pipeline_id(store.manifest, config))  # else the default gate, said once
        self.boosts = Boosts(config.boost_rule, config.boost_recent, config.boost_topic, config.boost_named_topic)
        self._speller: Any = None  # search.spelling.Speller: made on the first question (it needs the BM25 terms)
        self._traditional: bool | None = None  # whether the Chinese content is in traditional characters (on first use)
        self.known = KnownIds.of(store.topics, store.units, store.columns["unit_id"], store.columns["access"],
                                 store.columns["topics"], self.restricted_role)
        self.retriever.covered = self.known.covered_topics  # a topic only units a caller may not read carry: a gap to it
        self._llm: Any = llm
        self._closed = False
        self._freshness: Any = None  # rag.store.freshness.Freshness: set by ``open``
        if config.translate_queries and (llm is not None or config.llm != "none"):
            from .search.translate import QueryTranslator

            self.retriever.translator = QueryTranslator(self._get_llm, max_chars=config.max_question_chars,
                                                       service=self.identity.service())
        self._warm_segmenter()
        self._warm_search()
        return_freed_memory()  # what warming up freed (a product's temporaries, jieba's loading) back to the OS

    def _warm_search(self) -> None:
        """The first search's one-off costs, paid at open: the public filter masks, all and per language (the
        cross-lingual pool's; ~10 ms at 100k chunks), and a first product with the vector matrix (BLAS
        threads, pages): a first question then runs as later ones."""
        for lang in (None, *sorted(set(self.store.lang.tolist()) - {None})):
            self.store.mask(restricted=False, lang=lang)
        vectors = getattr(self.store, "vectors", None)
        if vectors is not None and len(vectors) and len(vectors) == len(self.store):  # a published store holds none
            self.store.dense_search(vectors[0], 1, SearchFilter(restricted=False))

    def _warm_segmenter(self) -> None:
        """What tokenising a question loads on first use, paid at open rather than by the first question:
        the stemmer's C extension (~8 ms) always, and jieba's dictionary for an artifact holding Chinese.
        The sparse arm, the reranker and the extractive answer all tokenise."""
        from ..content.text.tokenize import load_segmenter, tokenize

        if bool((self.store.lang == "zh").any()):
            load_segmenter(lean=True)  # the hashed dictionary (content.text.jieba_lean), unless one is loaded
            tokenize("营养")
        tokenize("nutrition")

    @classmethod
    def open(
        cls, path: str | Path | DatabaseUrl, *, config: Config | None = None, embedder: Embedder | None = None,
        llm: Any = None, refuse_stale: bool = True,
    ) -> "KnowledgeBase":
        """Open an artifact (a path) or a published database (a postgresql:// URL, see ``unitrag publish``).

        A search once a newer build is at the location is a ``KnowledgeBaseStale`` (``refuse_stale``; rag.store.freshness):
        open it again. ``unitrag serve``, which follows new builds by itself, passes False.

        ``embedder`` overrides the manifest's only if it is the same model.

        ``llm`` (a ``unitrag.providers.llm.LLM``, or a spec such as ``"litellm:deepseek/deepseek-chat"`` or
        ``"none"``) overrides ``config.llm``. Without ``config``, the defaults and what the artifact records (its
        name, description, languages and restricted role); pass ``config=load_config()`` to read unitrag.toml
        and ``UNITRAG_*`` as the CLI does.
        """
        from ..postgres.url import SCHEMES, DatabaseUrl
        from .store.freshness import Freshness, artifact_signature

        config, llm = open_arguments(config, embedder, llm)
        refuse_stale = switch(refuse_stale, "refuse_stale") is not False  # None: the default, refusing
        check_location(path)
        location = path if isinstance(path, DatabaseUrl) or str(path).startswith(SCHEMES) else os.path.abspath(path)
        signed = None if location is path else artifact_signature(location)  # before loading: a rename meanwhile is news
        store = load_store(path)
        # the guard's classifier and the exemplars are read with the chunks (from the artifact, or as published)
        kb = cls(store, QueryEncoder.for_manifest(store.manifest, embedder), config, llm, store.semantic_guard,
                 store.exemplars)
        kb._freshness = Freshness.of(location, store.manifest, signed) if refuse_stale else None
        return kb

    def close(self) -> None:
        """Release what the store holds (a PostgreSQL connection pool, or the artifact's connection for prompt texts).
        Closing twice is fine; a search or an answer afterwards is a ``KnowledgeBaseClosed``, whatever the store
        still holds in memory (a small artifact's texts would otherwise go on answering)."""
        self._closed = True
        self.store.close()
        if self._freshness is not None:
            self._freshness.close()  # a published database's: the connection its live generation is read on

    def __enter__(self) -> "KnowledgeBase":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _open_or_raise(self) -> None:
        if self._closed:
            from .store.prompt_texts import KnowledgeBaseClosed

            raise KnowledgeBaseClosed()
        if self._freshness is not None:
            self._freshness.check()

    # -- search -------------------------------------------------------------------------

    def search(
        self, question: str, *, k: int | None = None, user: UserContext | None = None, lang: str | None = None,
        kinds: list[str] | None = None, topics: list[str] | None = None, sparse: bool | None = None,
    ) -> SearchResult:
        """Ranked sources for a question, every stage's score attached; no guard, no LLM.

        A bad argument (``k`` not 1–100, an unknown ``lang``, kind or topic, a user context
        naming ids this knowledge base lacks, a question over ``max_question_chars``) is an
        ``InvalidArgument`` (a ``ValueError``) naming it, raised before any work.
        """
        self._open_or_raise()
        question = question_text(question, self.config.max_question_chars)
        k = self.config.final_k if k is None else result_count(k)
        lang = choice(lang, "lang", LANGS)
        kinds = list(names([] if kinds is None else kinds, "kinds", known=UNIT_KINDS))  # "" or {} is no list of kinds
        topics = self._member_topics(names([] if topics is None else topics, "topics"))
        sparse = switch(sparse, "sparse")
        self.known.check("topics", topics, self.known.topics.__contains__, "topic")
        user = self._checked_user(user)
        timings: dict[str, float] = {}
        read = self.read(question, user, timings)
        where = SearchFilter(restricted=user.holds(self.restricted_role), lang=lang, kinds=tuple(kinds), topics=tuple(topics))
        ranked = self.retriever.retrieve(read.queries, where, timings,
                                         sparse=self.config.sparse if sparse is None else sparse, probes=read.probes, user=user)
        with timed(timings, "postprocess"):
            final = postprocess(ranked, user, k, self.boosts, self.config.max_pages, self.retriever.focused(read.text, user),
                                self.retriever.named_topics(read.text, user), read.authored)
        return SearchResult(question, read.lang, final, timings, read.broadened,
                            corrected=read.corrected if read.corrected != question else None)

    def screen(self, question: str, lang: str, timings: dict[str, float] | None = None,
               user: UserContext | None = None) -> GuardOutcome | None:
        """The guard's outcome for ``question`` (``Guard.check``), read in the content's script as retrieval reads
        it: the guard's examples are written like the units, and the question is embedded once for both. A ``user``
        with the restricted role is answered past the rules that exempt it (``exempt_restricted_role``), a red flag's
        note beside the answer (``Guard.check_restricted``)."""
        self._open_or_raise()
        question = question_text(question, self.config.max_question_chars)
        user = None if user is None else self._checked_user(user)
        return self._screen(question, choice(lang, "lang", LANGS) or "en", timings, user)

    def _screen(self, question: str, lang: str, timings: dict[str, float] | None,
                user: UserContext | None) -> GuardOutcome | None:
        """``screen`` on arguments already checked (``ask`` checks them once, for the guard and retrieval alike)."""
        question = self.in_content_script(question)
        if user is not None and self.retriever.reads_restricted(user):
            return self.guard.check_restricted(question, lang, timings)
        return self.guard.check(question, lang, timings)

    # -- ask ----------------------------------------------------------------------------

    def ask(self, question: str, *, user: UserContext | None = None, lang: str | None = None) -> Answer:
        """An answer with sources, resolved citations and the faithfulness report; never raises for an LLM failure.

        Bad arguments are refused as in ``search``, before the guard.
        """
        from .answer.citations import check_citations
        from .answer.generate import generate_answer

        step = self._retrieve_for_answer(question, user, lang)
        if isinstance(step, Answer):  # the guard's response or "not found": no LLM
            return step
        with timed(step.timings, "generate"):
            generation = generate_answer(step.question, step.lang, step.result.sources, self.store.prompts,
                                         self._get_llm(), step.whitelist, check_citations, self.config.max_prompt_chars,
                                         focus=step.focus, identity=self.identity)
        return self._answer(step, generation)

    def ask_stream(self, question: str, *, user: UserContext | None = None, lang: str | None = None) -> "AskStream":
        """``ask`` piece by piece (an HTTP server streams it): the sources are known when this returns, the
        pieces follow, then ``stream.answer`` holds what ``ask`` would return (checked after the fact).

        Bad arguments raise here, as in ``ask``, before anything is streamed.
        """
        from .ask_stream import AskStream
        from .answer.citations import check_citations
        from .answer.generate import stream_answer

        step = self._retrieve_for_answer(question, user, lang)
        if isinstance(step, Answer):
            return AskStream.finished(step)
        pieces = stream_answer(step.question, step.lang, step.result.sources, self.store.prompts, self._get_llm(),
                               step.whitelist, check_citations, self.config.max_prompt_chars,
                               focus=step.focus, identity=self.identity)
        return AskStream(step.question, step.lang, step.result.sources, step.result.broadened, pieces, step.timings,
                         lambda generation: self._answer(step, generation))

    def _retrieve_for_answer(self, question: str, user: UserContext | None, lang: str | None) -> "Answer | _Retrieved":
        """Validate, guard, search and gate: the final answer when no LLM is needed, else what generation needs."""
        from .answer.closest import NEAR_ANSWERABLE, not_found_answer, not_found_text
        from .answer.prompt import prompt_lang
        from .answer.other_language import other_language_reply
        from .answer.small_talk import small_talk, small_talk_reply
        from ..content.text.lang import in_neither_language

        started = time.perf_counter()
        self._open_or_raise()
        question = question_text(question, self.config.max_question_chars)
        user = self._checked_user(user)
        answer_lang = choice(lang, "lang", LANGS) or self._answer_lang(question)
        timings: dict[str, float] = {}
        outcome = self._screen(question, answer_lang, timings, user)  # times "guard" and "embed" (reused by retrieval)
        if outcome is not None and outcome.stops:
            timings["total"] = (time.perf_counter() - started) * 1000
            return Answer(question, answer_lang, outcome.response, False, outcome, [], [], None, timings_ms=timings)
        caution = outcome  # None, or a caution: answered as any question, with its note
        talk = small_talk(question)
        if talk is not None:  # "hi", "谢谢", "who are you": a reply naming the knowledge base, not "not found"
            answer_lang = self._reply_lang(question, lang, answer_lang)
            examples = [e["text"] for e in self.example_questions(user.roles) if e["lang"] == prompt_lang(answer_lang)]
            examples = examples or [e["text"] for e in self.example_questions(user.roles)]  # the only ones it has
            timings["total"] = (time.perf_counter() - started) * 1000
            return Answer(question, answer_lang, small_talk_reply(talk, answer_lang, self.identity, examples), True,
                          None, [], [], None, timings_ms=timings, caution=caution)
        if in_neither_language(question):  # Japanese, Korean, Russian...: nothing here reads it, so nothing is guessed
            timings["total"] = (time.perf_counter() - started) * 1000
            return Answer(question, answer_lang, other_language_reply(self.languages, self.identity), True, None, [],
                          [], None, timings_ms=timings, caution=caution)
        result = self.search(question, user=user)
        timings.update(result.timings_ms)
        nothing_known = cache(partial(self._says_nothing_known, question, user))  # asked at most once, and only if needed
        gated = bool(result.sources) and self.retriever.answerable(result.sources)
        stated = bool(result.sources) and not gated and states_the_question(result.corrected or question, result.sources)
        if not (gated or stated) or nothing_known():
            timings["total"] = (time.perf_counter() - started) * 1000
            answer_lang = self._reply_lang(question, lang, answer_lang)
            refusal = not_found_text(self.store.prompts, answer_lang, max_chars=self.config.max_prompt_chars,
                                     identity=self.identity)  # never an exception: the built-in text at worst
            gate = self.retriever.gate
            reading = gate.reading(result.sources) if gate is not None and result.sources else None
            near = (reading is not None and reading["p_answerable"] >= NEAR_ANSWERABLE
                    and not nothing_known())
            text = not_found_answer(refusal, answer_lang, result.sources, asked_in=result.lang, written_in=self.languages,
                                    near=near)
            return Answer(question, answer_lang, text, True, None, result.sources, [], None,
                          timings_ms=timings, broadened=result.broadened, caution=caution, corrected=result.corrected,
                          gate=reading)
        read = result.corrected or question
        return _Retrieved(question, answer_lang, result, timings, started, self.retriever.focus(read, user), caution,
                          stated)

    def _reply_lang(self, question: str, lang: str | None, answer_lang: str) -> str:
        """The language of a fixed reply (small talk, "not found"): the asker's when the caller named none and the
        knowledge base is written in another only. "is matcha good for you" to a Chinese-only shop got 抱歉… beside an
        English hint, and "你好" to an English-only help desk an English greeting; a quote stays in the units' language."""
        from ..content.text.lang import detect_lang

        asked = detect_lang(question)
        return asked if lang is None and asked not in self.languages else answer_lang

    def _says_nothing_known(self, question: str, user: UserContext) -> bool:
        """A question of at most ``UNKNOWN_SHORT`` letters or digits none of which the knowledge base knows (no term of
        its text, no topic): "x", "qq". Its cosine to every chunk is what a short text's is anywhere, high with e5, and a
        team's calibrated gate (a cosine threshold) answered "x" from its repair units."""
        if sum(ch.isalnum() for ch in question) > UNKNOWN_SHORT:
            return False
        focus, _ = self.retriever.focus(question, user)
        return not focus.terms and not focus.topics

    def _answer_lang(self, question: str) -> str:
        """The language to answer in when the caller names none: the knowledge base's own when it declares one only
        (config ``languages``: a zh-only one answers "hi" or "我想 renew my books" in Chinese), else the question's."""
        from ..content.text.lang import detect_lang

        declared = self.languages
        return declared[0] if len(declared) == 1 else detect_lang(question)

    def _answer(self, step: "_Retrieved", generation: "Generation") -> Answer:
        cited = [cid for cid in dict.fromkeys(generation.report.valid_ids)]
        step.timings["total"] = (time.perf_counter() - step.started) * 1000
        gate = self.retriever.gate
        return Answer(
            step.question, step.lang, generation.text, False, None, step.result.sources, self._resolve(cited),
            generation.report, extractive=generation.extractive, llm_error=generation.error,
            timings_ms=step.timings, broadened=step.result.broadened, llm_calls=generation.attempts,
            llm_error_kind=generation.error_kind, caution=step.caution, quoted_units=generation.quoted_units,
            corrected=step.result.corrected, gate=self._reading(gate, step),
        )

    @staticmethod
    def _reading(gate: Any, step: "_Retrieved") -> dict[str, Any] | None:
        """The gate's reading of an answered question, and, where it said "not found", why it was answered anyway."""
        if gate is None:
            return None
        reading = gate.reading(step.result.sources)
        return {**reading, "answered_anyway": "one span states the question whole"} if step.stated else reading

    def example_questions(self, roles: Collection[str] = (), per_lang: int = EXAMPLES_PER_LANG) -> list[dict[str, str]]:
        """A few of the authors' own questions in each language, from units a caller holding ``roles`` may read:
        what the page and a greeting's reply offer to ask (``example_questions``). ``roles`` is read as a
        ``UserContext``'s (a string or a mapping is refused, an unknown role too: never a grant)."""
        self._open_or_raise()
        roles = self._checked_user(UserContext(roles=roles)).roles  # type: ignore[arg-type]
        return example_questions(self.store, self.known, roles, how_many(per_lang, "per_lang"))

    def _member_topics(self, topics: tuple[str, ...]) -> list[str]:
        """The topics a filter names, a group standing for its members: no chunk carries a group's id, so
        ``topics=["leavening"]`` would otherwise find nothing, in silence."""
        groups = self.broadener.groups
        return list(dict.fromkeys(member for topic in topics for member in groups.get(topic, [topic])))

    def check_user(self, user: UserContext | None) -> UserContext:
        """The caller's context (anonymous for None) if its type is right and every id it names is here.

        ``search`` and ``ask`` call it; an app may call it once when it builds a context.
        """
        self._open_or_raise()
        return self._checked_user(user)

    def _checked_user(self, user: UserContext | None) -> UserContext:
        """``check_user`` once the knowledge base is known open and current (``search``, ``ask``, ``screen``)."""
        checked: UserContext = user_context(user)
        self.known.check_user(checked)
        members = self.broadener.groups.get(checked.current_topic or "")
        if members is not None:  # a group is no topic a chunk carries: the boost would find nothing to lift
            raise InvalidArgument(f"current_topic: {checked.current_topic!r} is a group of topics; name one of its "
                                  f"topics: {', '.join(members[:8])}")
        return checked

    def _get_llm(self) -> Any:
        if self._llm is None and self.config.llm != "none":
            from ..providers.llm import load_llm

            self._llm = load_llm(self.config.llm)
        return self._llm

    def _resolve(self, ids: list[str]) -> list[ResolvedCitation]:
        resolved = []
        for cid in ids:
            row = self.store.citations.get(cid)
            if row is not None:
                resolved.append(ResolvedCitation(
                    id=cid, title=row["title"], authors=list(row["authors"]), year=row["year"],
                    venue=row.get("venue"), url=row.get("url"), doi=row.get("doi"),
                ))
        return resolved
