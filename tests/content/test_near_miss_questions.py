"""Near-miss unanswerable questions: inside the covered topics, answered by no unit, in dev and test."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from unitrag.content.labelled_question import LabelledQuestion
from unitrag.content.validate import validate_content
from unitrag.eval.questions import category

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"


def test_a_near_miss_question_carries_its_own_category():
    q = LabelledQuestion(id="nm", question="How much magnesium do adults need?", lang="en",
                         unanswerable=True, category="unanswerable_near_miss")
    assert category(q, {}) == "unanswerable_near_miss"


def test_an_unknown_category_is_refused():
    with pytest.raises(ValueError):
        LabelledQuestion(id="nm", question="?", lang="en", unanswerable=True, category="near_miss")


@pytest.fixture(scope="module")
def near_miss() -> dict[str, list[LabelledQuestion]]:
    """The sample's near-miss questions by set (``dev``: eval/questions.yaml, ``test``: eval/questions_test.yaml)."""
    content = validate_content(REPO_CONTENT)
    assert content.problems == []
    sets = {"dev": ("questions.yaml", "nm-dev-"), "test": ("questions_test.yaml", "nm-test-")}
    return {name: [lq.question for lq in content.questions
                   if Path(lq.path).name == file and lq.question.id.startswith(prefix)]
            for name, (file, prefix) in sets.items()}


@pytest.mark.parametrize("name", ["dev", "test"])
def test_each_set_has_near_miss_questions_in_both_languages(near_miss, name):
    questions = near_miss[name]
    langs = Counter(q.lang for q in questions)
    assert len(questions) >= 20 and abs(langs["en"] - langs["zh"]) <= 2, langs
    assert all(q.unanswerable for q in questions)


def test_only_the_test_set_labels_its_category(near_miss):
    assert {q.category for q in near_miss["dev"]} == {None}  # calibration refuses questions with a category
    assert {q.category for q in near_miss["test"]} == {"unanswerable_near_miss"}


def test_dev_and_test_ask_different_questions(near_miss):
    dev, test = ({q.question for q in near_miss[name]} for name in ("dev", "test"))
    assert not dev & test


def test_no_unit_lists_a_near_miss_question_as_its_own(near_miss):
    content = validate_content(REPO_CONTENT)
    own = {text for lu in content.units for text in lu.unit.question_texts}
    asked = {q.question for name in ("dev", "test") for q in near_miss[name]}
    assert not own & asked
