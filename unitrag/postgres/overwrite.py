"""What a publish must not overwrite silently: a newer build, or another knowledge base.

A publish makes the database serve exactly the artifact given, so an older artifact rolls the
content back (edits and restrictions made since are undone) and another knowledge base's artifact
replaces the one there (its units deleted, its name changed). Both are refused, before anything is
written and in a dry run too, unless the operator says it is meant: ``allow_older``
(``--allow-older``, a deliberate rollback) and ``replace_kb`` (``--replace-kb``). The identity's name
tells knowledge bases apart; a renamed knowledge base is one too, so a rename needs the flag once.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..errors import UserError


def check_overwrite(published: dict[str, Any], artifact: dict[str, Any], *, allow_older: bool, replace_kb: bool) -> None:
    """Refuse (a UserError naming what to do) when the artifact's manifest would silently undo the published one's."""
    before, after = _name(published), _name(artifact)
    if not replace_kb and before is not None and after is not None and before != after:
        raise UserError(
            f"the database serves the knowledge base {before!r}, but the artifact is {after!r}; nothing was written. "
            f"Publish it to its own database or schema (?options=-csearch_path%3D<schema>,public after CREATE SCHEMA "
            f"<schema>), or pass --replace-kb to replace {before!r} (or rename it) with it"
        )
    built_then, built_now = _built(published), _built(artifact)
    if not allow_older and built_then is not None and built_now is not None and built_now < built_then:
        raise UserError(
            f"the artifact was built at {artifact['built_at']}, before the published one ({published['built_at']}): "
            "publishing it would roll the content back; nothing was written. Publish a newer build, or pass "
            "--allow-older to roll back on purpose"
        )


def _name(manifest: dict[str, Any]) -> str | None:
    identity = manifest.get("identity")
    name = identity.get("name") if isinstance(identity, dict) else None
    return name if isinstance(name, str) and name else None


def _built(manifest: dict[str, Any]) -> datetime | None:
    """The build time, comparable (None when missing or unreadable: nothing to compare, nothing refused)."""
    try:
        built = datetime.fromisoformat(str(manifest["built_at"]))
    except (KeyError, TypeError, ValueError):
        return None
    return built if built.tzinfo is not None else None
