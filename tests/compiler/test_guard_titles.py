"""The public units' titles join the guard's negatives: what the knowledge base answers is never an emergency."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from unitrag.compiler.guard_examples import guard_example_rows, guard_table_hash, public_titles
from unitrag.content.guard_model import GuardTexts
from unitrag.content.validate import validate_content

CONTENT = Path(__file__).resolve().parents[2] / "content"


def test_public_titles_only_with_scenes_taking_their_storys_access() -> None:
    content = validate_content(CONTENT, 200_000)
    titles = dict((title, lang) for lang, title in public_titles(content))
    units = {lu.id: lu.unit for lu in content.units}
    assert units["en-b12-treatment"].title not in titles  # a clinician unit's title stays out of the guard
    assert titles[units["en-b12-food-sources"].title] == "en"
    restricted = {lu.id for lu in content.units if getattr(lu.unit, "access", None) == "clinician"}
    assert restricted and not any(units[u].title in titles for u in restricted)


def test_titles_are_negatives_only_when_some_rule_has_examples() -> None:
    content = validate_content(CONTENT, 200_000)
    rows = guard_example_rows(content)
    assert sum(r["role"] == "title" for r in rows) == len(public_titles(content)) > 0
    assert all(r["rule_id"] is None for r in rows if r["role"] == "title")
    bare = [rule.model_copy(update={"examples": GuardTexts(), "near_misses": GuardTexts()}) for rule in content.guard_rules]
    no_examples = replace(content, guard_rules=bare)
    assert not [r for r in guard_example_rows(no_examples) if r["role"] == "title"]


def test_a_new_fit_version_refits_the_same_rows(monkeypatch) -> None:
    import unitrag.compiler.guard_examples as guard_examples

    rows = [{"rule_id": None, "role": "title", "lang": "en", "text": "Iron", "content_hash": "x"}]
    before = guard_table_hash(rows)
    monkeypatch.setattr(guard_examples, "FIT_VERSION", guard_examples.FIT_VERSION + 1)
    assert guard_table_hash(rows) != before
