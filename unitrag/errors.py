"""Errors meant for people: the CLI prints their message alone, no traceback."""

from __future__ import annotations


class UserError(Exception):
    """Something the user can fix (a flag, a path, a config key); the message says how."""


class ContentInvalid(UserError):
    """The content has problems; nothing was written."""

    def __init__(self, problems: list) -> None:  # list[Problem]; untyped to keep this module dependency-free
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) in the content; nothing was written")


class InvalidArgument(UserError, ValueError):
    """A bad argument to the library (a question, ``k``, ``lang``, a user context): a ``ValueError`` to
    callers, one line from the CLI; the message names the argument."""
