"""``unitrag init``: a new knowledge base that validates and builds as created.

The template (package data under ``template/``) holds one unit of each kind, the registries,
labelled questions, ``unitrag.toml``, this project's prompts and its two content workflows, so a
new user starts from files that already pass ``unitrag validate`` and ``unitrag build``.
Names that start with a dot are stored without it (package-data globs skip dotfiles).

The starter content is written in the knowledge base's main language (the first of ``languages``): the template
holds the English one, and ``overlays/<lang>/`` the files another language replaces (its starter units, labelled
questions, topic synonyms and README), so the shared files (prompts, citations, guard rules, config, workflows)
are stored once.
"""

from __future__ import annotations

from pathlib import Path

from ..config import CONFIG_FILE
from ..errors import UserError
from .identity import KnowledgeBaseIdentity, default_name, titled_readme, with_identity, with_role
from .install import install_choice

TEMPLATE = Path(__file__).parent / "template"
#: ``overlays/<lang>/``: the template's files written in another main language, stored at the same relative paths.
OVERLAYS = Path(__file__).parent / "overlays"
#: The folders of the starter units: an overlay with units there replaces all of the template's (other ids, other files).
UNIT_FOLDERS = ("content/stories", "content/scenes", "content/rules", "content/documents")
DOTTED = {"gitignore": ".gitignore", "github": ".github"}  # first path part as stored → as written
# The workflows are this repository's own (a test keeps them identical); a knowledge base has no
# source tree to install from, so it installs one requirement chosen at init instead (install.py).
INSTALL_FROM_SOURCE = "pip install -e ."


def template_files(root: Path = TEMPLATE) -> list[Path]:
    """Every file of the template (or of an overlay), relative to it, as stored."""
    return sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def overlay_languages() -> tuple[str, ...]:
    """The main languages with starter content of their own (any other gets the template's English)."""
    folders = OVERLAYS.iterdir() if OVERLAYS.is_dir() else ()
    return tuple(sorted(p.name for p in folders if p.is_dir() and not p.name.startswith(("_", "."))))


def template_sources(main_language: str = "en") -> dict[Path, Path]:
    """Each file a knowledge base of this main language gets, as stored (relative) → the file it is read from.

    The template, with ``overlays/<main_language>/`` on top: an overlay file replaces the template's at its path,
    and an overlay holding starter units replaces every starter unit of the template."""
    sources = {stored: TEMPLATE / stored for stored in template_files()}
    overlay = OVERLAYS / main_language
    if main_language in overlay_languages():
        replacing = template_files(overlay)
        if any(_is_unit(stored) for stored in replacing):
            sources = {stored: path for stored, path in sources.items() if not _is_unit(stored)}
        sources.update({stored: overlay / stored for stored in replacing})
    return dict(sorted(sources.items()))


def _is_unit(stored: Path) -> bool:
    return any(stored.is_relative_to(folder) for folder in UNIT_FOLDERS)


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
    ``identity``: its name, description, languages and restricted role for unitrag.toml, the README's title and
    every ``access: <role>`` the files mention (default: named after the folder, role ``staff``); the first of its
    languages is the one the starter content is written in (``template_sources``)."""
    check_target(target)
    requirement = install_choice(install).requirement  # checked before anything is written
    identity = identity or KnowledgeBaseIdentity.checked(default_name(target))
    written = []
    for stored, source in template_sources(identity.languages[0]).items():
        relative = destination(stored)
        text = with_role(source.read_text(encoding="utf-8"), identity.restricted_role)
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
