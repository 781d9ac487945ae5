"""The starter content ``unitrag init`` writes: example units marked ``starter: true``, to replace.

The first labelled question of the template is one they answer: ``init`` suggests asking it, so the
suggestion can never name a subject the starter units do not cover.
"""

from __future__ import annotations

from pathlib import Path

import yaml

STARTER_QUESTIONS = Path(__file__).parent / "template" / "content" / "eval" / "questions.yaml"


def starter_question() -> str:
    """The first answerable question of the template's labelled questions."""
    entries = yaml.safe_load(STARTER_QUESTIONS.read_text(encoding="utf-8"))
    return next(entry["question"] for entry in entries if entry.get("expected_units"))
