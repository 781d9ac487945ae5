"""`unitrag init DIR`: scaffold a new knowledge base."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..access import ROLE_SPELLING
from ..errors import UserError
from ..scaffold import check_target, init_knowledge_base
from ..scaffold.identity import TEMPLATE_ROLE, KnowledgeBaseIdentity, default_name
from ..scaffold.install import InstallChoice, install_choice
from ..scaffold.starter import starter_question
from .output import err, out


def register(app: typer.Typer) -> None:
    app.command("init")(init_cmd)


def init_cmd(
    directory: Annotated[Path, typer.Argument(help="The folder to create; it must be new or empty.")],
    install: Annotated[str | None, typer.Option(
        "--install", help="The pip requirement the workflows install unitrag with: \"unitrag==X\" (a release), "
                          "\"unitrag @ git+https://...@vX\" or the relative path of a wheel you commit "
                          "[default: where the running unitrag came from].")] = None,
    name: Annotated[str | None, typer.Option(
        "--name", help="What the knowledge base is called; the prompts and the page say it [default: asked on a "
                       "terminal, else from the folder's name].")] = None,
    description: Annotated[str | None, typer.Option(
        "--description", help="One sentence on what it covers, for the prompts and the page [default: asked on a "
                              "terminal, else none].")] = None,
    languages: Annotated[str | None, typer.Option(
        "--languages", help="The languages its units are written in, main one first: en, zh or both; the starter "
                            "units and the suggested question are in the main one (zh,en: Chinese) "
                            "[default: asked on a terminal, else en,zh].")] = None,
    restricted_role: Annotated[str | None, typer.Option(
        "--restricted-role", metavar="NAME",
        help=f"The role that reads the units not meant for everyone (restricted_role in unitrag.toml; units say "
             f"`access: NAME`, API keys grant it): {ROLE_SPELLING} [default: {TEMPLATE_ROLE}].")] = None,
) -> None:
    """Scaffold a knowledge base: one unit of each kind, registries, questions, prompts, config, CI workflows."""
    choice = install_choice(install)
    check_target(directory)  # before any question: a refused folder must not cost the answers
    identity = _identity(directory, name, description, languages, restricted_role)
    written = init_knowledge_base(directory, install=choice.requirement, identity=identity)
    out.print(f"created {directory} ({len(written)} files): the units marked `starter: true` are examples to replace; next:")
    question = starter_question(identity.languages[0])  # in the main language, as the starter units are written
    out.print(f"  cd {directory} && unitrag validate && unitrag build && unitrag ask \"{question}\"",
              markup=False, highlight=False)
    _print_install(choice)


def _identity(directory: Path, name: str | None, description: str | None,
              languages: str | None, restricted_role: str | None) -> KnowledgeBaseIdentity:
    """The flags, with what is missing asked on a terminal (a script or CI gets the defaults, never a prompt)."""
    asking = sys.stdin.isatty()
    if name is None:
        name = typer.prompt("Name of the knowledge base", default=default_name(directory)) if asking else default_name(directory)
    if description is None:
        description = typer.prompt("What it covers, in one sentence", default="", show_default=False) if asking else ""
    if languages is None and asking:
        languages = typer.prompt("Languages of its units, main one first (en, zh, en,zh or zh,en)", default="en,zh")
    try:
        return KnowledgeBaseIdentity.checked(name, description, languages, restricted_role)
    except UserError as exc:  # the config's words ("config key 'languages'") named as the option typed here
        raise UserError(re.sub(r"^config key '(name|description|languages|restricted_role)'",
                               lambda m: "--" + m.group(1).replace("_", "-"), str(exc))) from None


def _print_install(choice: InstallChoice) -> None:
    """Which install line the workflows got, why, and how to change it: nothing publishes unitrag by itself."""
    out.print(f'workflows install unitrag with: pip install "{choice.requirement}" ({choice.origin})',
              markup=False, highlight=False, soft_wrap=True)
    if not choice.reachable:
        err.print("[yellow]warning:[/] a CI runner may not install that version: pass --install (a release, "
                  "\"unitrag @ git+https://...@vX\", or a wheel committed in the knowledge base)", soft_wrap=True)
    out.print("  to change it: `unitrag init --install REQUIREMENT`, or edit the \"Install unitrag\" step of "
              ".github/workflows/content-pr.yml and build-main.yml", markup=False, highlight=False, soft_wrap=True)
