"""Parsing author YAML: safe types only, no aliases, no key given twice.

Every YAML file the project reads from content (unit frontmatter, citations,
topics, guard rules, labelled questions) goes through ``load_yaml``. Aliases
(``*name``) are refused outright, not limited: a nine-line "billion laughs"
file expands into hundreds of millions of values, and every later step
(validation, error messages, line maps) would walk them all. Content has no
need for them: an author writes each value out, which also keeps every file
readable on its own. Anchors alone (``&name``) are harmless and allowed.

The check runs on the parser's event stream, which is linear in the text and
never expands anything, and is skipped when the text has no ``*`` at all.
"""

from __future__ import annotations

import re

from typing import Any

import yaml

from .files import CONTROL_CHARACTERS
from .problems import Problem

_BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: several times faster
ALIAS_MESSAGE = (
    "YAML aliases (*name) are not allowed in content: write the value out in full "
    "(an alias can expand a few lines into gigabytes)"
)


class Refused(yaml.YAMLError):
    """A YAML text the safe loader reads but content must not hold; ``problem`` says why and ``problem_mark`` is
    where, as for any YAML error (so ``yaml_problem`` reports it at its line)."""

    def __init__(self, problem: str, mark: yaml.Mark) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = mark


class AliasRefused(Refused):
    """The text uses a YAML alias."""

    def __init__(self, mark: yaml.Mark) -> None:
        super().__init__(ALIAS_MESSAGE, mark)


class DuplicateKey(Refused):
    """A mapping names the same key twice; the mark is the second one."""

    def __init__(self, key: Any, mark: yaml.Mark) -> None:
        super().__init__(f"{key!r} is given twice in one mapping: keep one (YAML would silently drop the first)", mark)


class ControlInValue(Refused):
    """A quoted value spells a control character as an escape (``"\\e[2J"``): the file's bytes are clean, the value
    is not, and it would reach every terminal that prints it (``ask``, ``search``) and every API client."""

    def __init__(self, char: str, mark: yaml.Mark) -> None:
        super().__init__(f"a value holds the control character U+{ord(char):04X} (written as an escape such as \\e, "
                         "\\x1b or \\u202e): remove it (only tab and newline are allowed in content)", mark)


class ValueRefused(Refused):
    """A value YAML can write but content never holds: a number of thousands of digits (Python refuses to read one
    past 4,300, which ended `validate` in a traceback), or bytes (``!!binary``) where text is expected."""


