"""The ``unitrag`` command: a thin shell over the library (parse, call, print)."""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Annotated, Any

import typer

from ..errors import ContentInvalid, UserError
from .output import print_problems

#: The modules that register commands, in help order, and the commands each defines: a command line imports
#: only its command's module (`unitrag build` never loads the PostgreSQL publisher or the runtime, ~0.5 s);
#: help, --version and an unknown name load them all.
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "build_cmds": ("validate", "build", "schema", "inspect"),
    "query_cmds": ("search", "ask"),
    "eval_cmds": ("eval", "calibrate"),
    "publish_cmds": ("publish",),
    "init_cmd": ("init",),
    "serve_cmd": ("serve",),
}


def make_app(command: str | None = None) -> typer.Typer:
    """The ``unitrag`` command group: every command, or only those of the module defining ``command``."""
    # rich_markup_mode=None: help texts print as written (rich markup would swallow "[config: artifact]")
    app = typer.Typer(
        name="unitrag", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
        rich_markup_mode=None, help="Typed Markdown knowledge units → one DuckDB artifact → cited, checked answers.",
    )
    app.callback()(_root)
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

        print(f"unitrag {package_version('unitrag')}")
        raise typer.Exit()


def _root(
    version: Annotated[bool, typer.Option(
        "--version", "-V", callback=_print_version, is_eager=True, help="Print the installed unitrag version and exit.")] = False,
) -> None:
    """The group's own options (--version); the app's help above is what users see."""


def main() -> None:
    """Console entry point: user errors become one readable message and exit 1, never a traceback."""
    try:
        # typer returns (not raises) the exit code of typer.Exit, and turns Ctrl-C into 130
        code = make_app(sys.argv[1] if len(sys.argv) > 1 else None)(standalone_mode=False)
    except ContentInvalid as exc:
        print_problems(exc.problems, exc.outcome)
        sys.exit(1)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("interrupted: the previous artifact is unchanged", file=sys.stderr)
        sys.exit(130)
    except typer.Abort:
        print("aborted", file=sys.stderr)
        sys.exit(1)
    except Exception as exc:
        # usage errors (typer vendors click, so match the shape, not the class)
        if hasattr(exc, "show") and isinstance(getattr(exc, "exit_code", None), int):
            exc.show()
            sys.exit(exc.exit_code)
        raise
    if code == 130:
        print("interrupted: the previous artifact is unchanged", file=sys.stderr)
    sys.exit(code if isinstance(code, int) else 0)
