"""What a new knowledge base is: its name, description, languages and restricted role, written in its unitrag.toml.

The prompts, "not found" and the preview page say them (config ``name``, ``description``, ``languages``),
so a knowledge base made by ``unitrag init`` speaks of its own domain from its first build, never of the
sample's; its restricted role (``restricted_role``: a help desk's ``agent``, a shop's ``staff``) is the one its
units' ``access:`` and its API keys name, so a team need not edit the file to rename it. They are checked by the
same rules as ``unitrag.toml`` itself (``config``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..config import IDENTITY_LIMITS, Config

#: The restricted role the template is written with: a new knowledge base's unless ``init --restricted-role`` names
#: another (not the library's default, ``clinician``, which is the health sample's).
TEMPLATE_ROLE = "staff"


@dataclass(frozen=True)
class KnowledgeBaseIdentity:
    name: str
    description: str = ""
    languages: tuple[str, ...] = Config.languages
    restricted_role: str = TEMPLATE_ROLE

    @classmethod
    def checked(cls, name: str, description: str = "", languages: str | tuple[str, ...] | None = None,
                restricted_role: str | None = None) -> KnowledgeBaseIdentity:
        """The identity from flags or answers, or one UserError naming the key and what it expects."""
        config = Config().with_overrides(name=name, description=description, languages=languages,
                                         restricted_role=TEMPLATE_ROLE if restricted_role is None else restricted_role)
        return cls(config.name, config.description, config.languages, config.restricted_role)

    def toml_values(self) -> dict[str, str]:
        """Each key's value as TOML writes it (a JSON string is a valid TOML basic string)."""
        return {"name": json.dumps(self.name, ensure_ascii=False),
                "description": json.dumps(self.description, ensure_ascii=False),
                "languages": "[" + ", ".join(json.dumps(code) for code in self.languages) + "]",
                "restricted_role": json.dumps(self.restricted_role)}


def default_name(folder: Path) -> str:
    """A name from the folder's ("my-garden_kb" → "My garden kb"): what a non-interactive init calls it."""
    words = " ".join(re.split(r"[-_.\s]+", "".join(c for c in folder.resolve().name if c.isprintable()))).strip()
    return (words[:1].upper() + words[1:])[:IDENTITY_LIMITS["name"]].strip() or Config.name


def with_identity(config_text: str, identity: KnowledgeBaseIdentity) -> str:
    """The template's unitrag.toml with its ``name``, ``description``, ``languages`` and ``restricted_role`` lines set."""
    for key, value in identity.toml_values().items():
        config_text, found = re.subn(rf"^{key} = .*$", lambda _, v=value, k=key: f"{k} = {v}", config_text,
                                     count=1, flags=re.MULTILINE)
        if not found:
            raise AssertionError(f"the template's unitrag.toml has no {key} line: the scaffold cannot set it")
    return config_text


#: How the template's files name its restricted role: a unit's frontmatter line, or that line quoted in the text.
_ROLE_MENTION = re.compile(rf"\baccess: {TEMPLATE_ROLE}\b")


def with_role(text: str, role: str) -> str:
    """A template file with every ``access: staff`` naming ``role`` instead: the README's and unitrag.toml's words
    (and any starter unit's frontmatter) must name the role the knowledge base actually has."""
    return _ROLE_MENTION.sub(f"access: {role}", text)


#: The first line of the template's README.md, which the knowledge base's own name replaces.
README_TITLE = "# Knowledge base"


def titled_readme(readme_text: str, identity: KnowledgeBaseIdentity) -> str:
    """The template's README.md under the knowledge base's own name (and its description, when it has one)."""
    if not readme_text.startswith(README_TITLE + "\n"):
        raise AssertionError(f"the template's README.md does not start with {README_TITLE!r}: the scaffold cannot name it")
    # the author's words, shown as text: a "<" in them must not open an HTML tag where the README is rendered; an "&"
    # stays one ("Waste & Recycling", not "&amp;" in the file), as Markdown shows a lone "&" as written
    about = f"\n\n{_as_text(identity.description)}" if identity.description else ""
    return f"# {_as_text(identity.name)}{about}" + readme_text[len(README_TITLE):]


def _as_text(words: str) -> str:
    return words.replace("<", "&lt;").replace(">", "&gt;")
