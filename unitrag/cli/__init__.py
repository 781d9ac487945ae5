"""The ``unitrag`` command: a thin shell over the library (parse, call, print).

Only the standard library is imported here, at import time: ``main`` imports the rest (typer, rich, the command's
module) inside its own guard, so a Ctrl-C in the first fraction of a second is the same one line and exit 130 as one
later, never a traceback through the imports.
"""

import logging
import signal
import sys
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

#: The modules that register commands, in help order, and the commands each defines: a command line imports
#: only its command's module (`unitrag build` never loads the PostgreSQL publisher or the runtime, ~0.5 s);
#: help, --version and an unknown name load them all.
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "build_cmds": ("validate", "build", "schema", "inspect"),
    "query_cmds": ("search", "ask"),
    "eval_cmds": ("eval",),
    "calibrate_cmd": ("calibrate",),
    "publish_cmds": ("publish",),
    "init_cmd": ("init",),
    "serve_cmd": ("serve",),
}

#: What a Ctrl-C leaves behind, said on the way out (exit 130): a command not named here writes no artifact.
INTERRUPTED = "interrupted: the previous artifact is unchanged"
INTERRUPTED_BY_COMMAND: dict[str, str] = {
    "serve": "interrupted: the server did not start",  # a started server stops on Ctrl-C quietly, exit 0
    # a publish switches readers over in its last transaction only (docs/deployment.md)
    "publish": "interrupted: readers still see the last complete publish; run publish again to complete this one",
}


def make_app(command: "str | None" = None) -> "typer.Typer":
    """The ``unitrag`` command group: every command, or only those of the module defining ``command``."""
    import typer

    # rich_markup_mode=None: help texts print as written (rich markup would swallow "[config: artifact]")
    app = typer.Typer(
        name="unitrag", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
        rich_markup_mode=None, help="Typed Markdown knowledge units → one DuckDB artifact → cited, checked answers.",
    )
    app.callback()(_root_callback())
    owner = [module for module, commands in COMMAND_MODULES.items() if command in commands]
    for module in owner or COMMAND_MODULES:
        import_module(f"{__name__}.{module}").register(app)
    return app


def __getattr__(name: str) -> Any:
    """``app``: the group with every command (what tests and ``typer.testing`` drive)."""
    if name == "app":
        globals()["app"] = full = make_app()
        return full
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version as package_version  # ~0.1 s to import: only for --version

        import typer

        print(f"unitrag {package_version('unitrag')}")
        raise typer.Exit()


def _root_callback() -> Any:
    """The group's own options (--version), made once typer is imported: this module must not import it up front,
    and the annotations are evaluated here (no ``from __future__ import annotations``) so typer can read them."""
    from typing import Annotated

    import typer

    def _root(
        version: Annotated[bool, typer.Option(
            "--version", "-V", callback=_print_version, is_eager=True, help="Print the installed unitrag version and exit.")] = False,
    ) -> None:
        """The group's own options (--version); the app's help above is what users see."""

    return _root


def interrupted_message(command: "str | None") -> str:
    """The one line a Ctrl-C ends ``command`` with: true for what that command was doing."""
    return INTERRUPTED_BY_COMMAND.get(command or "", INTERRUPTED)


def caused_by_interrupt(exc: BaseException) -> bool:
    """An error that a Ctrl-C caused: a C extension interrupted while it initialises turns the KeyboardInterrupt into
    ``ImportError: initialization failed`` raised from it (``import duckdb``), which is an interruption, not a bug."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def defer_hangup() -> None:
    """``serve``: hold SIGHUP (blocked, so pending, not lost) until the server can reload on it. Its default action
    kills the process, and the reload handler exists only once the knowledge base is open; a deploy that sends HUP
    while the server starts must not take it down (``unitrag.serve.app`` releases it after start-up, and worker
    processes inherit the blocked mask)."""
    if hasattr(signal, "pthread_sigmask") and hasattr(signal, "SIGHUP"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})


def main() -> None:
    """Console entry point: user errors become one readable message and exit 1, never a traceback; a Ctrl-C at any
    moment (even in the imports) is one line and exit 130."""
    command = sys.argv[1] if len(sys.argv) > 1 else None
    if command == "serve":
        defer_hangup()
    try:
        code = _run(command)
    except KeyboardInterrupt:
        code = 130
    except Exception as exc:
        if not caused_by_interrupt(exc):
            raise
        code = 130
    if code == 130:
        print(interrupted_message(command), file=sys.stderr)
    sys.exit(code)


class _WarningLines(logging.Handler):
    """The library's warnings as the command line says its own ("warning: …" on stderr, read when written): with no
    handler Python printed the bare message ("no answerability gate fitted on …") under the command's output."""

    def emit(self, record: logging.LogRecord) -> None:
        print(f"{record.levelname.lower()}: {record.getMessage()}", file=sys.stderr)


def show_library_warnings(command: "str | None") -> None:
    """``serve`` logs through its server's handlers; every other command prints the library's warnings as lines."""
    logger = logging.getLogger("unitrag")
    if command != "serve" and not any(isinstance(h, _WarningLines) for h in logger.handlers):
        handler = _WarningLines(logging.WARNING)
        logger.addHandler(handler)


def _run(command: "str | None") -> int:
    """The command line run: its exit status, after printing a user error or a usage error as the user sees it."""
    import typer

    show_library_warnings(command)

    from ..errors import ContentInvalid, UserError
    from .output import print_problems
    from .path_arguments import empty_path_message

    empty = empty_path_message(sys.argv[1:])
    if empty is not None:  # a Path of "" is ".": the command would read the current folder
        print(f"error: {empty}", file=sys.stderr)
        return 2
    try:
        # typer returns (not raises) the exit code of typer.Exit, and turns Ctrl-C into 130
        code = make_app(command)(standalone_mode=False)
    except ContentInvalid as exc:
        print_problems(exc.problems, exc.outcome)
        return 1
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except typer.Abort:
        print("aborted", file=sys.stderr)
        return 1
    except Exception as exc:  # a KeyboardInterrupt is no Exception: it reaches ``main``
        # usage errors (typer vendors click, so match the shape, not the class): one line, exit 2
        if hasattr(exc, "show") and isinstance(getattr(exc, "exit_code", None), int) and not caused_by_interrupt(exc):
            from .usage import asks_for_help, usage_message

            if asks_for_help(exc):
                exc.show()
            else:
                known = any(command in commands for commands in COMMAND_MODULES.values())
                print(f"error: {usage_message(exc, command if known else None, sys.argv[2:])}", file=sys.stderr)
            return exc.exit_code
        raise
    return code if isinstance(code, int) else 0
