"""The publish's index settings as an operator gives them: ``[publish]`` in unitrag.toml, then
``UNITRAG_PUBLISH_<KEY>`` environment variables, then ``unitrag publish`` flags (each later source
wins, key by key, as for ``[unitrag]`` and ``[serve]``).

Settings not given anywhere are the defaults (``index.IndexSettings``): a publish makes the index
as its settings say, as a build makes the artifact as its config says, so a publish without the
settings that built the index rebuilds it with the defaults (and its plan says so first).
"""

from __future__ import annotations

import os
from dataclasses import fields
from pathlib import Path
from typing import Any

from ..config import check_toml_types, config_table
from ..errors import InvalidArgument, UserError
from .index import SPELLED, IndexSettings

ENV_PREFIX = "UNITRAG_PUBLISH_"
#: ``[publish]`` key → IndexSettings field.
KEYS = {key: field for field, (_, key) in SPELLED.items()}
#: Each key's type as ``check_toml_types`` knows it: a file's ``hnsw_m = "16"`` is a mistake, as in [unitrag] and [serve].
_TOML_KINDS = {key: str(f.type) for f in fields(IndexSettings) for key in (SPELLED[f.name][1],)}


def load_index_settings(path: Path | None = None, env: dict[str, str] | None = None, **cli: Any) -> IndexSettings:
    """The effective index settings: ``[publish]`` in the config file < environment < flags (None: not given)."""
    env = dict(os.environ) if env is None else env
    given: dict[str, Any] = {}
    section = config_table("publish", path)
    unknown = sorted(set(section) - set(KEYS))
    if unknown:
        raise UserError(f"unknown [publish] key {unknown[0]!r} (known: {', '.join(KEYS)})")
    check_toml_types(section, _TOML_KINDS, lambda key: f"[publish] {key}")
    given.update(section)
    given.update({key: env[ENV_PREFIX + key.upper()] for key in KEYS if env.get(ENV_PREFIX + key.upper())})
    given.update({key: value for key, value in cli.items() if value is not None})
    return IndexSettings(**{KEYS[key]: _coerce(KEYS[key], value) for key, value in given.items()})


def _coerce(field: str, value: Any) -> Any:
    """An environment variable's text as the field's type; anything else is left to IndexSettings to check."""
    if not isinstance(value, str):
        return value
    text = value.strip().lower()
    if field == "halfvec" and text in ("1", "true", "yes", "on", "0", "false", "no", "off"):
        return text in ("1", "true", "yes", "on")
    if field != "halfvec" and text.isdigit():
        return int(text)
    raise InvalidArgument(f"index setting {field} ({SPELLED[field][0]}; [publish] {SPELLED[field][1]}): "
                          f"expected {'true or false' if field == 'halfvec' else 'a whole number'}, got {value!r}")
