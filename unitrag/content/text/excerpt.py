"""A text as a message quotes it: cut to a length, with an ellipsis where it was cut.

Every message that names what was written (a malformed citation tag, a guard pattern, an instruction-like line, an
answer beside a failing fact, a query parameter) quotes it: a 100 kB value must not come back whole, and a reader
must see that it was cut. Each caller keeps its own limit; the cut is one.
"""

from __future__ import annotations


def excerpt(text: str, limit: int) -> str:
    """``text`` if at most ``limit`` characters, else its first ``limit - 1`` (trailing spaces dropped) and "…"."""
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"
