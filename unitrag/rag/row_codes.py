"""A question that names a table row by its code ("E-204 on screen??") is answered by that row, whatever the gate says.

An error code, a model, a route or a bay is an identifier of letters and digits. When a row of a table in one of
the question's sources has it in its label (the row's first cell: ``| E-204 | payment declined | … |``), the
question asks what that row says, and the row says it. The answerability gate cannot see that: a new team's EV
charging help refused "E-204 on screen??" and "E-620 mean?" with its error-code table ranked first (the gate's
input 0.87 against 0.899; a three-word question is near nothing). An identifier said in prose proves less ("What
is a normal free T4 level?" of a thyroid unit that names T4 but gives no range), so only a row's label counts,
and a code no row has ("E-999") leaves the question to the gate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .answer.spans import ROW_LABEL_END, spans
from .types import Source

#: A run of Latin letters and digits (hyphens between) holding both: E-204, P3, CCS2, B12; ASCII-bounded, so that
#: "屏幕显示E-204是什么意思" finds it between Chinese characters.
_CODE = re.compile(r"(?<![A-Za-z0-9-])(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*"
                   r"(?![A-Za-z0-9-])")
#: How many of the final sources are read for a row the question names.
SOURCES_READ = 3


def codes_in(text: str) -> set[str]:
    """The identifiers ``text`` says, folded (case and hyphens: "e204" is "E-204")."""
    return {_folded(m.group(0)) for m in _CODE.finditer(text) if len(m.group(0)) >= 2}


def _folded(code: str) -> str:
    return code.casefold().replace("-", "")


def names_a_row(question: str, sources: Sequence[Source]) -> bool:
    """Whether a code of ``question`` is the label, or in the label, of a table row of one of the first sources."""
    asked = codes_in(question)
    if not asked:
        return False
    for source in sources[:SOURCES_READ]:
        if not any(ch.isdigit() for ch in source.text):
            continue
        for span in spans(source.text, source.title):
            if span.kind == "row" and asked & codes_in(span.words.split(ROW_LABEL_END, 1)[0]):
                return True
    return False
