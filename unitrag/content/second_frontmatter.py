"""A unit body that starts with what looks like a second frontmatter block: said to the author, not refused.

Frontmatter is the first ``---`` block only. Lines after it such as ``access: staff`` then ``---`` are body
text: the unit builds public, and its text begins with "access: staff". In a pull request's diff those lines
read as the unit's fields (a restriction a reviewer would trust), so validation names them as a note at
their line. Only a run of ``field: value`` lines whose names are unit fields, closed by a ``---`` line, is
taken for one: prose ("Source: NIH" over a rule, a sentence with a colon) never is.
"""

from __future__ import annotations

import re

from .models import UNIT_KINDS
from .problems import Problem

#: Every field a unit's frontmatter may hold, as written there (``citationIds``, not ``citation_ids``).
FIELD_NAMES = frozenset(info.alias or name for model in UNIT_KINDS.values() for name, info in model.model_fields.items())
#: A top-level ``name: value`` line (or ``name:`` opening a list below it), as YAML writes a field.
_FIELD_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):(?:[ \t]|$)")
#: A line inside a field's value (``  - item``), or a comment line: part of the block, naming no field.
_INSIDE = re.compile(r"^(?:[ \t]+\S|#)")
_DELIMITER = re.compile(r"^-{3,}\s*$")


def second_frontmatter_note(path: str, body: str, first_line: int) -> Problem | None:
    """A note at the body's first field line when the body opens with a frontmatter-like block; else None.
    ``first_line``: the body's first line in the file."""
    lines = body.split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip()), None)
    if start is None:
        return None
    names: list[str] = []
    for line in lines[start:]:
        if _DELIMITER.match(line):
            break
        field = _FIELD_LINE.match(line)
        if field is not None and field.group(1) in FIELD_NAMES:
            names.append(field.group(1))
        elif not (names and _INSIDE.match(line)):
            return None  # prose, a blank line, or a name no unit has
    else:
        return None  # no closing '---': the body merely starts with such lines
    if not names:
        return None
    fields = ", ".join(f"`{name}:`" for name in dict.fromkeys(names))
    return Problem(path, first_line + start, "body",
                   "the body starts with what looks like frontmatter (a second `---` block); frontmatter is only "
                   f"the first block: move {fields} into it (as it is, the unit is built without them and its "
                   "text begins with them)")
