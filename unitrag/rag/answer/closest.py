""""Not found", with the closest material named as such.

A question inside the covered topics that no unit answers ("how much magnesium does a
child need?" where the units cover magnesium for adults) is better served by "the
knowledge base does not cover this; the closest it has is …" than by a bare refusal,
and far better than sentences about something else under "From the knowledge base:".
The closest units are named by title only: nothing of theirs is stated as the answer.
They are named only when they share a topic the question names (or the caller is
reading): for a question off the knowledge base's subject there is nothing close.
"""

from __future__ import annotations

from collections.abc import Sequence

from .spans import plain_title
from ..types import Source

#: Titles named at most.
CLOSEST_TITLES = 3
CLOSEST_LEAD = {"zh": "知识库中最接近的资料：", "en": "Closest material in the knowledge base: "}



def closest_titles(sources: Sequence[Source]) -> list[str]:
    """Titles of the top sources on a topic the question names (``scores["topic"]``), each once, best first."""
    titles: list[str] = []
    for source in sources:
        if source.scores.get("topic", 0.0) <= 0:
            continue
        title = plain_title(source.title)
        if title and title not in titles:
            titles.append(title)
        if len(titles) >= CLOSEST_TITLES:
            break
    return titles


def not_found_answer(refusal: str, lang: str, sources: Sequence[Source]) -> str:
    """The not-found text, then (when there is any) a line naming the closest material."""
    titles = closest_titles(sources)
    if not titles:
        return refusal
    lang = "zh" if lang.startswith("zh") else "en"
    joined = "；".join(titles) + "。" if lang == "zh" else "; ".join(titles) + "."
    return f"{refusal}\n{CLOSEST_LEAD[lang]}{joined}"
