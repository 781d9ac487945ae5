""""Not found", with the closest material named as such.

A question inside the covered topics that no unit answers ("how much magnesium does a
child need?" where the units cover magnesium for adults) is better served by "the
knowledge base does not cover this; the closest it has is …" than by a bare refusal,
and far better than sentences about something else under "From the knowledge base:".
The closest units are named by title only: nothing of theirs is stated as the answer.
They are named only when they share a topic the question names (or the caller is
reading): for a question off the knowledge base's subject there is nothing close.

The not-found text itself is the artifact's ``not_found`` template. A template that does
not render (an old or altered artifact: the build refuses one) never fails the question:
the built-in text in the answer's language is used, and the operator is told once per
template (``not_found_text``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence

from .prompt import NOT_FOUND, UNNAMED, Identity, PromptError, prompt_lang, render_text
from .spans import plain_title
from ..types import Source

log = logging.getLogger(__name__)

#: Titles named at most.
CLOSEST_TITLES = 3
CLOSEST_LEAD = {"zh": "知识库中最接近的资料：", "en": "Closest material in the knowledge base: "}
#: "Not found" when the artifact's template does not render; ``{name}`` is the knowledge base's name.
BUILTIN_NOT_FOUND = {"zh": "抱歉，知识库“{name}”中没有找到能回答这个问题的资料。",
                     "en": 'Sorry, the knowledge base "{name}" has nothing that answers this question.'}

_reported: set[str] = set()  # the template failures already logged: once each, not once per question
_reported_lock = threading.Lock()


def not_found_text(templates: Mapping[str, str], lang: str, *, max_chars: int, identity: Identity = UNNAMED) -> str:
    """The artifact's ``not_found`` template rendered for ``lang``; the built-in text when it does not render
    (or renders empty), logged once per failure so the operator can rebuild."""
    try:
        text = render_text(NOT_FOUND, templates, max_chars=max_chars, identity=identity, lang=lang)
        problem = "" if text else f"prompt template {NOT_FOUND!r} renders empty"
    except PromptError as exc:
        text, problem = "", str(exc)
    if problem:
        with _reported_lock:
            first = problem not in _reported
            _reported.add(problem)
        if first:
            log.warning("%s; answering with the built-in \"not found\" text (run `unitrag validate`, then rebuild)",
                        problem)
        text = BUILTIN_NOT_FOUND[prompt_lang(lang)].format(name=identity.name)
    return text



#: The answerability gate's p(answerable) from which the top sources are named whatever topics they share: the gate
#: found them nearly good enough to answer from. A new team's "I have a broken microwave, where can I drop it off?"
#: got a bare refusal, its e-waste unit third and the gate's p 0.26 ("microwave" names no topic of theirs).
NEAR_ANSWERABLE = 0.2


def closest_titles(sources: Sequence[Source], near: bool = False) -> list[str]:
    """Titles of the top sources on a topic the question names (``scores["topic"]``), each once, best first; when the
    gate found them ``near`` answering (``NEAR_ANSWERABLE``), the top sources whatever their topics."""
    titles: list[str] = []
    for source in sources:
        if source.scores.get("topic", 0.0) <= 0 and not near:
            continue
        title = plain_title(source.title)
        if title and title not in titles:
            titles.append(title)
        if len(titles) >= CLOSEST_TITLES:
            break
    return titles


#: Said, in the question's language, when a knowledge base written in one language gets a question in another: the
#: gate reads a question across languages less surely (an English-only help desk's "旧电池放哪个垃圾桶？").
WRITTEN_IN = {("zh", "en"): "本知识库只有英文内容，用英文提问可能找到更多结果。",
              ("en", "zh"): "This knowledge base is written in Chinese only: asking in Chinese may find more."}


def not_found_answer(refusal: str, lang: str, sources: Sequence[Source], *, asked_in: str = "",
                     written_in: Sequence[str] = (), near: bool = False) -> str:
    """The not-found text, then (when there is any) a line naming the closest material (``closest_titles``), and a
    line saying which language the knowledge base is written in when it is one the question (``asked_in``) is not."""
    titles = closest_titles(sources, near)
    lang = "zh" if lang.startswith("zh") else "en"
    text = refusal
    if titles:
        joined = "；".join(titles) + "。" if lang == "zh" else "; ".join(titles) + "."
        text = f"{refusal}\n{CLOSEST_LEAD[lang]}{joined}"
    hint = WRITTEN_IN.get((asked_in, written_in[0])) if len(written_in) == 1 else None
    return f"{text}\n{hint}" if hint else text
