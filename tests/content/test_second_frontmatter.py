"""A body opening with a second frontmatter-like block is a note; prose with colons and rules never is."""

from __future__ import annotations

import pytest

from unitrag.content.second_frontmatter import second_frontmatter_note


@pytest.mark.parametrize(("body", "line", "named"), [
    ("access: staff\n---\nText.", 10, "`access:`"),
    ("\n\naccess: staff\nlang: en\n---\nText.", 12, "`access:`, `lang:`"),
    ("topics:\n  - iron\ncitationIds: []\n---\nText.", 10, "`topics:`, `citationIds:`"),
    ("access: staff\n-----   \nText.", 10, "`access:`"),
])
def test_a_block_of_unit_fields_closed_by_dashes_is_a_note_at_its_first_line(body, line, named):
    note = second_frontmatter_note("content/x.md", body, 10)
    assert note is not None and (note.path, note.line, note.field) == ("content/x.md", line, "body")
    assert f"move {named} into it" in note.message


@pytest.mark.parametrize("body", [
    "Source: NIH fact sheet\n---\nText.",          # a capitalised word is prose (a setext heading here)
    "note: remember this\n---\nText.",             # no unit has a field `note`
    "access: staff\nText without a closing rule.",  # no second '---'
    "Intro.\n\naccess: staff\n---\n",              # not at the start of the body
    "access: staff\n\n---\nText.",                 # a blank line breaks the block
    "---\nText.",                                   # an empty block names nothing
    "",
])
def test_prose_and_what_merely_looks_alike_is_no_note(body):
    assert second_frontmatter_note("content/x.md", body, 10) is None
