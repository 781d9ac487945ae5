"""Generation: the LLM's answer, held to its sources, with an extractive answer behind it.

An answer may cite only the ids of the sources it was given, in the tag the prompt
asks for. One fabricated id, or one citation written in any other form (the check
in ``citations.py`` finds every spelling, numbered markers such as ``[1]``, ``²`` or ``(ref. 2)``
and reference lists of the model's own: ``markers.py``), earns the model one corrective
retry naming the bad ids and tags and the allowed ids; so does a long answer that cites
nothing when its sources could be cited (it is the model's own knowledge). A second bad
answer, a missing LLM or any LLM failure yields the extractive answer (every id in it comes from the sources). The caller always gets text and a faithfulness report, never an
exception, and ``error`` says why the LLM's answer was not used: ``error_kind`` in one
fixed word (all a caller outside the server learns) and ``error`` in a line for the operator,
with secrets masked (the provider's message may echo its endpoint's password or key).

Streaming cannot take words back, so what could be a citation is held back until it can be
checked (``stream_filter``): a tag or marker that is not allowed never reaches the reader. The
whole streamed answer is then checked as ``generate_answer`` checks one (no retry): when it
fails, the final answer is the extractive one, with ``error_kind`` saying why, and a client
replaces the streamed words with it.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

from ...artifact.bounded_sandbox import MAX_PROMPT_CHARS
from ...providers.llm.base import LLM, LLMErrorCategory, LLMUnavailable, is_usable
from ...providers.llm.redact import redact_secrets
from .extractive import answer_lang, extractive_quotes
from .focus import Lexicon, QuestionFocus
from .prompt import UNNAMED, Identity, PromptError, build_messages
from .stream_filter import CitationStreamFilter, dangling_citation, without_dangling, without_hidden
from ..types import FaithfulnessReport, Source


class CitationCheck(Protocol):
    """``check_citations(answer, whitelist, told=...)`` from ``unitrag.rag.answer.citations``, injected."""

    def __call__(self, answer: str, whitelist: Iterable[str], *, told: bool = True) -> FaithfulnessReport: ...

# ``invalid`` lists fabricated ids and, as written, tags that are not ``<Cite id="..."/>`` (see citations.py).
_CORRECTION = {
    "zh": "你的回答引用了资料中没有的 id：{invalid}。只能引用这些 id：{allowed}，"
    '每条引用都严格写成 <Cite id="..."/>，不加其他属性、不转义，不用 [1]、²、（2）、②、（来源2）这样的编号，不写网址、DOI 或“作者，年份”式的出处，也不要自己列参考文献。'
    "请重写完整的回答：删除或替换这些引用，其他规则不变。",
    "en": "Your answer cited ids that are not in the sources: {invalid}. The only ids you may cite are: {allowed}, "
    'each written exactly as <Cite id="..."/>, with no other attribute and no escaping. '
    "Never number references yourself ([1], ², (2), ②, (ref. 2)), never write links, DOIs or author-and-year "
    "references, and never add a list of references. "
    "Rewrite the whole answer, removing or replacing those citations; "
    "all other rules still apply.",
}
_NO_IDS = {"zh": "（无，不要引用）", "en": "(none: do not cite)"}
# A long answer that cites none of its sources: most likely the model's own knowledge.
_UNCITED = {
    "zh": '你的回答没有引用任何资料。回答只能使用资料中的内容，并在每个依据之后用 <Cite id="..."/> 注明出处，'
    "可用的 id：{allowed}；不要用 [1]、²、（2）这样的编号，也不要自己列参考文献。请重写完整的回答，其他规则不变。",
    "en": "Your answer cites none of the sources. Use only what the sources say, and cite each point with "
    '<Cite id="..."/> using these ids: {allowed}; never number references yourself ([1], ², (2)) or list them. '
    "Rewrite the whole answer; all other rules still apply.",
}

#: Why the LLM's answer was not used, in a fixed vocabulary: a provider failure's category, an answer whose
#: citations stayed invalid after the corrective retry, or a prompt that could not be built.
ErrorKind = LLMErrorCategory | Literal["llm_invalid_citations", "prompt_error"]


@dataclass(frozen=True)
class Failure:
    """Why the LLM's answer was not used: a fixed word for any caller, and a line for the operator."""

    kind: ErrorKind
    detail: str


