"""`unitrag init DIR`: scaffold a new knowledge base."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..scaffold import init_knowledge_base
from .output import out


def register(app: typer.Typer) -> None:
    app.command("init")(init_cmd)


def init_cmd(
    directory: Annotated[Path, typer.Argument(help="The folder to create; it must be new or empty.")],
) -> None:
    """Scaffold a knowledge base: one unit of each kind, registries, questions, prompts, config, CI workflows."""
    written = init_knowledge_base(directory)
    out.print(f"created {directory} ({len(written)} files); next:")
    out.print(f"  cd {directory} && unitrag validate && unitrag build && unitrag ask \"How much water should adults drink per day?\"",
              markup=False, highlight=False)
