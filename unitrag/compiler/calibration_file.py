"""calibration.json (``unitrag calibrate --write``) → rows of the artifact's calibration table, every field checked.

The gate's numbers decide "not found": ``"a": 1e400`` (which JSON reads as infinity), ``NaN``, a string or a
bool where a number belongs would be copied into the artifact and quietly switch the gate off, and a
``by_lang`` of the wrong shape, or JSON nested too deep to read, would end the build in a traceback. So each
field is checked before any row is made, and the first one wrong stops the build with one line naming the
file and the field (``calibration.json: gates[0].a: expected a finite number, not inf``); nothing is written.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from ..artifact.gate_feature import parse_feature
from ..errors import UserError

CALIBRATION_COLUMNS = ("pipeline_id", "feature", "a", "b", "threshold", "by_lang", "n_answerable", "n_unanswerable",
                       "fitted_at", "metrics")
_MAX_COUNT = 2**31 - 1  # n_answerable, n_unanswerable: INTEGER columns
_WRITTEN_BY = "not a calibration file written by `unitrag calibrate --write`"
_NUMBER = "a finite number"
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_>-]{1,24}")


class _Malformed(Exception):
    """A field that is not what ``unitrag calibrate --write`` writes: where it is, what was expected, what was found."""

    def __init__(self, where: str, expected: str, value: Any = ..., why: str | None = None) -> None:
        found = f"missing (expected {expected})" if value is ... else f"expected {expected}, not {_shown(value)}"
        super().__init__(f"{where}: {why or found}")


def read_calibration(path: Path | None) -> list[dict[str, Any]]:
    """The fitted answerability gates of calibration.json as table rows; none when it is absent.

    A damaged file (unreadable, not JSON, nested too deep, a field of the wrong type or shape, a number that is
    not finite) is a UserError naming the file and the field: the build stops before anything is written.
    """
    if path is None or not path.is_file():
        return []
    data = _load(path)
    try:
        rows = [_row(gate, where) for where, gate in _gates(data)]
    except _Malformed as exc:
        raise UserError(f"{path}: {exc}; {_WRITTEN_BY}: run it again, or correct the value") from None
    except RecursionError:  # nesting the parser read but json.dumps cannot write back
        raise UserError(f"{path}: {_WRITTEN_BY} (nested too deeply)") from None
    if len({r["pipeline_id"] for r in rows}) != len(rows):
        raise UserError(f"{path}: a pipeline id appears twice; keep one gate per pipeline")
    return sorted(rows, key=lambda r: r["pipeline_id"])  # a stable table hash


def _load(path: Path) -> Any:
    """The file's JSON, or a UserError naming it (JSON nested too deep for the parser included)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except RecursionError:
        raise UserError(f"{path}: {_WRITTEN_BY} (JSON nested too deeply to read)") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UserError(f"{path}: {_WRITTEN_BY} ({type(exc).__name__}: {exc})") from None


def _gates(data: Any) -> list[tuple[str, Any]]:
    """Each gate with where it is: ``{"gates": [...]}`` as written, or a bare list of gates."""
    prefix = ""
    if isinstance(data, dict):
        if "gates" not in data:
            raise _Malformed("gates", "a list of gates")
        data, prefix = data["gates"], "gates"
    if not isinstance(data, list):
        raise _Malformed(prefix or "the file", "a list of gates", data)
    return [(f"{prefix}[{i}]", gate) for i, gate in enumerate(data)]


def _row(gate: Any, where: str) -> dict[str, Any]:
    """One gate as a table row (``by_lang`` and ``metrics`` as JSON text), each field checked."""
    _object(gate, where)
    for key in ("pipeline_id", "feature"):
        if not isinstance(gate.get(key), str):
            raise _Malformed(f"{where}.{key}", "text", gate.get(key, ...))
    row = {key: gate.get(key) for key in CALIBRATION_COLUMNS}
    row["a"], row["b"] = (_number(gate, key, where) for key in ("a", "b"))
    row["threshold"] = _number(gate, "threshold", where, optional=True)
    for key in ("n_answerable", "n_unanswerable"):
        _count(gate, key, where)
    if row["fitted_at"] is not None and not isinstance(row["fitted_at"], str):
        raise _Malformed(f"{where}.fitted_at", "text or null", row["fitted_at"])
    _by_lang(gate.get("by_lang"), f"{where}.by_lang")
    _metrics(gate.get("metrics"), f"{where}.metrics")
    _as_gate(row, where)
    for key in ("by_lang", "metrics"):
        row[key] = None if row[key] is None else json.dumps(row[key], ensure_ascii=False, sort_keys=True)
    return row


