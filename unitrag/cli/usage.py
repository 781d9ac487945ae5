"""A command line the parser cannot read (an unknown option, a missing or extra argument, a value of the wrong type):
one line naming what is wrong and what to do, like every other error of the CLI, and not click's usage block.

typer vendors click (an older typer uses click itself), so its errors are told apart by their shape, not their class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..content.problems import printable


def asks_for_help(exc: Exception) -> bool:
    """``unitrag`` alone: click raises its help as a usage error, and the help is what should print."""
    return type(exc).__name__ == "NoArgsIsHelpError"


def usage_message(exc: Exception, command: str | None, args: Sequence[str]) -> str:
    """What is wrong with ``unitrag COMMAND ARGS`` and what to do, on one line (without ``error: ``, which the caller
    adds as it does to every error). ``command`` is None for the group's own errors (an unknown command)."""
    where, help_hint = (f"{command}: ", f"run 'unitrag {command} --help'") if command else ("", "run 'unitrag --help'")
    option = getattr(exc, "option_name", None)
    if hasattr(exc, "possibilities") and isinstance(option, str):  # no such option
        near = list(getattr(exc, "possibilities", None) or ()) or _named_so_elsewhere(exc, option)  # nearest first
        if near:
            return printable(f"{where}no such option {option}: did you mean {' or '.join(near)}? ({help_hint})")
        argument = _argument_written_as(exc, option, args) if command else None
        if argument:  # `ask -x`: the question, not a flag
            return printable(f"{where}no such option {option}: a {argument} that starts with '-' goes after '--', "
                             f"which ends the options: unitrag {command} -- \"{option} ...\"")
        return printable(f"{where}no such option {option} ({help_hint})")
    return printable(f"{where}{_what(exc)} ({help_hint})")


#: Options other tools name so, and what this command names them (where it has that option): "--role instructor" is
#: what a new team typed to ask as its restricted role.
_NAMED_SO_ELSEWHERE = {
    "--role": "--restricted", "--roles": "--restricted", "--staff": "--restricted", "--as": "--restricted",
    "--user": "--user-context", "--context": "--user-context", "--language": "--lang", "--artifact": "--kb",
    "--db": "--kb", "--model": "--llm", "--question": "--questions", "--file": "--questions",
}


def _named_so_elsewhere(exc: Exception, option: str) -> list[str]:
    """This command's name for an option another tool names ``option`` (``_NAMED_SO_ELSEWHERE``), when it has one."""
    ours = _NAMED_SO_ELSEWHERE.get(option.split("=", 1)[0].lower())
    command = getattr(getattr(exc, "ctx", None), "command", None)
    known = {name for param in getattr(command, "params", ()) for name in getattr(param, "opts", ())}
    return [ours] if ours in known else []


def _what(exc: Exception) -> str:
    """The parser's own words, as a clause: a bad value led by the option it was given to (``--k: ...``), as the
    library's errors about a value are."""
    name, message = _given_to(exc), getattr(exc, "message", None)
    if name and isinstance(message, str) and message and not hasattr(exc, "param_type"):  # param_type: a missing one
        return f"{name}: {_clause(message)}"
    return _clause(exc.format_message() if hasattr(exc, "format_message") else str(exc))


def _given_to(exc: Exception) -> str | None:
    """The option (or argument) a bad value was given to, else None (not an error about one value)."""
    hint = getattr(exc, "param_hint", None)
    if isinstance(hint, str):
        return hint.strip("'")
    if hint:
        return str(hint[0])
    opts = getattr(getattr(exc, "param", None), "opts", None)
    return str(opts[0]) if opts else None


def _clause(text: str) -> str:
    """``Missing argument 'question'.`` as it reads after a colon: no capital (an acronym kept), no full stop."""
    text = text.strip().removesuffix(".")
    return text[0].lower() + text[1:] if len(text) > 1 and text[1].islower() else text


def _argument_written_as(exc: Exception, option: str, args: Sequence[str]) -> str | None:
    """The name of the command's required argument that ``option`` stands in the place of (``unitrag ask -x``: the
    question), else None: the command line parsed again with unknown options taken as words, as after ``--``."""
    ctx: Any = getattr(exc, "ctx", None)
    command = getattr(ctx, "command", None)
    # a required one: in an optional one's place (`inspect -x`) a flag mistyped is likelier than a path
    names = [p.name for p in getattr(command, "params", ())
             if getattr(p, "param_type_name", None) == "argument" and getattr(p, "required", False)]
    if not names:
        return None
    try:
        parsed = command.make_context(ctx.info_name, list(args), resilient_parsing=True, ignore_unknown_options=True)
    except Exception:  # a hint only: without it the line still says what is wrong
        return None
    return next((name for name in names if str(parsed.params.get(name) or "").startswith(option)), None)
