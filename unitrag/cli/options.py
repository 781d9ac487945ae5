"""The options several commands share, declared once so their flags and help read the same everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

ConfigOpt = Annotated[Optional[Path], typer.Option(
    "--config", help="Config file (default: ./unitrag.toml). An option marked [config: KEY] defaults to the "
    "UNITRAG_KEY environment variable if set, else to KEY in that file, else to the built-in default (docs/configuration.md).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
