"""Turning pydantic validation errors into author-facing problems."""

from __future__ import annotations

import difflib
import os
import re
import reprlib
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..access import ACCESS_PATTERN
from .full_width import described, full_width_chars, full_width_fix, to_ascii
from .problems import Problem
from .source_map import SourceMap

#: What a field's pattern means to an author, for the patterns whose regex would be the message otherwise.
#: An id's spelling: what units, topics, citations and rules are named by (``models.Slug``).
SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
_PATTERNS = {SLUG_PATTERN: "an id is lower-case letters, digits and hyphens (lost-property, not lost_property or 失物)"}
#: Patterns whose mismatch is reported where what to write is known: an access level is checked against the knowledge
#: base's own levels, which the message names (``validate._check_access``: public and ``restricted_role``).
_CHECKED_ELSEWHERE = {ACCESS_PATTERN}
#: Errors of a value of the wrong type or spelling: a full-width value that fails one is told its ASCII form instead
#: (a length or a range is no matter of the characters).
_SPELLING_ERRORS = ("literal_error", "enum", "string_pattern_mismatch")

#: The message of a required field not written.
MISSING = "required field is missing"
_FRIENDLY = {
    "missing": MISSING,
}

#: What a problem shows of a bad value: enough to recognise it, never the whole of a huge input.
_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 80
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = _SHORT.maxset = 5
_SHORT.maxlevel = 2
#: Unknown fields reported one by one per file; past it, one line says how many more (20,000 keys, 20,000 lines).
MAX_UNKNOWN_FIELDS = 20
#: The longest key a problem shows whole.
KEY_CHARS = 80


def field_names(model: type[BaseModel]) -> set[str]:
    """Every field name an author may write in ``model`` and the models inside it (aliases as written)."""
    return set(_names(model, set()))


def _names(model: type[BaseModel], seen: set[type]) -> Iterator[str]:
    if model in seen:
        return
    seen.add(model)
    for name, info in model.model_fields.items():
        yield info.alias or name
        for inner in _models_in(info.annotation):
            yield from _names(inner, seen)


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        yield from _models_in(arg)


#: Where an id's words part.
_ID_WORDS = re.compile(r"[-_./]+")


def nearest(written: str, known: Collection[str], cutoff: float) -> str | None:
    """The one of ``known`` that ``written`` is a slip of (difflib's ratio at least ``cutoff``), else the one id that
    holds all of its words in order, one or more left out (``prnp-shuttle-2025`` of ``prnp-shuttle-timetable-2025``),
    else None."""
    near = difflib.get_close_matches(written, sorted(known), n=1, cutoff=cutoff)
    if near:
        return near[0]
    longer = [k for k in known if _words_within(written, k)]
    return longer[0] if len(longer) == 1 else None


#: A folder is read this far for a file whose name a missing one's is a slip of (``misspelled_file``).
_SIBLINGS_READ = 1000


def misspelled_file(path: Path) -> Path | None:
    """The file beside a missing ``path`` whose name is what was meant (``kb.duckbd`` for ``kb.duckdb``,
    ``question_test.yaml`` for ``questions_test.yaml``), for the "not found" to name; None when there is none."""
    try:
        with os.scandir(path.parent) as entries:
            names = [e.name for _, e in zip(range(_SIBLINGS_READ), entries) if e.is_file()]
    except OSError:
        return None
    near = nearest(path.name, names, 0.8)
    return None if near is None else path.parent / near


def _words_within(written: str, known: str) -> bool:
    """Whether ``known`` says every word of ``written`` (two or more, split at - _ . /), in order, and more."""
    words, others = _ID_WORDS.split(written.casefold()), iter(_ID_WORDS.split(known.casefold()))
    return len(words) >= 2 and len(known) > len(written) and all(word in others for word in words)


def _ending_in(written: str, known: Collection[str]) -> str | None:
    """The one field of ``known`` whose last word ``written`` is, or that is the last word of ``written``: a labelled
    question's ``answer_facts`` and a unit question's ``facts`` (a new team wrote one for the other), else None."""
    last = written.casefold().rsplit("_", 1)[-1]
    ending = [k for k in known if ("_" in k and k.casefold().rsplit("_", 1)[-1] == written.casefold())
              or ("_" in written and k.casefold() == last)]
    return ending[0] if len(ending) == 1 else None


def unknown_field(key: Any, known: set[str], doc: str) -> str:
    """The message for a field no model has: the one meant when it is near one ("citationIDs": citationIds)."""
    if isinstance(key, str):
        folded = to_ascii(key)  # ｔｉｔｌｅ: full-width letters
        near = (next((k for k in known if k.casefold() == folded.casefold()), None) or nearest(folded, known, 0.75)
                or _ending_in(folded, known))
        how = f"it is written {described(full_width_chars(key))}; " if folded != key else ""
        if near:
            return f"unknown field: did you mean {near!r}? ({how}the fields are in {doc})"
    return f"unknown field (a typo? the fields are in {doc})"


