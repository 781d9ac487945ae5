"""Generation: the LLM's answer, held to its sources, with an extractive answer behind it.

An answer may cite only the ids of the sources it was given, in the tag the prompt
asks for. One fabricated id, or one citation written in any other form (the check
in ``citations.py`` finds every spelling), earns the model one corrective retry
naming the bad ids and tags and the allowed ids; a second bad answer, a missing
LLM or any LLM failure yields the extractive answer (every id in it comes from the
sources). The caller always gets text and a faithfulness report, never an
exception, and ``error`` says why the LLM's answer was not used.

Streaming cannot take words back: a streamed answer is checked after the fact
(its report lists any invalid ids) and falls back to the extractive answer only
when the stream fails before its first piece.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..providers.llm.base import LLM, LLMUnavailable
from .extractive import answer_lang, extractive_answer
from .prompt import PromptError, build_messages
from .types import FaithfulnessReport, Source

#: ``check_citations(answer, whitelist)`` from ``unitrag.rag.citations``, injected.
CitationCheck = Callable[[str, Iterable[str]], FaithfulnessReport]

# ``invalid`` lists fabricated ids and, as written, tags that are not ``<Cite id="..."/>`` (see citations.py).
_CORRECTION = {
    "zh": "你的回答引用了资料中没有的 id：{invalid}。只能引用这些 id：{allowed}，"
    '每条引用都严格写成 <Cite id="..."/>，不加其他属性、不转义。请重写完整的回答：删除或替换这些引用，其他规则不变。',
    "en": "Your answer cited ids that are not in the sources: {invalid}. The only ids you may cite are: {allowed}, "
    'each written exactly as <Cite id="..."/>, with no other attribute and no escaping. '
    "Rewrite the whole answer, removing or replacing those citations; all other rules still apply.",
}
_NO_IDS = {"zh": "（无，不要引用）", "en": "(none: do not cite)"}


@dataclass(frozen=True)
class Generation:
    """The answer text, whether it is extractive, how many LLM calls it took, and why the LLM's was not used."""

    text: str
    extractive: bool
    attempts: int  # LLM calls made: 0 without an LLM, 2 after a corrective retry
    error: str | None  # None when the LLM's answer was used (or no LLM is configured)
    report: FaithfulnessReport

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "extractive": self.extractive, "attempts": self.attempts,
                "error": self.error, "report": self.report.to_dict()}


def correction_message(lang: str, invalid_ids: Iterable[str], allowed: Iterable[str]) -> dict[str, str]:
    """The user turn that asks for a rewrite without the fabricated ids."""
    lang = answer_lang(lang)
    allowed_text = ", ".join(sorted(set(allowed))) or _NO_IDS[lang]
    invalid_text = ", ".join(dict.fromkeys(invalid_ids))
    return {"role": "user", "content": _CORRECTION[lang].format(invalid=invalid_text, allowed=allowed_text)}


def _call(llm: LLM, messages: list[dict[str, str]]) -> tuple[str | None, str | None]:
    """(text, None) or (None, why): any LLM failure becomes a reason, never an exception."""
    try:
        result = llm.complete(messages, stream=False)
        text = result if isinstance(result, str) else "".join(result)
    except LLMUnavailable as exc:
        return None, exc.reason
    except Exception as exc:  # an LLM implementation that broke its contract
        return None, f"{llm.id}: {type(exc).__name__}: {exc}"
    if not text.strip():
        return None, f"{llm.id}: empty output"
    return text.strip(), None


def _messages(question: str, lang: str, sources: Sequence[Source], templates: Mapping[str, str]
              ) -> tuple[list[dict[str, str]] | None, str | None]:
    """(the prompt's messages, None) or (None, why): a broken template or source falls back, never raises."""
    try:
        return build_messages(question, lang, sources, templates), None
    except PromptError as exc:
        return None, str(exc)
    except Exception as exc:  # a malformed source: answer from the others rather than fail
        return None, f"prompt: {type(exc).__name__}: {exc}"


def _fallback(question: str, lang: str, sources: Sequence[Source], allowed: set[str], check: CitationCheck,
              attempts: int, error: str | None) -> Generation:
    text = extractive_answer(question, lang, sources, allowed=allowed)
    return Generation(text, True, attempts, error, check(text, allowed))


def generate_answer(
    question: str,
    lang: str,
    sources: Sequence[Source],
    templates: Mapping[str, str],
    llm: LLM | None,
    whitelist: Iterable[str],
    check: CitationCheck,
) -> Generation:
    """The LLM's answer when it cites only ``whitelist`` ids (after at most one corrective retry), else the extractive one.

    Never raises for an LLM or prompt failure; ``check`` (a pure function over strings) must not raise either.
    """
    allowed = set(whitelist)
    if llm is None:
        return _fallback(question, lang, sources, allowed, check, 0, None)
    messages, error = _messages(question, lang, sources, templates)
    if messages is None:
        return _fallback(question, lang, sources, allowed, check, 0, error)

    text, error = _call(llm, messages)
    if text is None:
        return _fallback(question, lang, sources, allowed, check, 1, error)
    report = check(text, allowed)
    if not report.invalid_ids:
        return Generation(text, False, 1, None, report)

    retry = [*messages, {"role": "assistant", "content": text}, correction_message(lang, report.invalid_ids, allowed)]
    text, error = _call(llm, retry)
    if text is None:
        return _fallback(question, lang, sources, allowed, check, 2, error)
    report = check(text, allowed)
    if not report.invalid_ids:
        return Generation(text, False, 2, None, report)
    error = (f"{llm.id}: cited ids not in the sources or malformed citation tags, also after a corrective retry: "
             f"{', '.join(report.invalid_ids)}")
    return _fallback(question, lang, sources, allowed, check, 2, error)


class AnswerStream(Iterator[str]):
    """The pieces of an answer as they arrive; ``generation`` holds the full result once they are exhausted."""

    def __init__(self, pieces: Generator[str, None, Generation]) -> None:
        self._pieces = pieces
        self.generation: Generation | None = None

    def __iter__(self) -> "AnswerStream":
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
) -> AnswerStream:
    """Like ``generate_answer``, piece by piece; no corrective retry (streamed words cannot be taken back)."""
    return AnswerStream(_stream(question, lang, sources, templates, llm, set(whitelist), check))


def _stream(question: str, lang: str, sources: Sequence[Source], templates: Mapping[str, str], llm: LLM | None,
            allowed: set[str], check: CitationCheck) -> Generator[str, None, Generation]:
    attempts = 0
    pieces: list[str] = []
    messages, error = _messages(question, lang, sources, templates) if llm is not None else (None, None)
    if llm is not None and messages is not None:
        attempts = 1
        stream: str | Iterator[str] = ""
        try:
            stream = llm.complete(messages, stream=True)
            for piece in [stream] if isinstance(stream, str) else stream:
                if piece:
                    pieces.append(piece)
                    yield piece
        except LLMUnavailable as exc:
            error = exc.reason
        except Exception as exc:  # an LLM implementation that broke its contract
            error = f"{llm.id}: {type(exc).__name__}: {exc}"
        finally:  # also when the consumer stops early: release the connection now, not at GC
            close = getattr(stream, "close", None)
            if callable(close):
                close()
        if not pieces and error is None:
            error = f"{llm.id}: the stream ended without any text"
    if pieces:  # a stream that broke off mid-way keeps what it said; error says why it stopped
        text = "".join(pieces)
        return Generation(text, False, attempts, error, check(text, allowed))
    generation = _fallback(question, lang, sources, allowed, check, attempts, error)
    yield generation.text
    return generation
