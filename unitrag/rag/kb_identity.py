"""What a knowledge base says it is: its restricted role, the languages it answers in, its name and description.

unitrag.toml's when it sets them, else what the artifact was built with (``config.identity_record`` in the manifest):
an app that opens ``dist/kb.duckdb`` with no unitrag.toml beside it still names its knowledge base, answers a
Chinese-only one in Chinese, and checks a caller's roles against the role its units were validated with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..access import DEFAULT_ROLE, is_role_name
from ..config import DEFAULT_NAME, Config, localized_identity
from ..errors import UserError
from .types import LANGS

if TYPE_CHECKING:
    from .answer.prompt import Identity


def restricted_role(manifest: dict[str, Any]) -> str:
    """The restricted role an artifact's units were validated with (``clinician`` for one built before roles were
    named): a caller's roles are checked against it, whatever the app's own unitrag.toml says."""
    built = (manifest.get("identity") or {}).get("restricted_role", DEFAULT_ROLE)
    if not is_role_name(built):
        raise UserError(f"the artifact's restricted role {built!r} is not a role name: rebuild it with `unitrag build`")
    return str(built)


def kb_languages(config: Config, manifest: dict[str, Any]) -> tuple[str, ...]:
    """The config's languages when it sets others than the default, else the ones the artifact was built with: an app
    that opens a Chinese-only knowledge base without its unitrag.toml answers as ``unitrag ask`` does there."""
    if config.languages != Config.languages:
        return config.languages
    built = (manifest.get("identity") or {}).get("languages")
    if isinstance(built, list) and built and all(lang in LANGS for lang in built):
        return tuple(built)
    return config.languages


def kb_identity(config: Config, manifest: dict[str, Any]) -> "Identity":
    """The config's name and description, else the ones the artifact was built with: an app that opens
    ``dist/kb.duckdb`` with no unitrag.toml beside it still names its knowledge base."""
    from .answer.prompt import Identity

    localized = localized_identity(config)
    if config.name != DEFAULT_NAME or config.description or localized:
        return Identity(config.name, config.description, localized)
    built = manifest.get("identity") or {}
    return Identity(str(built.get("name") or DEFAULT_NAME), str(built.get("description") or ""),
                    _built_localized(built.get("localized")))


def _built_localized(value: Any) -> dict[str, dict[str, str]]:
    """The artifact's per-language names as written by ``config.identity_record``; anything else is none."""
    if not isinstance(value, dict):
        return {}
    return {lang: {key: text for key, text in texts.items() if key in ("name", "description") and isinstance(text, str)}
            for lang, texts in value.items() if lang in LANGS and isinstance(texts, dict)}
