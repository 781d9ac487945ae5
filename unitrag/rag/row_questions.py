"""A question one table row answers by itself is answered from it, whatever the answerability gate says.

The gate reads how near the question comes to the sources; a short question about one row of a table comes near
nothing. A new team's EV charging help refused "E-204 on screen??" and "E-620 mean?" with its error-code table
ranked first (the gate's input 0.87 against 0.899), a ski resort's "what time does pine quad close" and "when does
the eagle express open" with its lift-hours table first. Two readings say a row answers, and each is narrow:

* **a code**: an identifier of letters and digits (an error code, a model, a bay: E-204, P3, CCS2) that a row's label
  has. Said in prose it proves less ("What is a normal free T4 level?" of a thyroid unit naming T4 but no range),
  and a code no row has ("E-999") leaves the question to the gate;
* **a name and every word**: a term of the question that one row's label says and no other row's label does (Pine
  Quad), and every other term of the question said by that row, its table's lead-in or its column names ("close":
  "closes"). "is there wifi on the gondola" names the gondola's row and asks what it does not say: the gate decides.

Words that only say the question's form (what time, how much) need not be said. Measured on every dev and test set
of the sample, the examples and three new teams' (docs/benchmarks/quality.md, stop 56): no unanswerable question of
any set was read as answered.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..content.text.tokenize import tokenize
from .answer.spans import ROW_LABEL_END, Span, spans
from .types import Source

#: A run of Latin letters and digits (hyphens between) holding both: E-204, P3, CCS2, B12; ASCII-bounded, so that
#: "屏幕显示E-204是什么意思" finds it between Chinese characters.
_CODE = re.compile(r"(?<![A-Za-z0-9-])(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*"
                   r"(?![A-Za-z0-9-])")
#: Terms that say what kind of answer is asked for, not what it is about (stemmed, as ``tokenize`` gives them).
FORM_TERMS = frozenset({"time", "much", "mani", "cost", "price", "long", "often"})
#: How many of the final sources are read for a row that answers.
SOURCES_READ = 3


def codes_in(text: str) -> set[str]:
    """The identifiers ``text`` says, folded (case and hyphens: "e204" is "E-204")."""
    return {m.group(0).casefold().replace("-", "") for m in _CODE.finditer(text) if len(m.group(0)) >= 2}


def _label(span: Span) -> str:
    return span.words.split(ROW_LABEL_END, 1)[0]


def _answers(question: str, asked: set[str], codes: set[str], rows: list[Span]) -> bool:
    labels = [set(tokenize(_label(row))) for row in rows]
    for i, row in enumerate(rows):
        if codes & codes_in(_label(row)):
            return True
        naming = {t for t in asked & labels[i] if not any(t in other for j, other in enumerate(labels) if j != i)}
        if naming and asked <= set(tokenize(row.words)) | set(tokenize(row.context)):
            return True
    return False


def names_a_row(question: str, sources: Sequence[Source]) -> bool:
    """Whether a table row of one of the first sources answers ``question`` by itself (its code, or its name and
    every word of the question)."""
    asked = set(tokenize(question)) - FORM_TERMS
    codes = codes_in(question)
    if not asked and not codes:
        return False
    for source in sources[:SOURCES_READ]:
        rows = [span for span in spans(source.text, source.title) if span.kind == "row"]
        tables: dict[str, list[Span]] = {}
        for row in rows:
            tables.setdefault(row.context, []).append(row)
        if any(_answers(question, asked, codes, table) for table in tables.values()):
            return True
    return False
