"""The options several commands share, declared once so their flags and help read the same everywhere."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

ConfigOpt = Annotated[Optional[Path], typer.Option(
    "--config", help="Config file (default: ./unitrag.toml). An option marked [config: KEY] defaults to the "
    "UNITRAG_KEY environment variable if set, else to KEY in that file, else to the built-in default (docs/configuration.md).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


@cache
def configured_role() -> str | None:
    """The restricted role the working folder's config names (its unitrag.toml, UNITRAG_RESTRICTED_ROLE), for a
    help text to say which role a flag means here; None when that config cannot be read: help never fails on it."""
    from ..config import load_config

    variable = "UNITRAG_RESTRICTED_ROLE"
    env = {variable: os.environ[variable]} if variable in os.environ else {}  # no warning about other variables
    try:
        return load_config(env=env).restricted_role
    except Exception:  # a broken unitrag.toml is for the command to report, not for --help
        return None


def restricted_option(also: str = "") -> Any:
    """``--restricted`` (alias ``--clinician``, the bundled health sample's role): the caller holds the knowledge
    base's configured restricted role, whatever its name (a help desk's ``agent``, a shop's ``staff``)."""
    role = configured_role()
    here = f"; here {role!r}" if role else ""
    return typer.Option(
        "--restricted", "--clinician",
        help=f"Hold the knowledge base's restricted role (restricted_role in its unitrag.toml{here}): its restricted "
             f"units are read too{also}. --clinician is the same flag, named for the bundled health sample's role.")
