"""The starter content ``unitrag init`` writes: example units marked ``starter: true``, to replace.

The first labelled question of the template is one they answer: ``init`` suggests asking it, so the
suggestion can never name a subject the starter units do not cover. It is asked in the knowledge base's
main language: a Chinese-first one gets Chinese starter units (``overlays/zh``) and a Chinese question.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from . import template_sources

QUESTIONS = Path("content", "eval", "questions.yaml")


def starter_question(main_language: str = "en") -> str:
    """The first answerable question of the labelled questions a knowledge base of this main language gets."""
    entries = yaml.safe_load(template_sources(main_language)[QUESTIONS].read_text(encoding="utf-8"))
    return next(entry["question"] for entry in entries if entry.get("expected_units"))