@dataclass(frozen=True)
class Generation:
    """The answer text, whether it is extractive, how many LLM calls it took, and why the LLM's was not used."""

    text: str
    extractive: bool
    attempts: int  # LLM calls made: 0 without an LLM, 2 after a corrective retry
    error: str | None  # None when the LLM's answer was used (or no LLM is configured); secrets masked
    report: FaithfulnessReport
    error_kind: ErrorKind | None = None  # set with ``error``: the fixed word an HTTP caller gets instead
    quoted_units: list[str] | None = None  # an extractive answer: the units it quotes; None: an LLM's answer

    @classmethod
    def of(cls, text: str, extractive: bool, attempts: int, failure: Failure | None, report: FaithfulnessReport,
           quoted_units: list[str] | None = None) -> Generation:
        return cls(text, extractive, attempts, failure.detail if failure else None, report,
                   failure.kind if failure else None, quoted_units)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "extractive": self.extractive, "attempts": self.attempts,
                "error": self.error, "error_kind": self.error_kind, "report": self.report.to_dict()}


def correction_message(lang: str, invalid_ids: Iterable[str], allowed: Iterable[str]) -> dict[str, str]:
    """The user turn that asks for a rewrite without the fabricated ids (none named: with citations at all)."""
    lang = answer_lang(lang)
    allowed_text = ", ".join(sorted(set(allowed))) or _NO_IDS[lang]
    invalid_text = ", ".join(dict.fromkeys(invalid_ids))
    template = _CORRECTION[lang] if invalid_text else _UNCITED[lang]
    return {"role": "user", "content": template.format(invalid=invalid_text, allowed=allowed_text)}


def _unfit(report: FaithfulnessReport, allowed: set[str]) -> bool:
    """The answer must be rewritten: a citation that is not allowed, or a long answer citing none it could."""
    return bool(report.invalid_ids) or (report.uncited_long_answer and bool(allowed))


def _unfit_reason(llm: LLM, report: FaithfulnessReport, when: str) -> Failure:
    if report.invalid_ids:
        return Failure("llm_invalid_citations", f"{llm.id}: cited ids not in the sources or malformed citation tags, "
                                                f"{when}: {', '.join(report.invalid_ids)}")
    return Failure("llm_invalid_citations", f"{llm.id}: a long answer citing none of its sources, {when}")


def llm_failure(llm: LLM, exc: Exception) -> Failure:
    """Any exception from ``llm.complete`` as a failure: a provider's own (already redacted), or one from an
    LLM implementation that broke its contract (redacted here)."""
    if isinstance(exc, LLMUnavailable):
        return Failure(exc.category, exc.reason)
    return Failure("llm_error", f"{llm.id}: {type(exc).__name__}: {redact_secrets(str(exc))}")


#: An answer longer than this answers no one question from five sources: a model looping, or flooding its reader
#: (one valid tag anywhere would otherwise carry megabytes past the "uncited long answer" check).
MAX_ANSWER_CHARS = 20_000


def unshowable(llm: LLM, text: Any, so_far: int = 0) -> Failure | None:
    """Why text from an LLM cannot be shown (None: it can): not a string, past ``MAX_ANSWER_CHARS`` with the
    ``so_far`` already streamed, or holding a lone surrogate, which no UTF-8 encodes: the HTTP response, the
    stream and the terminal would each fail on it, after the caller was told an answer was coming."""
    if not isinstance(text, str):
        return Failure("llm_error", f"{llm.id}: the LLM gave a {type(text).__name__}, not text")
    if so_far + len(text) > MAX_ANSWER_CHARS:
        return Failure("llm_error", f"{llm.id}: an answer longer than {MAX_ANSWER_CHARS:,} characters")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return Failure("llm_error", f"{llm.id}: the answer holds a lone surrogate (no UTF-8 text can)")
    return None


