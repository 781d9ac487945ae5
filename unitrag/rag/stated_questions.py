"""A question one span of a source states whole is answered from it, whatever the answerability gate says.

The gate reads how near the question comes to the sources, and a short question about one row or one sentence
comes near nothing. A new team's EV charging help refused "E-204 on screen??", "E-620 mean?" and "harbour market
garage height limit" with the answering unit ranked first (the gate's input 0.87 against 0.899), a ski resort's
"what time does pine quad close" and "when does the eagle express open" with its lift-hours table first. Two
readings say a span answers, and each is narrow:

* **a code**: an identifier of letters and digits (an error code, a model, a bay: E-204, P3, CCS2) that a table
  row's label has. Said in prose it proves less ("What is a normal free T4 level?" of a thyroid unit naming T4 but
  no range), and a code no row has ("E-999") leaves the question to the gate;
* **every word**: one span (a sentence, an item, a row with its column names) that, with what it sits under, says
  every term of the question, two at least ("close": "closes"). "is there wifi on the gondola" names the gondola's
  row and asks what no span says: the gate decides.

Words that only say the question's form (what time, how much) need not be said. Over the 1,924 dev and test
questions of the sample, the four examples and five new teams' (a quarter unanswerable; docs/benchmarks/quality.md,
stop 56; benchmarks/quality/stated_questions.py) the rule holds for 33, all answerable, 7 of them refused by the gate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..content.text.tokenize import tokenize
from .answer.spans import Span, spans
from .types import Source

#: A run of Latin letters and digits (hyphens between) holding both: E-204, P3, CCS2, B12; ASCII-bounded, so that
#: "屏幕显示E-204是什么意思" finds it between Chinese characters.
_CODE = re.compile(r"(?<![A-Za-z0-9-])(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*"
                   r"(?![A-Za-z0-9-])")
#: Terms that say what kind of answer is asked for, not what it is about (stemmed, as ``tokenize`` gives them).
FORM_TERMS = frozenset({"time", "much", "mani", "cost", "price", "long", "often"})
#: A question of fewer terms says too little for one span holding them all to answer it.
MIN_TERMS = 2
#: How many of the final sources are read for a span that states the question.
SOURCES_READ = 3


def codes_in(text: str) -> set[str]:
    """The identifiers ``text`` says, folded (case and hyphens: "e204" is "E-204")."""
    return {m.group(0).casefold().replace("-", "") for m in _CODE.finditer(text) if len(m.group(0)) >= 2}


def _states(span: Span, asked: set[str], codes: set[str]) -> bool:
    if span.kind == "row" and codes & codes_in(span.label):
        return True
    return len(asked) >= MIN_TERMS and asked <= set(tokenize(span.words)) | set(tokenize(span.context))


def states_the_question(question: str, sources: Sequence[Source]) -> bool:
    """Whether one span of the first sources answers ``question`` by itself: a row labelled with its code, or a span
    saying every word of it."""
    asked = set(tokenize(question)) - FORM_TERMS
    codes = codes_in(question)
    if len(asked) < MIN_TERMS and not codes:
        return False
    return any(_states(span, asked, codes) for source in sources[:SOURCES_READ] for span in spans(source.text, source.title))
