"""``unitrag init``: a new knowledge base that validates and builds as created.

The template (package data under ``template/``) holds one unit of each kind, the registries,
labelled questions, ``unitrag.toml``, this project's prompts and its two content workflows, so a
new user starts from files that already pass ``unitrag validate`` and ``unitrag build``.
Names that start with a dot are stored without it (package-data globs skip dotfiles).
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

from ..errors import UserError

TEMPLATE = Path(__file__).parent / "template"
DOTTED = {"gitignore": ".gitignore", "github": ".github"}  # first path part as stored → as written
# The workflows are this repository's own (a test keeps them identical); a knowledge base has no
# source tree to install from, so it installs the released package instead.
INSTALL_FROM_SOURCE = "pip install -e ."


def template_files() -> list[Path]:
    """Every file of the template, relative to it, as stored."""
    return sorted(p.relative_to(TEMPLATE) for p in TEMPLATE.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def destination(stored: Path) -> Path:
    """Where a stored template file goes in the new knowledge base."""
    return Path(DOTTED.get(stored.parts[0], stored.parts[0]), *stored.parts[1:])


def init_knowledge_base(target: Path) -> list[Path]:
    """Write the template into ``target`` (new or empty); returns the files written, relative to it.

    Refuses anything else, so it never overwrites a file someone wrote."""
    if target.exists() and not target.is_dir():
        raise UserError(f"{target} exists and is not a folder: give unitrag init a new or empty folder")
    if target.is_dir() and any(target.iterdir()):
        raise UserError(f"{target} is not empty: unitrag init writes only into a new or empty folder, to overwrite nothing")
    written = []
    for stored in template_files():
        relative = destination(stored)
        text = (TEMPLATE / stored).read_text(encoding="utf-8")
        if relative.parts[:2] == (".github", "workflows"):
            text = pin_install(text)
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(relative)
    return written


def pin_install(workflow: str) -> str:
    """A workflow of this repository, installing the running unitrag release instead of the source tree."""
    if INSTALL_FROM_SOURCE not in workflow:
        raise AssertionError(f"template workflow without {INSTALL_FROM_SOURCE!r}: the scaffold cannot pin unitrag")
    return workflow.replace(INSTALL_FROM_SOURCE, f'pip install "unitrag=={version("unitrag")}"')
