"""Answerability exemplars: the best cosine to an answerable question minus the best to an unanswerable one."""

from __future__ import annotations

import numpy as np
import pytest

from unitrag.rag.store.exemplars import Exemplars


def _row(role: str, text: str, vector: list[float]) -> dict:
    v = np.asarray(vector, dtype=np.float32)
    return {"role": role, "text": text, "embedding": (v / np.linalg.norm(v)).tolist()}


ROWS = [
    _row("answerable", "iron foods?", [1, 0, 0]),
    _row("clinician_question", "IV iron dose?", [0, 1, 0]),
    _row("unanswerable", "zinc for colds?", [0, 0, 1]),
    _row("example", "chest pain", [1, 1, 0]),  # the guard's: not an exemplar
    _row("title", "Iron", [1, 0, 1]),
]


def _near(vector: list[float], cosine: float = 0.99) -> np.ndarray:
    """A unit vector at ``cosine`` to ``vector`` (the first or third axis), the rest toward the restricted exemplar's
    (which a public caller does not count): another question in nearly the same words."""
    v = np.asarray(vector, dtype=np.float32) * cosine
    v[1] = np.sqrt(1 - cosine ** 2)
    return v


def test_the_score_is_the_answerable_margin_over_the_unanswerable():
    exemplars = Exemplars.from_rows(ROWS)
    assert exemplars is not None and exemplars.texts == ("iron foods?", "IV iron dose?", "zinc for colds?")
    assert exemplars.score(_near([1, 0, 0])) == pytest.approx(0.99)
    assert exemplars.score(_near([0, 0, 1])) == pytest.approx(-0.99)
    between = np.array([0.8, 0, 0.6], np.float32)
    assert exemplars.score(between) == pytest.approx(0.8 - 0.6)


def test_a_labelled_question_asked_word_for_word_is_no_exemplar_of_itself():
    """At query time as in evaluation: ``ask`` answered a dev question with itself as its nearest neighbour, and
    ``eval`` (which leaves the set out) scored another answer."""
    exemplars = Exemplars.from_rows(ROWS)
    iron, zinc = np.array([1, 0, 0], np.float32), np.array([0, 0, 1], np.float32)
    assert exemplars.score(iron) == pytest.approx(-1.0 - 0.0)  # "iron foods?" itself: not its own answerable neighbour
    assert exemplars.score(zinc) == pytest.approx(0.0 - -1.0)  # nor "zinc for colds?" its own unanswerable one
    assert "iron foods?" not in exemplars.nearest_answered(iron, 3, 0.0)
    assert "iron foods?" in exemplars.nearest_answered(_near([1, 0, 0]), 3, 0.0)
    # an author's question of a unit still counts word for word (``AUTHORED_ANSWERS``)
    assert exemplars.score(np.array([0, 1, 0], np.float32), restricted=True) == pytest.approx(1.0)


def test_a_clinician_only_exemplar_counts_for_clinicians_only():
    exemplars = Exemplars.from_rows(ROWS)
    iv = np.array([0, 1, 0], np.float32)
    assert exemplars.score(iv, restricted=True) == pytest.approx(1.0)
    assert exemplars.score(iv, restricted=False) == pytest.approx(0.0)  # its public neighbour is no nearer than the other


def test_without_one_kind_there_is_no_feature():
    # a new knowledge base has its units' questions and no unanswerable ones yet: exemplars, but no margin
    answered_only = Exemplars.from_rows([r for r in ROWS if r["role"] != "unanswerable"])
    assert answered_only is not None and answered_only.score(np.array([1, 0, 0], np.float32)) is None
    assert Exemplars.from_rows([r for r in ROWS if r["role"] in ("unanswerable", "title")]) is None
    assert Exemplars.from_rows([]) is None
    only_clinician = Exemplars.from_rows([ROWS[1], ROWS[2]])
    assert only_clinician is not None and only_clinician.score(np.array([0, 1, 0], np.float32)) is None


def test_a_set_scored_without_its_own_questions():
    exemplars = Exemplars.from_rows(ROWS)
    assert exemplars.without(["not one of them"]) is exemplars
    rest = exemplars.without(["iron foods?"])
    assert rest is not None and rest.texts == ("IV iron dose?", "zinc for colds?")
    assert rest.score(np.array([1, 0, 0], np.float32), restricted=True) == pytest.approx(0.0)  # no longer its own neighbour
    assert rest.score(np.array([1, 0, 0], np.float32)) is None  # and no public answerable exemplar is left
    assert exemplars.without(["zinc for colds?"]).score(np.array([1, 0, 0], np.float32)) is None
    assert exemplars.without(["iron foods?", "IV iron dose?"]) is None  # nothing answerable left


def test_the_nearest_authored_question_counts_only_the_units_the_caller_may_read():
    exemplars = Exemplars.from_rows([*ROWS, _row("unit_question", "iron in spinach?", [0.6, 0, 0.8])])
    iv = np.array([0, 1, 0], np.float32)
    assert exemplars.nearest_authored(iv, restricted=True) == pytest.approx(1.0)
    assert exemplars.nearest_authored(iv) == pytest.approx(0.0)  # the clinician-only unit's question is not counted
    # a labelled dev question is not an author's: "iron foods?" itself scores only against the spinach question
    assert exemplars.nearest_authored(np.array([1, 0, 0], np.float32)) == pytest.approx(0.6)
    assert Exemplars.from_rows([ROWS[0], ROWS[2]]).nearest_authored(iv) is None


