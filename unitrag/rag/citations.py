"""The faithfulness check: an answer may only cite what its sources cite.

The LLM is told to cite with ``<Cite id="..."/>`` using ids from the sources it was
given; the whitelist is the union of those sources' citation ids. An id outside it
is invented or borrowed and is reported, never shown as a reference. A long answer
with no citation at all is flagged too: it is most likely the model's own knowledge.
Models write the tag loosely (quotes, case, spacing), so the parser is lenient
where the content validator is strict.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .types import FaithfulnessReport

#: An answer is long (and must cite) above this many English words...
LONG_ANSWER_WORDS = 60
#: ...or this many CJK characters; a mixed answer is long when the two shares add up past 1.
LONG_ANSWER_CJK_CHARS = 120

CITE_TAG = re.compile(
    r"""<\s*cite\s+id\s*=\s*(?P<q>["'])(?P<id>[^"'<>]*)(?P=q)\s*(?:/\s*>|>(?:\s*<\s*/\s*cite\s*>)?)""",
    re.IGNORECASE,
)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[A-Za-z0-9\u00c0-\u024f]+(?:['’\-][A-Za-z0-9\u00c0-\u024f]+)*")


def _ids(answer: str) -> list[str]:
    """Every cited id, one per tag, in order (duplicates kept: the score counts tags)."""
    return [m.group("id").strip() for m in CITE_TAG.finditer(answer)]


def _unique(ids: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def cited_ids(answer: str) -> list[str]:
    """The ids an answer cites, each once, in order of first appearance."""
    return _unique(_ids(answer))


def is_long(answer: str) -> bool:
    """True when an answer says too much to go uncited (tags do not count towards its length)."""
    text = CITE_TAG.sub(" ", answer)
    cjk = len(_CJK.findall(text))
    words = len(_WORD.findall(_CJK.sub(" ", text)))
    return cjk / LONG_ANSWER_CJK_CHARS + words / LONG_ANSWER_WORDS > 1


def check_citations(answer: str, whitelist: Iterable[str]) -> FaithfulnessReport:
    """Which citations are allowed, which are not, and the share of allowed citation tags.

    With no citation at all the score is 1.0 for a short answer (nothing was claimed
    from a source) and 0.0 for a long one, which is also flagged ``uncited_long_answer``.
    """
    allowed = set(whitelist)
    ids = _ids(answer)
    if not ids:
        long = is_long(answer)
        return FaithfulnessReport(valid_ids=[], invalid_ids=[], score=0.0 if long else 1.0, uncited_long_answer=long)
    valid = [i for i in ids if i in allowed]
    return FaithfulnessReport(
        valid_ids=_unique(valid),
        invalid_ids=_unique(i for i in ids if i not in allowed),
        score=len(valid) / len(ids),
        uncited_long_answer=False,
    )


def strip_citations(answer: str, ids: Iterable[str] | None = None) -> str:
    """The answer without the tags of ``ids`` (all tags when None), and without the space before them."""
    drop = None if ids is None else set(ids)

    def replace(m: re.Match[str]) -> str:
        return "" if drop is None or m.group("id").strip() in drop else m.group(0)

    return re.sub(r"[ \t\u3000]*" + CITE_TAG.pattern, replace, answer, flags=re.IGNORECASE)
