"""Errors meant for people: the CLI prints their message alone, no traceback."""

from __future__ import annotations


class UserError(Exception):
    """Something the user can fix (a flag, a path, a config key); the message says how."""


class ContentInvalid(UserError):
    """The content has problems; nothing was written (``outcome``: what the command did instead, said after them)."""

    # problems: list[Problem], untyped to keep this module dependency-free
    def __init__(self, problems: list, outcome: str = "nothing was written") -> None:
        self.problems = problems
        self.outcome = outcome
        super().__init__(f"{len(problems)} problem(s) in the content; {outcome}")


class Unavailable(UserError):
    """Something the request needs cannot be reached now (a published knowledge base's database down, or every
    pooled connection busy past the wait): nothing the caller did; try again (HTTP 503)."""


class InvalidArgument(UserError, ValueError):
    """A bad argument to the library (a question, ``k``, ``lang``, a user context): a ``ValueError`` to
    callers, one line from the CLI; the message names the argument."""


# -- a bad value in a message: never an error of its own ---------------------------------------------------


def huge_int_digits(value: object) -> int | None:
    """About how many digits a whole number has, when ``repr`` would refuse it (over 4,300 digits); else None."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 14_000:
        return int(value.bit_length() * 0.30103)
    return None


def type_name(value: object) -> str:
    """The name of a value's type, for a message; never raises (a metaclass may override ``__name__``)."""
    try:
        name = type(value).__name__
    except Exception:
        return "object"
    return name if isinstance(name, str) else "object"


def safe_repr(value: object) -> str:
    """``repr(value)``, or a stand-in when it cannot be had: a caller's ``__repr__`` that raises (or returns no
    string), an int too long for ``repr``. Formatting the message about a bad value must never raise in place of
    the error it reports: the caller would get their own exception, from inside unitrag, with no word of which
    argument or setting was wrong. The library's arguments (``rag.arguments``) and the config's settings
    (``config.shown_value``) both show bad values through it."""
    digits = huge_int_digits(value)
    if digits is not None:
        return f"<a whole number of about {digits:,} digits>"
    try:
        text = repr(value)
    except Exception:
        return f"<{type_name(value)} object whose repr() failed>"
    return text if isinstance(text, str) else f"<{type_name(value)} object>"
