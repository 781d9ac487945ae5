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
