"""How many characters a template operation would make, computed without making it.

The bounded sandbox (``bounded_sandbox``) refuses an operation over the prompt budget
*before* it runs, so it needs each operation's size up front: a value's printed length
(walked without converting it: a list of a million references to one long string costs
the walk, not the copies), ``%`` and ``str.format`` with their widths, ``join``,
``replace``, padding, and the filters that multiply (``indent``, ``wordwrap``, ``tojson``...).
Each is an upper bound, cut short once past the limit it is given.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import chain
from string import Formatter
from typing import Any

from jinja2.sandbox import SecurityError
from jinja2.utils import Namespace

#: What a character of a string costs once a container is printed: ``repr`` and JSON escape up to 6 characters
#: for one (``\\u00e9``), plus quotes and a separator.
_NESTED_CHAR_COST = 6
_ITEM_COST = 4
_END = object()


class PromptTooLarge(SecurityError):
    """A template asked for more than its budget allows."""


def text_size(value: Any, limit: int, indent: int = 0) -> int:
    """About how many characters ``str(value)`` (or its JSON, or ``pprint``) has, at most; stops past ``limit``.

    Walks containers without recursion and without converting anything, so a list holding a
    million references to one long string costs the walk ``limit`` steps, not the string's copies.
    Strings inside containers count ``_NESTED_CHAR_COST`` per character (escapes), every item its
    separator and its indentation (``indent`` per level, at least 1, as ``pprint`` lines nest).
    """
    if isinstance(value, (str, bytes)):
        return len(value)
    total = 0
    stack: list[tuple[Iterator[Any], int]] = [(iter((value,)), 0)]  # each container's items, taken one at a time
    while stack and total <= limit:
        items, depth = stack[-1]
        item = next(items, _END)
        if item is _END:
            stack.pop()
            continue
        total += _ITEM_COST + depth * max(indent, 1)
        if isinstance(item, (str, bytes)):
            total += len(item) * _NESTED_CHAR_COST
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            total += int_digits(item)
        elif isinstance(item, Mapping):
            stack.append((chain.from_iterable(item.items()), depth + 1))
        elif isinstance(item, Namespace):
            stack.append((iter(object.__getattribute__(item, "_Namespace__attrs").values()), depth + 1))
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.append((iter(item), depth + 1))
        else:
            total += 60  # a float, an Undefined, a function's repr...
    return total


def int_digits(number: int) -> int:
    return number.bit_length() * 10 // 33 + 1  # log10(2) ~ 0.30103 < 10/33


_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0 +\-]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?(.)")


def percent_size(fmt: str, args: Any, limit: int) -> int:
    """An upper bound of ``len(fmt % args)``: each conversion's width or precision, or its widest argument."""
    values = list(args.values()) if isinstance(args, Mapping) else list(args) if isinstance(args, tuple) else [args]
    widest = max((text_size(v, limit) for v in values), default=0)
    numbers = [v for v in values if isinstance(v, int)]
    total = len(fmt)
    for match in _PERCENT_SPEC.finditer(fmt):
        width, precision, _ = match.groups()
        sizes = [int(x) if x.isdigit() else max(numbers, default=0) for x in (width, precision) if x]
        total += max([widest, *sizes]) + 2
    return total


def format_size(fmt: str, args: tuple[Any, ...], kwargs: Mapping[str, Any], limit: int) -> int:
    """An upper bound of ``fmt.format(*args, **kwargs)``: every field its widest argument or its spec's numbers."""
    widest = max((text_size(v, limit) for v in (*args, *kwargs.values())), default=0)
    total = len(fmt)
    for _, field, spec, _ in Formatter().parse(fmt):
        if field is None:
            continue
        if spec and "{" in spec:
            raise PromptTooLarge("a format width taken from an argument ('{:{}}') is not allowed in a prompt template")
        total += max([widest, *(int(n) for n in re.findall(r"\d+", spec or ""))])
    return total


def _joined_size(items: Iterable[Any], separator: Any, limit: int) -> int:
    """An upper bound of ``separator.join(map(str, items))``, stopping once past ``limit``."""
    total = -len(str(separator))
    for item in items:
        total += len(str(separator)) + text_size(item, limit)
        if total > limit:
            break
    return max(total, 0)


def _replaced_size(text: Any, old: Any, new: Any, count: Any = -1) -> int:
    text, old, new = str(text), str(old), str(new)
    found = text.count(old) if old else len(text) + 1
    if isinstance(count, int) and count >= 0:
        found = min(found, count)
    return len(text) + found * max(len(new) - len(old), 0)


# What a filter would make, before it runs (the value, then its arguments as written in the template).
def _join_estimate(limit: int, value: Any, d: Any = "", *_: Any, **__: Any) -> int:
    return _joined_size(value, d, limit) if isinstance(value, (list, tuple, str)) else 0


def _indent_estimate(limit: int, value: Any, width: Any = 4, *_: Any, **__: Any) -> int:
    pad = width if isinstance(width, int) else len(str(width))
    return text_size(value, limit) * (1 + pad)


def _wordwrap_estimate(limit: int, value: Any, width: Any = 79, break_long: Any = True, wrapstring: Any = None,
                       *_: Any, **kwargs: Any) -> int:
    wrap = kwargs.get("wrapstring", wrapstring)
    return text_size(value, limit) * (1 + len(str(wrap)) if wrap is not None else 2)


def _stringified_estimate(limit: int, value: Any, *args: Any, **kwargs: Any) -> int:
    indent = kwargs.get("indent", args[0] if args else 0)
    return text_size(value, limit, indent if isinstance(indent, int) else len(str(indent)))


FILTER_ESTIMATES: dict[str, Callable[..., int]] = {
    "join": _join_estimate,
    "replace": lambda limit, value, old="", new="", count=None, *_, **__: _replaced_size(
        value, old, new, -1 if count is None else count),
    "indent": _indent_estimate,
    "wordwrap": _wordwrap_estimate,
    "format": lambda limit, value, *args, **kwargs: percent_size(str(value), kwargs or tuple(args), limit),
    "tojson": _stringified_estimate,
    "pprint": _stringified_estimate,
    "string": _stringified_estimate,
    "xmlattr": _stringified_estimate,
    "urlencode": lambda limit, value, *_, **__: text_size(value, limit) * 3,
}


def _padded_size(limit: int, text: Any, width: Any = 0, *_: Any) -> int:
    return max(len(text), width if isinstance(width, int) else 0)


#: String (and bytes) methods whose result can be far larger than the string: the estimate of what they make.
METHOD_ESTIMATES: dict[str, Callable[..., int]] = {
    "center": _padded_size, "ljust": _padded_size, "rjust": _padded_size, "zfill": _padded_size,
    "expandtabs": lambda limit, text, tabsize=8, **_: len(text) + text.count("\t" if isinstance(text, str) else b"\t")
    * (tabsize if isinstance(tabsize, int) else 8),
    "replace": lambda limit, text, old, new, count=-1, *_: _replaced_size(text, old, new, count),
    "join": lambda limit, text, items, *_: _joined_size(items, text, limit),
}
