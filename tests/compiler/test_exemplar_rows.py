"""Which rows of ``guard_examples`` are answerability exemplars, by label and access, and which the guard fits on."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from unitrag.compiler.guard_examples import guard_example_rows, model_rows
from unitrag.content.validate import validate_content
from unitrag.rag.store.exemplars import ROLES

CONTENT = Path(__file__).resolve().parents[2] / "content"


def test_units_questions_are_exemplars_by_their_units_access():
    content = validate_content(CONTENT, 200_000)
    rows = guard_example_rows(content)
    units = {lu.id: lu.unit for lu in content.units}
    asked = [r for r in rows if r["role"] in ("unit_question", "clinician_question")]
    assert len(asked) == sum(len(u.questions) for u in units.values()) > 0
    by_unit = {r["rule_id"]: r["role"] for r in asked}
    assert by_unit["en-b12-treatment"] == "clinician_question"  # a scene of a public story, itself clinician-only
    assert by_unit["en-b12-food-sources"] == "unit_question"
    zh = next(r for r in asked if r["rule_id"] == "en-b12-food-sources" and r["lang"] == "zh")
    assert any("\u4e00" <= ch <= "\u9fff" for ch in zh["text"])  # each question's own language, not its unit's


def test_labelled_questions_are_exemplars_only_without_a_user_context():
    content = validate_content(CONTENT, 200_000)
    rows = {r["text"]: r["role"] for r in guard_example_rows(content)}
    dev = [lq.question for lq in content.questions if not lq.path.endswith("_test.yaml") and lq.question.guard is None]
    assert dev
    restricted = {q.question for q in dev if q.user is not None and q.user.roles}
    assert restricted
    for q in dev:
        if q.question in restricted:
            continue
        expected = "negative" if q.user is not None else "unanswerable" if q.unanswerable else "answerable"
        assert rows[q.question] == expected, q.id
    # one guard model scores every caller: what only the restricted role asks must not move a public caller's score
    assert not restricted & set(rows)
    held_out = [lq.question.question for lq in content.questions if lq.path.endswith("_test.yaml")]
    assert held_out and not any(rows.get(t) in ROLES for t in held_out if t not in {q.question for q in dev})


def test_the_guard_is_fitted_without_the_units_questions():
    content = validate_content(CONTENT, 200_000)
    rows = [r for r in guard_example_rows(content) if r["role"] in ("example", "negative", "unit_question")]
    rng = np.random.default_rng(0)
    for r in rows:
        r["embedding"] = rng.normal(size=8).tolist()
    without = [r for r in rows if r["role"] != "unit_question"]
    assert len(without) < len(rows)
    rules = [{"id": rule.id, "type": rule.type, "patterns_en": [], "patterns_zh": [], "response_en": "-"}
             for rule in content.guard_rules]
    assert _fitted(model_rows(rows, rules)) == _fitted(model_rows(without, rules))  # they only anchor thresholds
    unit_questions_as_negatives = [replace_role(r) for r in rows]
    assert _fitted(model_rows(unit_questions_as_negatives, rules)) != _fitted(model_rows(without, rules))


def _fitted(model: list[dict]) -> list[tuple]:
    """The classifier itself: each class's weights and intercept (not its thresholds or metrics)."""
    return [(r["class"], r["weights"], r["intercept"]) for r in model]


def replace_role(row: dict) -> dict:
    return {**row, "role": "negative"} if row["role"] == "unit_question" else row


def test_a_restricted_units_question_stopped_only_by_a_rule_exempting_its_role_is_not_reported():
    from types import SimpleNamespace

    from unitrag.compiler.guard_examples import own_questions_stopped

    def rule(rule_id: str, pattern: str, exempt: bool) -> dict:
        return {"id": rule_id, "type": "red_flag", "patterns_en": [pattern], "patterns_zh": [], "response_en": "call",
                "exempt_restricted_role": exempt}

    own = [{"rule_id": "en-staff-gas", "role": "clinician_question", "text": "A tenant smells gas: what do we do?"},
           {"rule_id": "en-gas", "role": "unit_question", "text": "I smell gas, is it safe?"}]
    fit = SimpleNamespace(classes=["none"], weights=np.zeros((4, 1)), intercepts=np.zeros(1), thresholds={})
    vectors = np.zeros((2, 4), dtype=np.float32)
    exempt = own_questions_stopped(own, vectors, fit, [rule("red-flag-gas", r"\bsmells? gas\b", True)])
    assert [(f["unit"], f["restricted"]) for f in exempt] == [("en-gas", False)]  # the public's question only
    stops = own_questions_stopped(own, vectors, fit, [rule("red-flag-gas", r"\bsmells? gas\b", False)])
    assert [(f["unit"], f["restricted"]) for f in stops] == [("en-gas", False), ("en-staff-gas", True)]