def _call(llm: LLM, messages: list[dict[str, str]]) -> tuple[str | None, Failure | None]:
    """(text, None) or (None, why): any LLM failure becomes a reason, never an exception."""
    try:
        result = llm.complete(messages, stream=False)
        text = result if isinstance(result, str) else "".join(result)
    except Exception as exc:  # LLMUnavailable, or an LLM implementation that broke its contract
        return None, llm_failure(llm, exc)
    bad = unshowable(llm, text)
    if bad is not None:
        return None, bad
    text = without_hidden(text).strip()
    if not without_dangling(text):
        return None, Failure("llm_error", f"{llm.id}: empty output")
    return text, None


def _checked(text: str, allowed: set[str], check: CitationCheck) -> tuple[str, FaithfulnessReport]:
    """The answer as shown (an unfinished tag or marker at its end dropped) and its citation check, where a citation
    tag it ends on unfinished counts as invalid (``dangling_citation``): the model is asked again, or falls back."""
    shown = without_dangling(text)
    report = check(shown, allowed)
    cut = dangling_citation(text, allowed)
    return shown, replace(report, invalid_ids=[*report.invalid_ids, cut]) if cut is not None else report


def _messages(question: str, lang: str, sources: Sequence[Source], templates: Mapping[str, str],
              max_chars: int = MAX_PROMPT_CHARS, identity: Identity = UNNAMED,
              ) -> tuple[list[dict[str, str]] | None, Failure | None]:
    """(the prompt's messages, None) or (None, why): a broken template, a source or a prompt over ``max_chars``
    (config ``max_prompt_chars``) falls back, never raises, and never reaches the LLM."""
    try:
        return build_messages(question, lang, sources, templates, max_chars, identity), None
    except PromptError as exc:
        return None, Failure("prompt_error", str(exc))
    except Exception as exc:  # a malformed source: answer from the others rather than fail
        return None, Failure("prompt_error", f"prompt: {type(exc).__name__}: {exc}")


def _fallback(question: str, lang: str, sources: Sequence[Source], allowed: set[str], check: CitationCheck,
              attempts: int, failure: Failure | None, focus: tuple[QuestionFocus, Lexicon] | None) -> Generation:
    text, units = extractive_quotes(question, lang, sources, allowed=allowed, focus=focus)
    # quoted from the units: a link or "Smith et al." there is the authors' own words, not a reference the LLM told
    return Generation.of(text, True, attempts, failure, check(text, allowed, told=False), units)


def generate_answer(
    question: str,
    lang: str,
    sources: Sequence[Source],
    templates: Mapping[str, str],
    llm: LLM | None,
    whitelist: Iterable[str],
    check: CitationCheck,
    max_prompt_chars: int = MAX_PROMPT_CHARS,
    focus: tuple[QuestionFocus, Lexicon] | None = None,
    identity: Identity = UNNAMED,
) -> Generation:
    """The LLM's answer when it cites only ``whitelist`` ids (after at most one corrective retry), else the extractive one.

    Never raises for an LLM or prompt failure; ``check`` (a pure function over strings) must not raise either.
    ``focus`` (``Retriever.focus``) is the question as the extractive answer reads it; ``identity`` is what the
    prompts say the knowledge base is.
    """
    allowed = set(whitelist)

    def fallback(attempts: int, failure: Failure | None) -> Generation:
        return _fallback(question, lang, sources, allowed, check, attempts, failure, focus)

    if llm is None:
        return fallback(0, None)
    messages, failure = _messages(question, lang, sources, templates, max_prompt_chars, identity)
    if messages is None:
        return fallback(0, failure)

    said, failure = _call(llm, messages)
    if said is None:
        return fallback(1, failure)
    text, report = _checked(said, allowed, check)
    if not _unfit(report, allowed):
        return Generation(text, False, 1, None, report)

    retry = [*messages, {"role": "assistant", "content": said}, correction_message(lang, report.invalid_ids, allowed)]
    said, failure = _call(llm, retry)
    if said is None:
        return fallback(2, failure)
    text, report = _checked(said, allowed, check)
    if not _unfit(report, allowed):
        return Generation(text, False, 2, None, report)
    return fallback(2, _unfit_reason(llm, report, "also after a corrective retry"))


