"""Reading author files: control characters are problems at their line; line endings are normalised."""

from __future__ import annotations

import pytest

from unitrag.content.validate import validate_content


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x1b", "\x7f", "\x85"])
def test_a_control_character_in_a_body_is_a_problem_at_its_line(tree, samples, char) -> None:
    text = samples.RULE.replace("Your B12 is low", f"Your B12{char} is low")
    tree.write("rules/rule-one.md", text)
    line = text.split("\n").index(next(ln for ln in text.split("\n") if char in ln)) + 1
    problems = validate_content(tree.root).problems
    assert [(p.path, p.line, p.field) for p in problems] == [(tree.shown("rules/rule-one.md"), line, "file")]
    assert f"U+{ord(char):04X}" in problems[0].message


def test_control_characters_in_frontmatter_and_registries_are_named_too(tree, samples) -> None:
    tree.write("rules/rule-one.md", samples.RULE.replace('title: "Low B12"', 'title: "Low\x00B12"'))
    tree.write("citations/a.yaml", samples.CITATIONS.replace("Paper B", "Paper\x07B"))
    found = {(p.path, p.line) for p in validate_content(tree.root).problems if p.field == "file"}
    assert found == {(tree.shown("rules/rule-one.md"), 4), (tree.shown("citations/a.yaml"), 7)}


def test_tabs_are_fine(tree, samples) -> None:
    tree.write("rules/rule-one.md", samples.RULE.replace("Your B12 is low", "Your B12\tis low"))
    assert validate_content(tree.root).problems == []


@pytest.mark.parametrize("ending", ["\r\n", "\r"])
def test_line_endings_never_change_what_is_read(tree, samples, ending) -> None:
    before = validate_content(tree.root)
    for rel in ("rules/rule-one.md", "topics.yaml", "citations/a.yaml"):
        text = (tree.root / rel).read_text(encoding="utf-8")
        tree.write(rel, text.replace("\n", ending).encode("utf-8"))
    after = validate_content(tree.root)
    assert after.problems == []
    rule = lambda content: next(u for u in content.units if u.id == "rule-one")  # noqa: E731
    assert (rule(after).body, rule(after).meta, rule(after).body_line) == (rule(before).body, rule(before).meta, rule(before).body_line)
    assert after.citations == before.citations and after.taxonomy == before.taxonomy
