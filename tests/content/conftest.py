"""A minimal valid content tree, built in tmp_path, and a helper to add files to it.

Tests chdir into tmp_path so problems show paths like ``content/stories/s.md``.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

TOPICS = """\
topics:
  - id: vitamin-b12
    names: {en: "Vitamin B12", zh: "维生素B12"}
    synonyms: {en: ["cobalamin"], zh: ["钴胺素"]}
  - id: folate
    names: {en: "Folate", zh: "叶酸"}
groups:
  - id: b-vitamins
    names: {en: "B vitamins", zh: "维生素B族"}
    members: [vitamin-b12, folate]
"""

CITATIONS = """\
- id: cit-a
  title: "Fact sheet A"
  authors: ["Someone"]
  year: 2024
  url: "https://example.org/a"
- id: cit-b
  title: "Paper B"
  year: 2020
"""

GUARD = """\
- id: red-flag-chest-pain
  type: red_flag
  patterns:
    en: ['chest pain']
    zh: ['胸痛']
  response:
    en: "Call your local emergency number now."
    zh: "请立即拨打120。"
"""

STORY = """\
---
kind: story
id: story-one
title: "Story one"
lang: en
topics: [vitamin-b12]
summary: "A short summary."
citationIds: [cit-a]
---
An introduction <Cite id="cit-a"/>.
"""

SCENE = """\
---
kind: scene
id: scene-one
title: "Scene one"
story: story-one
order: 1
topics: [vitamin-b12]
citationIds: [cit-a, cit-b]
---
Scene text <Cite id="cit-a"/> and more <Cite id="cit-b"/>.
"""

RULE = """\
---
kind: rule
id: rule-one
title: "Low B12"
lang: en
topics: [vitamin-b12]
severity: warning
trigger:
  marker: serum_b12
  comparison: "<"
  threshold: 200
  unit: pg/mL
citationIds: [cit-a]
---
Your B12 is low <Cite id="cit-a"/>.
"""

DOCUMENT = """\
---
kind: document
id: doc-one
title: "A document"
lang: zh
topics: [b-vitamins]
source: "Somewhere"
citationIds: []
---
# Heading

Plain text.
"""

VALID_TREE = {
    "topics.yaml": TOPICS,
    "citations/a.yaml": CITATIONS,
    "guard.yaml": GUARD,
    "stories/story-one.md": STORY,
    "scenes/story-one/01-scene-one.md": SCENE,
    "rules/rule-one.md": RULE,
    "documents/doc-one.md": DOCUMENT,
}


class Tree:
    """A content folder under tmp_path; ``write`` adds or replaces a file."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, rel: str, text: str | bytes, dedent: bool = False) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text) if dedent else text, encoding="utf-8")
        return path

    def remove(self, rel: str) -> None:
        (self.root / rel).unlink()

    def shown(self, rel: str) -> str:
        """The path as problems show it (cwd is tmp_path)."""
        return f"content/{rel}"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Tree:
    monkeypatch.chdir(tmp_path)
    t = Tree(tmp_path / "content")
    for rel, text in VALID_TREE.items():
        t.write(rel, text)
    return t


@pytest.fixture
def samples() -> SimpleNamespace:
    """The texts of the valid tree (test modules cannot import conftest under importlib mode)."""
    return SimpleNamespace(
        TOPICS=TOPICS, CITATIONS=CITATIONS, GUARD=GUARD, STORY=STORY, SCENE=SCENE, RULE=RULE, DOCUMENT=DOCUMENT
    )