class AnswerStream(Iterator[str]):
    """The pieces of an answer as they arrive; ``generation`` holds the full result once they are exhausted."""

    def __init__(self, pieces: Generator[str, None, Generation]) -> None:
        self._pieces = pieces
        self.generation: Generation | None = None

    def __iter__(self) -> AnswerStream:
        return self

    def __next__(self) -> str:
        try:
            return next(self._pieces)
        except StopIteration as stop:
            self.generation = stop.value
            raise

    def close(self) -> None:
        """Stop early (the client went away): the LLM stream is closed with it."""
        self._pieces.close()


def stream_answer(
    question: str,
    lang: str,
    sources: Sequence[Source],
    templates: Mapping[str, str],
    llm: LLM | None,
    whitelist: Iterable[str],
    check: CitationCheck,
    max_prompt_chars: int = MAX_PROMPT_CHARS,
    focus: tuple[QuestionFocus, Lexicon] | None = None,
    identity: Identity = UNNAMED,
) -> AnswerStream:
    """Like ``generate_answer``, piece by piece; no corrective retry (streamed words cannot be taken back)."""
    return AnswerStream(_stream(question, lang, sources, templates, llm, set(whitelist), check, max_prompt_chars, focus,
                                identity))


def _stream(question: str, lang: str, sources: Sequence[Source], templates: Mapping[str, str], llm: LLM | None,
            allowed: set[str], check: CitationCheck, max_prompt_chars: int,
            focus: tuple[QuestionFocus, Lexicon] | None, identity: Identity) -> Generator[str, None, Generation]:
    attempts = 0
    pieces: list[str] = []
    messages, failure = (_messages(question, lang, sources, templates, max_prompt_chars, identity) if llm is not None
                         else (None, None))
    if llm is not None and messages is not None:
        attempts = 1
        stream: str | Iterator[str] = ""
        held = CitationStreamFilter(allowed)
        try:
            stream = llm.complete(messages, stream=True)
            streamed = 0
            for piece in [stream] if isinstance(stream, str) else stream:
                failure = unshowable(llm, piece, streamed)
                if failure is not None:  # nothing of it is shown: the extractive answer replaces what was
                    break
                if piece:
                    streamed += len(piece)
                    pieces.append(piece)
                    if shown := held.feed(piece):
                        yield shown
        except Exception as exc:  # LLMUnavailable, or an LLM implementation that broke its contract
            failure = llm_failure(llm, exc)
        finally:  # also when the consumer stops early: release the connection now, not at GC
            close = getattr(stream, "close", None)
            if callable(close):
                close()
        if shown := held.finish():
            yield shown
        if not pieces and failure is None:
            failure = Failure("llm_error", f"{llm.id}: the stream ended without any text")
    if pieces:
        text, report = _checked(without_hidden("".join(pieces)), allowed, check)  # as shown (``StreamFilter.finish``)
        if failure is None and not is_usable(text):
            failure = Failure("llm_error", f"{llm.id}: empty or unusable output ({text!r:.60})")
        elif failure is None and _unfit(report, allowed):
            failure = _unfit_reason(llm, report, "in a streamed answer")
        elif failure is None:
            return Generation.of(text, False, attempts, failure, report)
        # else it broke off mid-way: what it said is no answer ("Feed it "), the extractive one replaces it
    generation = _fallback(question, lang, sources, allowed, check, attempts, failure, focus)
    if not pieces:  # else the reader has the LLM's words (checked tags only); ``generation`` replaces them
        yield generation.text
    return generation
