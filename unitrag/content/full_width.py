"""Full-width characters typed where a field wants ASCII, and what to write instead.

A Chinese input method types ``７０``, ``［a］``, ``＞`` or ``ｓｔａｆｆ`` for ``70``, ``[a]``, ``>`` and
``staff``. YAML reads them as text, so the field's schema fails with a message about the type (``Input should be a
valid list``) that never names the character the author cannot tell from the ASCII one. A value that fails its field
and holds one is told which characters are full-width and what the value is in ASCII.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import yaml

from .safe_yaml import load_yaml

#: The full-width forms of ASCII (U+FF01 ``！`` to U+FF5E ``～``), the ideographic space, and the brackets and
#: enumeration comma an input method types for the ``[``, ``]`` and ``,`` keys.
_ASCII = {chr(code): chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)} | {"\u3000": " ", "【": "[", "】": "]",
                                                                             "、": ","}
#: What separates the items of a list when one is typed full-width inside an item (``[repairs，contract]`` is one item).
SEPARATORS = {"，": "comma", "：": "colon", "、": "enumeration comma", "；": "semicolon"}
#: The longest value a fix spells out in ASCII; past it, only the characters are named.
_SHOWN_CHARS = 80
#: What YAML reads an ASCII value as, where that is not text: why the full-width one failed.
_READ_AS = ((bool, "true or false"), ((int, float), "a number"), (list, "a list"), (dict, "a mapping"), (date, "a date"))


def to_ascii(text: str) -> str:
    """``text`` with every full-width character as the ASCII one it stands for."""
    return "".join(_ASCII.get(char, char) for char in text)


def full_width_chars(text: str) -> list[str]:
    """The full-width characters of ``text``, each once, in order."""
    return list(dict.fromkeys(char for char in text if char in _ASCII))


def described(chars: list[str]) -> str:
    """How a message names ``chars``: ``in full-width digits``, ``with the full-width '［' and '］'``."""
    classes = [name for name, test in (("letters", str.isalpha), ("digits", str.isdigit))
               if any(test(_ASCII[c]) for c in chars)]
    others = [c for c in chars if not _ASCII[c].isalnum()]
    named = f"with the full-width {_listed(others)}" if others else ""
    if not classes:
        return named
    return f"in full-width {' and '.join(classes)}" + (f", {named}" if named else "")


def full_width_fix(value: Any, item: bool = False) -> str | None:
    """What to tell an author whose failing ``value`` holds full-width characters, after the value (``'７０' is written
    in full-width digits (…): write 70``); None when it holds none. ``item``: the value is an item of a list, where a
    full-width comma means two items were meant."""
    chars = full_width_chars(value) if isinstance(value, str) else []
    if not chars:
        return None
    separator = next((c for c in chars if c in SEPARATORS), None) if item else None
    if separator is not None:
        return f"holds a full-width {SEPARATORS[separator]} '{separator}'; YAML separates items with an ASCII ', ' ([a, b])"
    written = to_ascii(value)
    others = [_ASCII[c] for c in chars if not _ASCII[c].isalnum()]
    ascii_named = f" (ASCII {_listed(others)})" if others else ""
    if len(written) > _SHOWN_CHARS:
        return f"is written {described(chars)}: write it in ASCII{ascii_named}"
    spelled, read_as = _as_yaml(written)
    why = f" (YAML reads it as text, not {read_as})" if read_as else ""
    return f"is written {described(chars)}{why}: write {spelled}{ascii_named}"


def _as_yaml(written: str) -> tuple[str, str | None]:
    """``written`` as an author types it for YAML to read it back (quoted where YAML would read it otherwise:
    ``">"``), and what YAML reads it as where that is not text."""
    try:
        read = load_yaml(written)
    except yaml.YAMLError:
        read = None
    for types, name in _READ_AS:
        if isinstance(read, types):
            return written, name
    if read == written:
        return written, None
    return json.dumps(written, ensure_ascii=False), None


def _listed(chars: list[str]) -> str:
    quoted = [f"'{c}'" for c in chars]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"
