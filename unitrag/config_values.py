"""How a setting's value is read and said: a config file's tables and TOML types, numbers within their range.

Shared by the loaders of ``[unitrag]`` (``config``), ``[serve]`` (``serve.settings``) and ``[publish]``: each reads
its own table, and what a value must be, and how a message shows it, is said once here.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, Callable

from .errors import UserError, huge_int_digits, safe_repr

#: The tables a config file may hold, each read by its own loader: the settings here, the server's
#: (``serve.settings``) and the publish's index settings (``postgres.settings``).
TABLES = ("unitrag", "serve", "publish")


def check_tables(file: Path, data: dict[str, Any]) -> None:
    """Every top-level table one of ``TABLES``, and no setting outside ``[unitrag]`` when the file has one: a typo
    (``[servve]``) or a key above the table was read by no loader, silently, while a wrong key inside one is refused.
    Without ``[unitrag]`` the top-level keys are the settings, and ``_coerce`` names an unknown one."""
    for name, value in data.items():
        if name in TABLES:
            if not isinstance(value, dict):
                raise UserError(f"{file}: [{name}] must be a table ([{name}] on a line of its own, its keys below)")
        elif isinstance(value, dict):
            near = difflib.get_close_matches(name, TABLES, n=1, cutoff=0.6)
            hint = f"did you mean [{near[0]}]? " if near else ""
            raise UserError(f"{file}: unknown table [{name}]: {hint}(the tables are "
                            f"{', '.join(f'[{t}]' for t in TABLES)})")
        elif "unitrag" in data:
            raise UserError(f"{file}: {name!r} is outside any table, and no loader reads it: move it under [unitrag] "
                            "(or the table it belongs to)")


def shown_value(value: Any, limit: int = 60) -> str:
    """A setting's value for a message, cut short; never raises (``repr`` of an int of over 4,300 digits does, and so
    may an object's own ``__repr__``, handed to ``Config.with_overrides``)."""
    digits = huge_int_digits(value)
    if digits is not None:
        return f"a number of about {digits:,} digits"
    text = safe_repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def whole_number(value: Any) -> int | None:
    """An int, or a string of ASCII digits as one (``UNITRAG_FINAL_K=5``), else None. Other digits (``"²"``, which
    ``str.isdigit`` takes and ``int`` refuses) and strings too long for ``int`` (over 4,300 digits) are None, never
    a traceback; a string of more than 30 digits reads as a number past every bound."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        digits = value.strip()
        return int(digits) if len(digits) <= 30 else 10 ** 30
    return None


def bounded_number(key: str, value: Any, limits: dict[str, tuple[int | float, str]], where: str, *, whole: bool,
                   low: int | None) -> int | float:
    """``value`` (a number, or an environment variable's text of one) as a number from ``low`` (None: above 0) to
    ``key``'s bound in ``limits``, or one UserError naming ``where`` and saying that whole range and why:
    "expected a non-negative number" for ``workers = 0`` hid that the range is 1 to 64."""
    bound, why = limits[key]
    number = whole_number(value) if whole else _float(value)
    if number is not None and number <= bound and (number > 0 if low is None else number >= low):  # nan: never
        return number
    positive = "positive " if low is None or low > 0 else ""
    span = f"above 0, at most {_said(bound)}" if low is None else f"{_said(low)} to {_said(bound)}"
    raise UserError(f"{where}: expected a {positive}{'whole' if whole else 'finite'} number ({span}: {why}), "
                    f"got {shown_value(value)}")


def _float(value: Any) -> float | None:
    """A number, or the text of one, as a float (``"1e999"``: inf, out of every range); else None (``True`` too)."""
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


def _said(number: int | float) -> str:
    """A bound as a reader writes it: 1,024, 100, 86,400."""
    return f"{int(number) if float(number).is_integer() else number:,}"


#: How a file's value of each setting type is checked, said, and fixed when it is a string. A TOML value is typed:
#: batch_size = "16", or one string where a list belongs, is a mistake in the file (the environment's text is parsed
#: on purpose, a file's never). A list's items, and text settings, are their loader's to check.
TOML_KINDS: dict[str, tuple[Callable[[Any], bool], str, str]] = {
    "int": (lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number", "write it without quotes"),
    "float": (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "a number", "write it without quotes"),
    "bool": (lambda v: isinstance(v, bool), "true or false", "write it without quotes"),
    "tuple[str, ...]": (lambda v: isinstance(v, list), "a list", 'write a list, even of one: ["..."]'),
    "table": (lambda v: isinstance(v, dict), "a table", "give it its own [section] header, its entries below"),
}


def check_toml_types(section: dict[str, Any], kinds: dict[str, str], where: Callable[[str], str]) -> None:
    """Each value of a config file's table of the TOML type its setting takes (``TOML_KINDS``), or one UserError
    naming ``where(key)``, the type expected and, for a string, how to write it; unknown keys are the loader's."""
    for key, value in section.items():
        if kinds.get(key) not in TOML_KINDS:
            continue
        check, expected, fix = TOML_KINDS[kinds[key]]
        if not check(value):
            how = f": {fix}" if isinstance(value, str) else ""
            # a string where a table belongs is not shown: [serve.api_keys]'s may be a key pasted whole
            got = toml_type(value, shown=kinds[key] != "table")
            raise UserError(f"{where(key)}: expected {expected} in the config file, got {got}{how}")


def toml_type(value: Any, shown: bool = True) -> str:
    """What a config file's value is, for a message: a string is shown when ``shown``, any other value named."""
    if isinstance(value, str):
        return f"the string {shown_value(value)}" if shown else "a string"
    names = {bool: "a boolean", int: "a whole number", float: "a number", list: "a list", dict: "a table"}
    return next((said for kind, said in names.items() if isinstance(value, kind)), f"a {type(value).__name__}")