class _Loader(_BASE_LOADER):  # type: ignore[misc, valid-type]
    """The safe loader, refusing a key repeated in one mapping (``title: a`` then ``title: b``), a value holding a
    control character (``ControlInValue``), a number too long to read and ``!!binary`` bytes (``ValueRefused``)."""

    def construct_yaml_int(self, node: yaml.ScalarNode) -> Any:
        try:
            return super().construct_yaml_int(node)
        except ValueError:
            raise ValueRefused(f"a number of {len(node.value):,} characters: write a number of sensible size", node.start_mark) from None

    def construct_yaml_binary(self, node: yaml.ScalarNode) -> Any:
        raise ValueRefused("a !!binary value: content holds text, write it as text", node.start_mark)

    def construct_scalar(self, node: yaml.ScalarNode) -> Any:
        found = CONTROL_CHARACTERS.search(node.value) if isinstance(node.value, str) else None
        if found is not None:
            raise ControlInValue(found.group(), node.start_mark)
        return super().construct_scalar(node)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)  # type: ignore[no-untyped-call]
            try:
                repeated = key in seen
            except TypeError:  # an unhashable key: the base constructor reports it
                break
            if repeated:
                raise DuplicateKey(key, key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.add_constructor("tag:yaml.org,2002:binary", _Loader.construct_yaml_binary)
LOADER = _Loader


def refuse_aliases(text: str) -> None:
    """Raise ``AliasRefused`` at the first alias in ``text`` (a ``yaml.YAMLError`` on bad syntax)."""
    if "*" not in text:  # an alias is always spelt with a star
        return
    for event in yaml.parse(text, Loader=LOADER):
        if isinstance(event, yaml.AliasEvent):
            raise AliasRefused(event.start_mark)


def load_yaml(text: str) -> Any:
    """``yaml.safe_load`` of author text, refusing aliases first."""
    refuse_aliases(text)
    return yaml.load(text, Loader=LOADER)  # noqa: S506 - LOADER is a safe loader


#: What the author left open when the parser's context names it: the error is where it was opened, not where the
#: parser ran out of text looking for its end (an unclosed quote on line 6 is found at the end of the file).
_UNCLOSED = {
    "while scanning a quoted scalar": "a quoted value opened on this line is never closed: add the closing quote",
    "while parsing a flow sequence": "a '[' list opened on this line is not closed: add the ']' (or a missing ',')",
    "while parsing a flow mapping": "a '{' mapping opened on this line is not closed: add the '}' (or a missing ',')",
}


def _unclosed(exc: yaml.YAMLError) -> str | None:
    """What ``exc`` says was left open, when the parser gave up on a later line than the one it was opened on."""
    context, opened, gave_up = (getattr(exc, name, None) for name in ("context", "context_mark", "problem_mark"))
    if context not in _UNCLOSED or opened is None or gave_up is None or gave_up.line <= opened.line:
        return None
    return _UNCLOSED[context]


def yaml_error_line(exc: yaml.YAMLError, first_line: int = 1) -> int:
    """The line a YAML error points at (where an unclosed quote or bracket opened), shifted to the file's numbering."""
    marks = ("context_mark", "problem_mark") if _unclosed(exc) else ("problem_mark", "context_mark")
    mark = getattr(exc, marks[0], None) or getattr(exc, marks[1], None)
    return (mark.line + first_line) if mark is not None else first_line


#: A value that starts with a quote: after ``key:`` or a list's ``-``.
_QUOTED_VALUE = re.compile(r"""^\s*(?:-\s+|[^\s#'"][^#'"]*?:\s+)(["'])(.*)$""")
_CLOSES = {'"': re.compile(r'(?<!\\)(?:\\\\)*"'), "'": re.compile(r"'(?!')")}


def quote_left_open(text: str, before: int) -> int | None:
    """The first line (0-based) before line ``before`` whose value opens a quote it never closes on that line.

    YAML lets a quoted value run over lines, so the parser reads an unclosed ``title: "Grind: and time`` on to
    the next quote in the file and complains there; a value written over several lines in quotes is rare in a
    frontmatter or registry, a forgotten quote is not."""
    for i, line in enumerate(text.splitlines()[:before]):
        found = _QUOTED_VALUE.match(line)
        if found and not _CLOSES[found.group(1)].search(found.group(2).replace("''", "") if found.group(1) == "'"
                                                         else found.group(2)):
            return i
    return None


#: Full-width characters a Chinese input method types where YAML needs ASCII, each with the fix: at the start of a
#: line (indentation, a list's dash) or right after a key. YAML reads ``title："x"`` as one plain value and fails on a
#: later line, with a message that names neither the line nor the character.
_FULL_WIDTH = (
    (re.compile(r"^[ \t]*\u3000"), "indented with a full-width space (U+3000): indent with ASCII spaces"),
    (re.compile(r"^\s*[－—–]\s"), "a list item starts with a full-width dash '－': write '- ' (ASCII hyphen and space)"),
    (re.compile(r"^\s*(?:-\s+)?[^\s:：#'\"]+\s*："),
     "a key is followed by a full-width colon '：': write ': ' (ASCII colon and space)"),
    (re.compile(r"^[^#'\"]*[\[{][^\]}#'\"]*[］｝】]"),
     "a '[' or '{' is closed by a full-width bracket ('］', '｝' or '】'): write ']' or '}' (ASCII)"),
)


def full_width_syntax(text: str, before: int) -> tuple[int, str] | None:
    """The first line (0-based) up to line ``before`` where a full-width character stands for YAML syntax, and the fix."""
    for i, line in enumerate(text.splitlines()[:before + 1]):
        for pattern, fix in _FULL_WIDTH:
            if pattern.match(line):
                return i, fix
    return None


def yaml_problem(exc: yaml.YAMLError, shown: str, field: str, first_line: int = 1, text: str | None = None) -> Problem:
    """The problem an author sees for a YAML error: a refused alias, something left open, or the parser's complaint.

    ``text``: what was parsed, to find a quote left open on an earlier line than the one the parser names."""
    unclosed = _unclosed(exc)
    gave_up_at = getattr(getattr(exc, "problem_mark", None), "line", None)
    opened = quote_left_open(text, gave_up_at) if text is not None and gave_up_at is not None and unclosed is None \
        else None
    full_width = full_width_syntax(text, gave_up_at) if text is not None and gave_up_at is not None else None
    if isinstance(exc, (AliasRefused, DuplicateKey, ControlInValue)):
        message = exc.problem
    elif full_width is not None and (opened is None or full_width[0] <= opened):
        line, fix = full_width
        return Problem(shown, line + first_line, field, f"YAML syntax error: {fix} (the parser read on to line "
                                                        f"{gave_up_at + first_line}: {getattr(exc, 'problem', None)})")
    elif opened is not None:
        message = (f"YAML syntax error: a quoted value opened on this line is not closed on it: add the closing quote "
                   f"(the parser read on to line {gave_up_at + first_line}: {getattr(exc, 'problem', None)})")
        return Problem(shown, opened + first_line, field, message)
    elif unclosed is not None:
        gave_up = exc.problem_mark.line + first_line  # type: ignore[attr-defined]
        message = f"YAML syntax error: {unclosed} (the parser read on to line {gave_up}: {exc.problem})"  # type: ignore[attr-defined]
    else:
        message = f"YAML syntax error: {getattr(exc, 'problem', None) or str(exc).splitlines()[0]}"
        if _tab_at(exc, text):
            message += " (a tab: YAML indents with spaces only; replace the tab with spaces)"
    return Problem(shown, yaml_error_line(exc, first_line), field, message)


def _tab_at(exc: yaml.YAMLError, text: str | None) -> bool:
    """Whether the parser stopped at a tab: its "cannot start any token" never says the character is one."""
    mark = getattr(exc, "problem_mark", None)
    if text is None or mark is None:
        return False
    lines = text.split("\n")
    line = lines[mark.line] if 0 <= mark.line < len(lines) else ""
    return line[mark.column:mark.column + 1] == "\t"
