"""Turning pydantic validation errors into author-facing problems."""

from __future__ import annotations

import reprlib
from typing import Any

from pydantic import ValidationError

from .problems import Problem
from .source_map import SourceMap

_FRIENDLY = {
    "missing": "required field is missing",
    "extra_forbidden": "unknown field (a typo? see docs/authoring.md for the fields of this kind)",
}

#: What a problem shows of a bad value: enough to recognise it, never the whole of a huge input.
_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 80
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = _SHORT.maxset = 5
_SHORT.maxlevel = 2


def problems_from_validation(
    exc: ValidationError, path: str, lines: SourceMap, prefix: tuple[Any, ...] = (), whole: str = "frontmatter"
) -> list[Problem]:
    """One problem per pydantic error, each on the line of the offending key (``whole``: a model-level error)."""
    found: list[Problem] = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        # pydantic appends the union member name ("float", "tuple[float, float]") to the loc
        loc = tuple(p for p in loc if not (isinstance(p, str) and ("[" in p or p in {"float", "int", "str"})))
        field = ".".join(str(p) for p in loc) or whole
        message = _FRIENDLY.get(err["type"], err["msg"])
        if err["type"] not in _FRIENDLY and not err["type"].startswith("value_error"):
            message = f"{message} (got {_SHORT.repr(err.get('input'))})"
        elif err["type"].startswith("value_error"):
            message = message.removeprefix("Value error, ")
        found.append(Problem(path, lines.line(prefix + loc), field, message))
    return found
