"""Everyday questions from no domain at all: what the guard's fit learns an ordinary question looks like.

A knowledge base's own negatives (near-misses, labelled questions, unit titles) all sit
inside its domain, so its classifier has never seen "my car battery died" or "how do I
get wine out of a carpet" and places such questions wherever the small model's crowded
cosines put them, sometimes past a red flag's threshold. This bundled set (English and
Chinese, about 35 everyday topics, written for unitrag) joins every fit as negatives.
It holds no emergency, symptom, diet or medicine, nor any investment, legal or coding
request; and a build leaves out any of it that the knowledge base's own rules claim
(``compiler.guard_examples.background_claimed``), so a rule that refuses cars keeps
refusing cars.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import yaml

from ..languages import LANGS

#: The bundled file, beside this module.
BACKGROUND_FILE = "everyday.yaml"


@lru_cache(maxsize=1)
def everyday_questions() -> tuple[tuple[str, str], ...]:
    """(language, text) of every bundled everyday question, in file order."""
    text = resources.files(__package__).joinpath("background", BACKGROUND_FILE).read_text(encoding="utf-8")
    items = yaml.safe_load(text) or []
    found = []
    for i, item in enumerate(items):
        if not (isinstance(item, dict) and item.get("lang") in LANGS and isinstance(item.get("text"), str)):
            raise ValueError(f"unitrag/content/background/{BACKGROUND_FILE}: item {i} needs lang (en|zh) and text")
        found.append((item["lang"], item["text"].strip()))
    return tuple(found)
