"""mkdocs hook: the CLI page's reference, rendered from the typer app at build time (offline, no subprocess).

docs/cli.md holds the marker ``<!-- cli-reference -->``; this hook replaces it with one section per command:
its ``--help`` exactly as ``unitrag COMMAND --help`` prints it, so the page cannot drift from the code.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
import typer

ROOT = Path(__file__).resolve().parents[2]  # the repository: unitrag imports from here, installed or not

MARKER = "<!-- cli-reference -->"
WIDTH = 100  # the help's line width, as on a 100-column terminal


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ANN001 (mkdocs' hook signature)
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render())


def render() -> str:
    """Every command's help, in the order ``unitrag --help`` lists them."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from unitrag.cli import make_app

    group = typer.main.get_command(make_app())
    root = click.Context(group, info_name="unitrag", terminal_width=WIDTH, max_content_width=WIDTH)
    parts = ["```text", "$ unitrag --help", group.get_help(root), "```", ""]
    for name in group.list_commands(root):
        command = group.get_command(root, name)
        context = click.Context(command, info_name=name, parent=root, terminal_width=WIDTH, max_content_width=WIDTH)
        parts += [f"### unitrag {name}", "", "```text", f"$ unitrag {name} --help", command.get_help(context), "```", ""]
    return "\n".join(parts)
