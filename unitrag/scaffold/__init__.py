"""``unitrag init``: a new knowledge base that validates and builds as created.

The template (package data under ``template/``) holds one unit of each kind, the registries,
labelled questions, ``unitrag.toml``, this project's prompts and its two content workflows, so a
new user starts from files that already pass ``unitrag validate`` and ``unitrag build``.
Names that start with a dot are stored without it (package-data globs skip dotfiles).
"""

from __future__ import annotations

from pathlib import Path

from ..config import CONFIG_FILE
from ..errors import UserError
from .identity import KnowledgeBaseIdentity, default_name, titled_readme, with_identity
from .install import install_choice

TEMPLATE = Path(__file__).parent / "template"
DOTTED = {"gitignore": ".gitignore", "github": ".github"}  # first path part as stored → as written
# The workflows are this repository's own (a test keeps them identical); a knowledge base has no
# source tree to install from, so it installs one requirement chosen at init instead (install.py).
INSTALL_FROM_SOURCE = "pip install -e ."


def template_files() -> list[Path]:
    """Every file of the template, relative to it, as stored."""
    return sorted(p.relative_to(TEMPLATE) for p in TEMPLATE.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def destination(stored: Path) -> Path:
    """Where a stored template file goes in the new knowledge base."""
    return Path(DOTTED.get(stored.parts[0], stored.parts[0]), *stored.parts[1:])


def check_target(target: Path) -> None:
    """A UserError unless ``target`` is a new or empty folder: checked before anything is asked or written."""
    if target.exists() and not target.is_dir():
        raise UserError(f"{target} exists and is not a folder: give unitrag init a new or empty folder")
    if target.is_dir() and any(target.iterdir()):
        raise UserError(f"{target} is not empty: unitrag init writes only into a new or empty folder, to overwrite nothing")
    parent = next((p for p in target.absolute().parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise UserError(f"{parent} is a file, so {target} cannot be created under it: give unitrag init a folder path")


def init_knowledge_base(target: Path, install: str | None = None,
                        identity: KnowledgeBaseIdentity | None = None) -> list[Path]:
    """Write the template into ``target`` (new or empty); returns the files written, relative to it.

    Refuses anything else, so it never overwrites a file someone wrote. ``install``: the pip requirement
    its workflows install unitrag with (checked by ``install.parse_install``; default: ``install.default_install``).
    ``identity``: its name, description and languages for unitrag.toml, and the README's title (default: named
    after the folder)."""
    check_target(target)
    requirement = install_choice(install).requirement  # checked before anything is written
    identity = identity or KnowledgeBaseIdentity.checked(default_name(target))
    written = []
    for stored in template_files():
        relative = destination(stored)
        text = (TEMPLATE / stored).read_text(encoding="utf-8")
        if relative.parts[:2] == (".github", "workflows"):
            text = pin_install(text, requirement)
        elif relative == Path(CONFIG_FILE):
            text = with_identity(text, identity)
        elif relative == Path("README.md"):
            text = titled_readme(text, identity)
        path = target / relative
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:  # a read-only or special file system (/proc, /sys), a full disk
            raise UserError(f"cannot write {path}: {exc.strerror or exc}; give unitrag init a folder you can write to"
                            + (f" ({len(written)} file(s) already written there)" if written else "")) from exc
        written.append(relative)
    return written


def pin_install(workflow: str, requirement: str) -> str:
    """A workflow of this repository, installing ``requirement`` instead of the source tree."""
    if INSTALL_FROM_SOURCE not in workflow:
        raise AssertionError(f"template workflow without {INSTALL_FROM_SOURCE!r}: the scaffold cannot pin unitrag")
    return workflow.replace(INSTALL_FROM_SOURCE, f'pip install "{requirement}"')
