"""The order a unit's quotes are read in (``rag.answer.quotes``)."""

from __future__ import annotations

from unitrag.rag.answer.quotes import Quote, in_reading_order
from unitrag.rag.answer.spans import spans
from unitrag.rag.types import Source


def test_a_sentence_that_points_back_follows_the_one_it_points_to_whatever_else_is_quoted() -> None:
    """A park's answer quoted the kiosk "outside those hours" first, the pass prices of another section, then the hours."""
    hours, kiosk = spans("The gates are staffed from 7:00 to 19:00. Outside those hours, pay at the kiosk.")
    (price,) = spans("A 7-day pass costs $35.")
    unit = Source("a-gates", "u1", "document", "Fees", "", [], ["c"], "public", "en")
    prices = Source("a-fees", "u1", "document", "Fees", "", [], ["c"], "public", "en")  # the same unit's other chunk
    quoted = [Quote(kiosk, unit, 0, 2.0, 2.0), Quote(price, prices, 0, 1.5, 1.5), Quote(hours, unit, 0, 1.0, 1.0)]
    order = [q.span.words for q in in_reading_order(quoted)]
    assert order.index(kiosk.words) == order.index(hours.words) + 1
