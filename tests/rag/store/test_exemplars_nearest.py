"""The knowledge base's own answerable questions nearest a question: the words the extractive answer borrows."""

from __future__ import annotations

import numpy as np

from unitrag.rag.store.exemplars import Exemplars


def exemplars() -> Exemplars:
    vectors = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [0.96, 0.28]], dtype=np.float32)
    found = Exemplars.of(["unit_question", "answerable", "unanswerable", "clinician_question"],
                         ["how much salt a day", "salt limit for adults", "salt in tears", "IV iron dose"], vectors)
    assert found is not None
    return found


def test_the_nearest_answerable_questions_above_the_cosine_come_best_first() -> None:
    assert list(exemplars().nearest_answered(np.array([1.0, 0.0]), 3, 0.7)) == ["how much salt a day", "salt limit for adults"]
    assert list(exemplars().nearest_answered(np.array([1.0, 0.0]), 1, 0.7)) == ["how much salt a day"]
    cosines = exemplars().nearest_answered(np.array([1.0, 0.0]), 3, 0.7)
    assert abs(cosines["salt limit for adults"] - 0.8) < 1e-6, "each comes with its cosine: how near the question it is"


def test_unanswerable_and_clinician_only_questions_are_never_borrowed_by_the_public() -> None:
    assert "salt in tears" not in exemplars().nearest_answered(np.array([0.0, 1.0]), 3, 0.0)
    assert "IV iron dose" not in exemplars().nearest_answered(np.array([1.0, 0.0]), 4, 0.0)
    assert "IV iron dose" in exemplars().nearest_answered(np.array([1.0, 0.0]), 4, 0.0, restricted=True)


def test_the_other_languages_questions_count_on_their_own_scale() -> None:
    """An author's translation of the nearest question sits ~0.09 lower (multilingual-e5 scores across languages
    lower): with the cross-language correction it is near again, one per language is kept, and a labelled dev
    question in the other language is never taken for a translation."""
    vectors = np.array([[1.0, 0.0], [0.9, 0.436], [0.88, 0.475], [0.89, 0.456], [0.0, 1.0]], dtype=np.float32)
    found = Exemplars.of(["unit_question", "unit_question", "unit_question", "answerable", "unanswerable"],
                         ["How high should my saddle be?", "saddle height for an 80 cm inseam?", "座垫调多高合适？",
                          "膝盖疼是不是座垫太高了？", "how do I patch a tube?"], vectors)
    assert found is not None
    assert list(found.nearest_answered(np.array([1.0, 0.0]), 1, 0.9)) == ["How high should my saddle be?"]
    lifted = found.nearest_answered(np.array([1.0, 0.0]), 1, 0.9, lang="en", offsets={"en": 0.0, "zh": 0.09})
    assert list(lifted) == ["How high should my saddle be?", "座垫调多高合适？"]  # one per language, best first
    assert abs(lifted["座垫调多高合适？"] - 0.97) < 1e-6
    assert "膝盖疼是不是座垫太高了？" not in found.nearest_answered(np.array([1.0, 0.0]), 3, 0.9, lang="en",
                                                                   offsets={"zh": 0.09})  # a dev question: near only
