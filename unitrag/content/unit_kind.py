"""A unit's fields checked against its kind, and against the kind it was meant to be when ``kind`` is not one.

A wrong ``kind`` was the file's only problem: its ``lang``, ``access`` and ``topics`` were told on the next run. Now
the other fields are checked in the same run, as the kind meant: the one ``kind`` is a spelling of (``文档``,
``Story``, ``ｓｔｏｒｙ``, ``stories``), else the one whose own fields the unit has (``trigger``: a rule). With
neither, the fields every kind has are checked where they are written (which are missing depends on the kind).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import MISSING, nearest, problems_from_validation
from .full_width import to_ascii
from .models import UNIT_KINDS, Access, Lang, UnitBase
from .problems import Problem
from .source_map import SourceMap

#: The kinds by their Chinese names (simplified and traditional).
_CHINESE = {"故事": "story", "场景": "scene", "場景": "scene", "规则": "rule", "規則": "rule", "文档": "document",
            "文檔": "document"}
_EXPECTED = f"one of {', '.join(UNIT_KINDS)}"


class _Common(UnitBase):
    """The fields every kind has, each optional as in one kind or another: checked when the kind is not known."""

    model_config = ConfigDict(extra="ignore")

    lang: Lang | None = None
    access: Access | None = None


def _own_fields(model: type[BaseModel]) -> set[str]:
    return {info.alias or name for name, info in model.model_fields.items()}


#: The fields of one kind alone (``summary``: a story's; ``story`` and ``order``: a scene's).
_OWN = {kind: sorted(_own_fields(model) - _own_fields(_Common) - {"kind"}) for kind, model in UNIT_KINDS.items()}


def kind_written(written: Any) -> str | None:
    """The kind ``written`` is a spelling of: another case, full-width letters, its Chinese name, a slip; else None."""
    if not isinstance(written, str):
        return None
    folded = to_ascii(written).strip().casefold()
    if folded in UNIT_KINDS or folded in _CHINESE:
        return _CHINESE.get(folded, folded)
    prefixed = (kind for kind in UNIT_KINDS if folded.startswith(kind) or len(folded) >= 3 and kind.startswith(folded))
    return next(prefixed, None) or nearest(folded, UNIT_KINDS, 0.6)  # documents, doc; stroy


def kind_by_fields(meta: dict[str, Any]) -> str | None:
    """The one kind whose own fields ``meta`` has the most of (None: none, or a tie)."""
    counts = {kind: sum(name in meta for name in own) for kind, own in _OWN.items()}
    best = max(counts.values())
    found = [kind for kind, count in counts.items() if count == best]
    return found[0] if best and len(found) == 1 else None


def kind_meant(meta: dict[str, Any]) -> str | None:
    """The kind a unit is, or was meant to be (``kind_written``, else ``kind_by_fields``); None when nothing tells."""
    kind = meta.get("kind")
    if isinstance(kind, str) and kind in UNIT_KINDS:
        return kind
    return kind_written(kind) or kind_by_fields(meta)


def check_fields(meta: dict[str, Any], shown: str, lines: SourceMap) -> tuple[UnitBase | None, list[Problem]]:
    """The unit ``meta`` describes, or None and every problem of its fields (a wrong ``kind`` first)."""
    kind = meta.get("kind")
    if isinstance(kind, str) and kind in UNIT_KINDS:
        return _validated(UNIT_KINDS[kind], meta, shown, lines)
    problem = Problem(shown, lines.line(("kind",)) if "kind" in meta else 1, "kind", _kind_message(meta))
    meant = kind_meant(meta)
    if meant is not None:
        return None, [problem, *_validated(UNIT_KINDS[meant], {**meta, "kind": meant}, shown, lines)[1]]
    found = _validated(_Common, meta, shown, lines)[1]
    return None, [problem, *(p for p in found if p.message != MISSING)]


def _validated(model: type[UnitBase], meta: dict[str, Any], shown: str,
               lines: SourceMap) -> tuple[UnitBase | None, list[Problem]]:
    try:
        return model.model_validate(meta), []
    except ValidationError as exc:
        return None, problems_from_validation(exc, shown, lines, model=model)


def _kind_message(meta: dict[str, Any]) -> str:
    """What is wrong with ``kind``, and the kind to write when one is meant."""
    kind = meta.get("kind")
    what = f"{MISSING} ({_EXPECTED})" if kind is None else f"unknown kind {kind!r} (expected {_EXPECTED})"
    written = kind_written(kind)
    if written is not None:
        return f"{what}: write {written}"
    meant = kind_by_fields(meta)
    if meant is None:
        return what
    own = ", ".join(name for name in _OWN[meant] if name in meta)
    return f"{what}: it has a {meant}'s fields ({own}): write {meant} if it is one (its fields were checked as a {meant}'s)"
