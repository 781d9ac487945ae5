"""The question in the knowledge base's other language, from the configured LLM, as one more probe.

The taxonomy's probes (rag.search.crosslingual) reach the other language's units only through
the topics a question names; a question in words the taxonomy lacks ("my hair is
falling out, could it be my diet?") gets the per-language pool alone. With an LLM
configured, its translation of the question is searched too (dense and BM25, among
the other language's chunks): a question meets the passages in their own language.

It only adds candidates. The translation never reaches the prompt or the user, lends
no score to the reranker or the answerability gate (they read the question's own
cosines, as the gate was fitted), and every failure (no LLM, an error, no answer within
``deadline_s``, anything but ``{"translation": "..."}`` in the target language) leaves
the offline probes as they were.
"""

from __future__ import annotations

import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ...content.text.lang import detect_lang
from ..answer.prompt import UNNAMED
from ...providers.llm.json_reply import ask_json

DEADLINE_S = 3.0
CACHE_SIZE = 1024
LANGUAGE_NAMES = {"en": "English", "zh": "Simplified Chinese"}
SYSTEM = (
    "You translate questions sent to {service}, for searching its documents. "
    "Translate the user's message into {language}. Keep numbers, units and technical terms exact; add nothing and "
    'answer nothing. Reply with one JSON object and nothing else: {{"translation": "..."}}'
)


class QueryTranslator:
    """Translations of questions by ``llm()`` (a ``providers.llm.LLM`` or None), cached; see the module docstring."""

    def __init__(self, llm: Callable[[], Any], deadline_s: float = DEADLINE_S, max_chars: int = 2000,
                 service: str = UNNAMED.service()) -> None:
        self._llm = llm
        self.service = service  # what the knowledge base is (``Identity.service``): the translator's context
        self.deadline_s = deadline_s
        self.max_chars = max_chars  # the knowledge base's max_question_chars: a translation is searched like a question
        self.last_error: str | None = None
        self._cache: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._lock = threading.Lock()

    def translate(self, question: str, target: str) -> str | None:
        """``question`` in ``target`` ("en" | "zh"), or None when no usable translation came back."""
        key = (question, target)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        try:
            llm = self._llm()
        except Exception as exc:  # a misconfigured LLM must not break retrieval
            self.last_error = f"{type(exc).__name__}: {exc}"
            return None
        if llm is None:
            return None
        messages = [
            {"role": "system", "content": SYSTEM.format(service=self.service, language=LANGUAGE_NAMES[target])},
            {"role": "user", "content": question},
        ]
        data, error = ask_json(llm, messages, self.deadline_s)
        text, error = (None, error) if data is None else usable(data, question, target, self.max_chars)
        self.last_error = error
        if text is not None:
            with self._lock:
                self._cache[key] = text
                while len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
        return text


def usable(data: dict[str, Any], question: str, target: str, max_chars: int = 2000) -> tuple[str | None, str | None]:
    """The translation in ``data`` if it is one: exactly ``{"translation": str}``, in ``target``, of a sane length
    (at most ``max_chars``, the bound every question searched is held to)."""
    if set(data) != {"translation"} or not isinstance(data["translation"], str):
        return None, f'not {{"translation": "..."}}: {str(data)[:60]!r}'
    spaced = " ".join(data["translation"].split())  # line breaks and tabs become single spaces
    text = "".join(c for c in spaced if not unicodedata.category(c).startswith("C"))  # then no control or format characters
    if not text or text == question.strip():
        return None, "no translation"
    if len(text) > min(4 * len(question) + 100, max_chars):
        return None, f"a translation of {len(text)} characters for a question of {len(question)}"
    if detect_lang(text) != target:
        return None, f"the translation is not in {LANGUAGE_NAMES[target]}: {text[:60]!r}"
    return text, None