def _by_lang(value: Any, where: str) -> None:
    """``{lang: {"a": …, "b": …, "threshold": …}}`` or null: the pair used for the top source's language."""
    if value is None:
        return
    _object(value, where)
    for lang, pair in value.items():
        _object(pair, f"{where}.{_key(lang)}")
        for key in ("a", "b"):
            _number(pair, key, f"{where}.{_key(lang)}")
        _number(pair, "threshold", f"{where}.{_key(lang)}", optional=True)


def _metrics(value: Any, where: str) -> None:
    """An object or null; its ``lang_offsets`` (cosine corrections the runtime applies) must be finite numbers."""
    if value is None:
        return
    _object(value, where)
    offsets = value.get("lang_offsets")
    if offsets is not None:
        _object(offsets, f"{where}.lang_offsets")
        for pair in offsets:
            _number(offsets, pair, f"{where}.lang_offsets")
    digest = value.get("questions_digest")
    if digest is not None and not isinstance(digest, str):
        raise _Malformed(f"{where}.questions_digest", "text or null", digest)


def _as_gate(row: dict[str, Any], where: str) -> None:
    """The row must make a gate the runtime can use: known features, finite weights (``max_dense + 0.06*topic``)."""
    try:
        parse_feature(row["feature"])
    except ValueError as exc:
        raise _Malformed(f"{where}.feature", "", why=f"not a feature `unitrag calibrate` writes ({exc})") from None


def _number(owner: dict[str, Any], key: str, where: str, optional: bool = False) -> float | None:
    """``owner[key]`` as a finite float (a JSON integer is fine; a bool, text, inf or NaN is not); None for a null
    or missing ``optional`` one."""
    shown, value = f"{where}.{_key(key)}", owner.get(key)
    if value is None and optional:
        return None
    if key not in owner:
        raise _Malformed(shown, _NUMBER)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Malformed(shown, _NUMBER + (" or null" if optional else ""), value)
    number = float(value) if isinstance(value, float) or abs(value) < 2**1000 else math.inf  # a huge integer literal
    if not math.isfinite(number):
        raise _Malformed(shown, _NUMBER, number)
    return number


def _count(owner: dict[str, Any], key: str, where: str) -> None:
    """A count of labelled questions: a whole number from 0 to 2³¹ - 1, or null."""
    value = owner.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX_COUNT):
        raise _Malformed(f"{where}.{key}", "a whole number of questions or null", value)


def _key(key: str) -> str:
    """A key of the file as a message shows it: as written when it is a short plain word (``en``, ``en>zh``), else
    quoted with its escapes (a key may hold anything, terminal escape codes included)."""
    return key if _PLAIN_KEY.fullmatch(key) else json.dumps(key if len(key) <= 24 else key[:24] + "...")


def _object(value: Any, where: str) -> None:
    """Refuse anything but a JSON object."""
    if not isinstance(value, dict):
        raise _Malformed(where, "an object", value)


def _shown(value: Any) -> str:
    """A found value for a message: a number, null or bool as JSON writes it, text (shortened, escaped) in quotes,
    a list or an object by its kind."""
    if isinstance(value, float):
        return repr(value)  # inf, nan
    if isinstance(value, str):
        return "text " + json.dumps(value if len(value) <= 24 else value[:24] + "...")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**15:
        return f"an integer of {len(str(abs(value)))} digits"
    if isinstance(value, (bool, int)) or value is None:
        return json.dumps(value)
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__