def problems_from_validation(
    exc: ValidationError, path: str, lines: SourceMap, prefix: tuple[Any, ...] = (), whole: str = "frontmatter",
    model: type[BaseModel] | None = None, doc: str = "docs/authoring.md",
) -> list[Problem]:
    """One problem per pydantic error, each on the line of the offending key (``whole``: a model-level error).

    ``model``: what was validated, so an unknown field can be told the one it is near; ``doc``: where its fields are."""
    known: set[str] | None = None  # the model's field names, walked for the first unknown field only
    found: list[Problem] = []
    unknown = 0
    errors = [(err, _field_loc(err)) for err in exc.errors()]
    inside = {loc[:end] for _, loc in errors for end in range(len(loc))}  # where another error lies deeper
    tried = _union_members(errors, inside)
    for err, loc in errors:
        if err["type"].endswith("_type") and loc in inside:
            continue  # a union member the value is not shaped as: another member's errors inside it say what is wrong
        if loc in tried and tried[loc][0] is not err:
            continue  # said with the first member's: "a valid number or a valid tuple", on one line
        message = _FRIENDLY.get(err["type"], err["msg"])
        if loc in tried:
            message = "Input should be " + " or ".join(dict.fromkeys(
                e["msg"].removeprefix("Input should be ") for e in tried[loc]))
        pattern = (err.get("ctx") or {}).get("pattern")
        got = _SHORT.repr(err.get("input"))
        fix = full_width_fix(err.get("input"), item=bool(loc) and isinstance(loc[-1], int)) \
            if err["type"] in _SPELLING_ERRORS or err["type"].endswith(("_type", "_parsing")) else None
        if err["type"] == "extra_forbidden":
            unknown += 1
            if unknown > MAX_UNKNOWN_FIELDS:
                continue
            if known is None:
                known = field_names(model) if model is not None else set()
            message = unknown_field(loc[-1] if loc else None, known, doc)
        elif err["type"] == "string_pattern_mismatch" and pattern in _CHECKED_ELSEWHERE:
            continue
        elif err["type"] == "string_pattern_mismatch" and pattern in _PATTERNS:
            message = f"{_PATTERNS[pattern]} (got {got}){f': it {fix}' if fix else ''}"
        elif fix is not None:  # one line for the value, not one per type a union tried ("valid number", "valid tuple")
            message = f"{got} {fix}"
        elif err["type"] not in _FRIENDLY and not err["type"].startswith("value_error"):
            message = f"{message} (got {got}){_lang_meant(err)}"
        elif err["type"].startswith("value_error"):
            message = message.removeprefix("Value error, ")
        field = ".".join(shown_key(p) for p in loc) or whole
        problem = Problem(path, lines.line(prefix + loc), field, message)
        if problem not in found:
            found.append(problem)
    if unknown > MAX_UNKNOWN_FIELDS:
        found.append(Problem(path, 1, whole or "fields", f"{unknown - MAX_UNKNOWN_FIELDS} more unknown fields, not listed"))
    return found


def _union_members(
    errors: list[tuple[Any, tuple[Any, ...]]], inside: set[tuple[Any, ...]],
) -> dict[tuple[Any, ...], list[Any]]:
    """The errors of a union's members at one place, where two or more say what the value should be and none lies
    deeper (``inside``: the places another error lies under): ``threshold: 40cm`` was two problems, "a valid number"
    and "a valid tuple", for one mistake."""
    members: dict[tuple[Any, ...], list[Any]] = {}
    for err, loc in errors:
        if len(loc) < len(err["loc"]) and err["msg"].startswith("Input should be "):
            members.setdefault(loc, []).append(err)
    return {loc: errs for loc, errs in members.items() if len(errs) > 1 and loc not in inside}


def _field_loc(err: Any) -> tuple[Any, ...]:
    """Where an error is, without the union member names pydantic adds ("float", "tuple[float, float]")."""
    return tuple(p for p in err["loc"] if not (isinstance(p, str) and ("[" in p or p in {"float", "int", "str"})))


#: How a language is often written where ``lang`` wants zh or en: a locale, a name, the language's own name.
_LANGS_MEANT = {"zh": ("zh-", "zh_", "cn", "chinese", "中文", "汉语", "简体", "繁体", "mandarin"),
                "en": ("en-", "en_", "english", "英文", "英语")}


def _lang_meant(err: Any) -> str:
    """``: write zh`` when a ``lang`` value says Chinese or English another way (zh-CN, cn, Chinese, 中文)."""
    value, expected = err.get("input"), str((err.get("ctx") or {}).get("expected", ""))
    if err["type"] != "literal_error" or "'zh'" not in expected or not isinstance(value, str):
        return ""
    folded = value.strip().casefold()
    meant = next((lang for lang, ways in _LANGS_MEANT.items() if folded == lang or folded.startswith(ways)), None)
    return f": write {meant}" if meant else ""


def shown_key(part: Any) -> str:
    """A field name as a problem shows it: as written when it is short and printable, else escaped and cut (a key
    with a zero-width space would read as the field it imitates: "ti\u200btle: unknown field: did you mean 'title'?")."""
    text = str(part)
    if text.isprintable() and len(text) <= KEY_CHARS:
        return text
    return _SHORT.repr(text)
