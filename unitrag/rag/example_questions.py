"""Example questions of a knowledge base: its authors' own questions (``questions:`` in a unit's frontmatter).

The page shows them as chips and placeholders, and a greeting's reply names a few (``answer.small_talk``), so a
new knowledge base shows its own domain from its first build, never the sample's. Only units the caller may read
give one: a restricted unit's question would tell an anonymous caller what the restricted content covers.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

#: Example questions per language: enough for a few chips and a placeholder, one per unit, spread over the units.
EXAMPLES_PER_LANG = 6


def example_questions(store: Any, known: Any, roles: Collection[str],
                      per_lang: int = EXAMPLES_PER_LANG) -> list[dict[str, str]]:
    """Up to ``per_lang`` questions in each language: each unit's first question (by text), from units spread
    evenly over the ids (different stories and topics rather than one story's first scenes). ``store`` is the
    knowledge base's chunk store (its ``unit_questions``), ``known`` its ``KnownIds``."""
    firsts: dict[str, dict[str, str]] = {}  # language → unit id → its question
    for row in sorted(store.unit_questions, key=lambda r: (r["unit_id"], r["text"])):  # the same on every backend
        unit_id = row["unit_id"]
        if (row["role"] == "unit_question" or roles) and known.visible(unit_id, roles):
            firsts.setdefault(row["lang"], {}).setdefault(unit_id, row["text"])
    examples = []
    for lang, questions in sorted(firsts.items()):
        units = sorted(questions)
        step = len(units) / min(per_lang, len(units))
        examples += [{"text": questions[units[int(i * step)]], "lang": lang, "unit_id": units[int(i * step)]}
                     for i in range(min(per_lang, len(units)))]
    return examples
