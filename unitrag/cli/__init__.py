"""The ``unitrag`` command: a thin shell over the library (parse, call, print)."""

from __future__ import annotations

import sys
from importlib.metadata import version as package_version
from typing import Annotated

import typer

from ..errors import ContentInvalid, UserError
from . import build_cmds, eval_cmds, init_cmd, publish_cmds, query_cmds, serve_cmd
from .output import print_problems

# rich_markup_mode=None: help texts print as written (rich markup would swallow "[config: artifact]")
app = typer.Typer(
    name="unitrag", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
    rich_markup_mode=None, help="Typed Markdown knowledge units → one DuckDB artifact → cited, checked answers.",
)


def _print_version(value: bool) -> None:
    if value:
        print(f"unitrag {package_version('unitrag')}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True, help="Print the installed unitrag version and exit.")] = False,
) -> None:
    """The group's own options (--version); the app's help above is what users see."""


build_cmds.register(app)
query_cmds.register(app)
eval_cmds.register(app)
publish_cmds.register(app)
init_cmd.register(app)
serve_cmd.register(app)


def main() -> None:
    """Console entry point: user errors become one readable message and exit 1, never a traceback."""
    try:
        # typer returns (not raises) the exit code of typer.Exit, and turns Ctrl-C into 130
        code = app(standalone_mode=False)
    except ContentInvalid as exc:
        print_problems(exc.problems)
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