def test_both_gate_scores_come_from_one_reading_and_say_the_same():
    exemplars = Exemplars.from_rows([*ROWS, _row("unit_question", "iron in spinach?", [0.6, 0, 0.8])])
    for vector in ([1, 0, 0], [0, 1, 0], [0.8, 0, 0.6]):
        v = np.array(vector, np.float32)
        for clinician in (False, True):
            both = exemplars.gate_scores(v, clinician)
            assert both["exemplar"] == pytest.approx(exemplars.score(v, clinician))
            assert both["authored"] == pytest.approx(exemplars.nearest_authored(v, clinician))
    # a margin needs an unanswerable exemplar: without one only "authored" is said
    assert set(Exemplars.from_rows([ROWS[0], _row("unit_question", "x", [1, 0, 0])]).gate_scores(np.array([1, 0, 0]))) == {"authored"}


def test_the_units_an_author_wrote_a_question_for_are_found_nearly_word_for_word_and_by_role():
    """Only an author's question of a unit names one, from cosine 0.96 (a labelled dev question names none), nearest
    first; a restricted unit's question counts for its role only."""
    def authored(role: str, unit: str | None, text: str, vector: list[float]) -> dict:
        return {**_row(role, text, vector), "rule_id": unit}

    rows = [authored("unit_question", "u-fines", "late fee per day?", [1, 0, 0]),
            authored("unit_question", "u-holds", "how long is a hold kept?", [0.97, 0.243, 0]),
            authored("clinician_question", "u-staff", "fine code?", [0, 1, 0]),
            authored("answerable", None, "late fees?", [1, 0.01, 0]),
            authored("unanswerable", None, "parking?", [0, 0, 1])]
    exemplars = Exemplars.from_rows(rows)
    assert exemplars is not None
    assert exemplars.authored_units(np.array([1, 0, 0], np.float32)) == ("u-fines", "u-holds")
    assert exemplars.authored_units(np.array([0.8, 0.6, 0], np.float32)) == ()  # 0.8 from the nearest: not its question
    assert exemplars.authored_units(np.array([0, 1, 0], np.float32)) == ()
    assert exemplars.authored_units(np.array([0, 1, 0], np.float32), restricted=True) == ("u-staff",)
    assert exemplars.without(["late fee per day?"]).authored_units(np.array([1, 0, 0], np.float32)) == ("u-holds",)


def test_one_product_a_question_whatever_reads_it_and_the_next_question_gets_its_own():
    """The gate, the authored units and the answer's paraphrases each read the question's cosines: one product."""
    from dataclasses import replace

    products = []

    class Counted(np.ndarray):
        def __matmul__(self, other):  # type: ignore[override]
            products.append(1)
            return np.asarray(self) @ other

    base = Exemplars.from_rows(ROWS)
    exemplars = replace(base, vectors=base.vectors.view(Counted))
    iron, zinc = _near([1, 0, 0]), _near([0, 0, 1])
    exemplars.gate_scores(iron), exemplars.authored_units(iron), exemplars.nearest_answered(iron, 3, 0.0)
    assert len(products) == 1
    assert exemplars.score(zinc) == pytest.approx(-0.99) and len(products) == 2  # a new vector: not the last one's
    assert exemplars.score(iron.copy()) == pytest.approx(0.99) and len(products) == 3


def test_a_units_questions_in_the_other_languages_are_its_authors_translations():
    """厨余桶能放骨头吗？ asked of an English unit: its English questions say it in the unit's words, at their own cosines;
    a restricted unit's only for its role, another unit's and a labelled dev question's never."""
    def authored(role: str, unit: str | None, text: str, vector: list[float]) -> dict:
        return {**_row(role, text, vector), "rule_id": unit}

    rows = [authored("unit_question", "u-caddy", "厨余桶能放骨头吗？", [1, 0, 0]),
            authored("unit_question", "u-caddy", "Can bones go in the food caddy?", [0.8, 0.6, 0]),
            authored("unit_question", "u-caddy", "What liners can I use?", [0.6, 0.8, 0]),
            authored("unit_question", "u-bins", "Which bin is the blue one?", [0.8, 0, 0.6]),
            authored("answerable", None, "can bones go in food waste?", [0.8, 0.6, 0]),
            authored("clinician_question", "u-caddy", "Contamination code for bones?", [0.8, 0.6, 0]),
            authored("unanswerable", None, "parking?", [0, 0, 1])]
    exemplars = Exemplars.from_rows(rows)
    assert exemplars is not None
    asked = np.array([1, 0, 0], np.float32)
    found = exemplars.translations(asked, "u-caddy", "zh")
    assert found == pytest.approx({"Can bones go in the food caddy?": 0.8, "What liners can I use?": 0.6})
    assert "Contamination code for bones?" in exemplars.translations(asked, "u-caddy", "zh", restricted=True)
    assert exemplars.translations(asked, "u-caddy", "en") == pytest.approx({"厨余桶能放骨头吗？": 1.0})
