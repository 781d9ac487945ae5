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

A second set (``domains.yaml``: 60 domains, health-adjacent everyday ones included: sleep,
a sore back from sitting, gums that bleed when brushing, a teenager who stopped talking) is
fitted as a class of its own (``compiler.guard_fit``), so it adds what the first lacks
without thinning the first's weight in the class-balanced loss. A third (``symptoms.yaml``: 60 situations
where a symptom, a pet's illness, a past hospital stay or a hard week is told with nothing happening now) is
fitted the same way. Alone it cost red flags; with more indirect examples per rule it stopped fewer ordinary questions
and more emergencies on every held-out set (docs/benchmarks/guard.md, stop 42).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import yaml

from ..languages import LANGS

#: The bundled sets, beside this module: the everyday questions, the 60 domains', the 60 symptom situations'.
BACKGROUND_FILES = {"everyday": "everyday.yaml", "domains": "domains.yaml", "symptoms": "symptoms.yaml"}


@lru_cache(maxsize=1)
def background_sets() -> dict[str, tuple[tuple[str, str], ...]]:
    """Per bundled set (its name), (language, text) of every question, in file order."""
    return {name: _read(file) for name, file in BACKGROUND_FILES.items()}


def everyday_questions() -> tuple[tuple[str, str], ...]:
    """(language, text) of every bundled background question, every set, in order."""
    return tuple(item for questions in background_sets().values() for item in questions)


def _read(file: str) -> tuple[tuple[str, str], ...]:
    text = resources.files(__package__).joinpath("background", file).read_text(encoding="utf-8")
    items = yaml.safe_load(text) or []
    found = []
    for i, item in enumerate(items):
        if not (isinstance(item, dict) and item.get("lang") in LANGS and isinstance(item.get("text"), str)):
            raise ValueError(f"unitrag/content/background/{file}: item {i} needs lang (en|zh) and text")
        found.append((item["lang"], item["text"].strip()))
    return tuple(found)
