"""A question one span of a source states whole is answered from it, where the default gate alone refuses it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from unitrag.config import load_config
from unitrag.rag.knowledge_base import KnowledgeBase

pytestmark = pytest.mark.e2e

CODES = """---
kind: document
id: en-error-codes
title: "What the error codes on the charger screen mean"
lang: en
topics: [TOPIC]
source: "Charger help desk, 2026"
citationIds: [unitrag-readme]
---
When the ring light flashes red, the screen shows a code <Cite id="unitrag-readme"/>:

| code | what it means | what to do |
| --- | --- | --- |
| E-101 | cable not locked | push the plug in fully until it clicks, then start again |
| E-204 | payment declined | check the card or top up the app wallet, or pay another way |
| E-507 | ground fault | do not retry: use another charger and call the hotline |
| E-620 | charger offline | the charger cannot start a session: use another charger |
"""


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    root = tmp_path_factory.mktemp("codes")
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    subprocess.run([sys.executable, "-m", "unitrag", "init", "kb", "--name", "Charger help", "--description",
                    "Driver help for public EV chargers.", "--languages", "en"], cwd=root, check=True, env=env,
                   capture_output=True)
    content = root / "kb" / "content"
    topic = yaml.safe_load((content / "topics.yaml").read_text(encoding="utf-8"))["topics"][0]["id"]
    (content / "documents" / "en-error-codes.md").write_text(CODES.replace("TOPIC", topic), encoding="utf-8")
    build = subprocess.run([sys.executable, "-m", "unitrag", "build"], cwd=root / "kb", env=env, capture_output=True,
                           text=True)
    assert build.returncode == 0, build.stderr
    previous = Path.cwd()
    os.chdir(root / "kb")
    try:
        config = load_config()
    finally:
        os.chdir(previous)
    return KnowledgeBase.open(root / "kb" / config.artifact, config=config)


def test_a_code_a_row_is_labelled_with_is_answered_from_that_row_though_the_gate_refuses(kb: KnowledgeBase) -> None:
    question = "E-204 on screen??"
    sources = kb.search(question).sources
    assert sources and sources[0].unit_id == "en-error-codes"
    assert not kb.retriever.answerable(sources)  # the gate alone: a three-word question is near nothing
    answer = kb.ask(question)
    assert not answer.not_found and "payment declined" in answer.answer.split("\n")[1]
    assert answer.gate is not None and answer.gate["p_answerable"] < 0.5  # what the gate said, and why it was overruled
    assert answer.gate["answered_anyway"] == "one span states the question whole"


def test_a_code_no_row_has_is_left_to_the_gate(kb: KnowledgeBase) -> None:
    question = "E-999 on screen??"
    sources = kb.search(question).sources
    assert kb.ask(question).not_found == (not kb.retriever.answerable(sources))
