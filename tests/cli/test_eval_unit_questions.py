"""`unitrag eval --unit-questions` end to end on a new knowledge base (`unitrag init`, the real default embedder):
a unit question with facts passes while its unit states them, and fails the gate once an edit drops them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from unitrag.scaffold import init_knowledge_base

pytestmark = pytest.mark.e2e

SCENE = Path("content/scenes/en-writing-units/01-unit-size.md")
STATED = "rarely more than a thousand words"
DROPPED = "rarely longer than it needs to be"


def _unitrag(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "UNITRAG_LLM": "none"}
    return subprocess.run([sys.executable, "-m", "unitrag", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_unit_question_fails_its_content_test_once_the_unit_drops_its_facts(tmp_path: Path):
    kb = tmp_path / "kb"
    init_knowledge_base(kb)  # the starter scene's first question carries its facts: a content test from day one
    assert _unitrag(kb, "build").returncode == 0

    passing = _unitrag(kb, "eval", "--unit-questions", "--min-answer-facts", "1", "--json")
    assert passing.returncode == 0, passing.stderr
    report = json.loads(passing.stdout)
    assert report["failures"] == [] and report["modes"]["extractive"]["passed"] == 1
    (asked,) = report["questions"]
    assert asked["unit"] == "en-writing-units-size" and asked["found"] and asked["line"] == 11

    _edit(kb / SCENE, STATED, DROPPED)  # the body no longer says how long
    built = _unitrag(kb, "build")
    assert built.returncode == 0, built.stderr
    failing = _unitrag(kb, "eval", "--unit-questions", "--min-answer-facts", "1")
    assert failing.returncode == 1
    assert (f"{SCENE}:11: question 'How many words should one unit have?' — missing facts: "
            '"a thousand words" / "1,000 words" (the answer: "') in failing.stdout
    assert DROPPED in failing.stdout  # what the answer said instead, on the failing line
    assert "gate failed" in failing.stderr and "0/1 pass their content test" in failing.stderr
    assert _unitrag(kb, "eval", "--unit-questions").returncode == 0  # reported, not gated, without a threshold


def test_unit_questions_refuse_options_of_the_other_evaluations(tmp_path: Path):
    result = _unitrag(tmp_path, "eval", "--unit-questions", "--min-ndcg", "0.5", "--variants", "full")
    assert result.returncode == 1
    assert "--variants, --min-ndcg do not apply" in result.stderr and "Traceback" not in result.stderr


def test_a_unit_question_the_guard_should_stop_passes_when_it_is_stopped_and_fails_when_not(tmp_path: Path):
    """An IT help desk's scene on what to do after clicking a phishing link had that question as its own: the red flag
    stops it, so its content test could only fail and the pull-request check stayed red. `guard: red_flag` says so."""
    kb = tmp_path / "kb"
    init_knowledge_base(kb)
    _edit(kb / SCENE, '  - "Should I split a long page into several units?"\n',
          '  - "Should I split a long page into several units?"\n'
          '  - q: "I just pushed our production password to the public repo"\n    guard: red_flag\n'
          '  - q: "Should a unit have a title?"\n    guard: red_flag\n')
    assert _unitrag(kb, "build").returncode == 0
    run = _unitrag(kb, "eval", "--unit-questions", "--min-answer-facts", "1", "--json")
    report = json.loads(run.stdout)
    by_question = {q["question"]: q for q in report["questions"]}
    assert by_question["I just pushed our production password to the public repo"]["found"]  # stopped as expected
    assert report["failures"] == [f"{SCENE}:16: question 'Should a unit have a title?' — the guard should stop it as "
                                  "red_flag; it was answered: give the rule an example in these words, or a pattern"]
    assert run.returncode == 1 and report["modes"]["extractive"]["passed"] == 2
