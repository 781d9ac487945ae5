"""Who may read a unit: every caller reads ``public`` units; the knowledge base's one restricted role reads the rest.

A knowledge base names its restricted role (``restricted_role`` in unitrag.toml, ``clinician`` unless said): a
team handbook's may be ``staff``, a clinic's ``clinician``. A unit that is not public says ``access: <role>``, a
caller holding that role reads it, and the artifact records the name, so an app and the server check a caller's
roles against the knowledge base they open, not against a name built into the library.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import UserError

PUBLIC = "public"
#: The restricted role of a knowledge base that names none (the sample's, and every artifact built before roles
#: were named).
DEFAULT_ROLE = "clinician"
#: A role's spelling: it is written in frontmatter, API keys and a header, so one plain word, never ``public``.
_ROLE_WORD = r"[a-z][a-z0-9_-]{0,31}"
ROLE_SPELLING = "a-z first, then a-z, 0-9, '_' or '-', at most 32 characters, not 'public'"
ROLE_PATTERN = rf"^{_ROLE_WORD}$"
#: An access level's spelling in frontmatter: ``public`` or a role (validation checks it is the knowledge base's).
ACCESS_PATTERN = rf"^(public|{_ROLE_WORD})$"
_ROLE = re.compile(ROLE_PATTERN)


def is_role_name(value: Any) -> bool:
    """A string spelled as a role may be (``ROLE_PATTERN``), other than ``public``."""
    return isinstance(value, str) and value != PUBLIC and _ROLE.fullmatch(value) is not None


def parse_role(value: Any, where: str) -> str:
    """A configured role name, or one UserError naming ``where`` and the spelling a role takes."""
    if not is_role_name(value):
        raise UserError(f"{where}: expected a role name ({ROLE_SPELLING}), got {value!r}")
    return value


def access_levels(role: str) -> tuple[str, str]:
    """The access levels a unit of a knowledge base whose restricted role is ``role`` may have."""
    return (PUBLIC, role)
