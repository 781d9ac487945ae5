"""The options several commands share, declared once so their flags and help read the same everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

ConfigOpt = Annotated[Optional[Path], typer.Option("--config", help="Config file (default: ./unitrag.toml).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
