"""The languages unitrag answers in: the one list that configuration, content and the runtime all check against."""

from __future__ import annotations

from typing import Literal, get_args

Lang = Literal["zh", "en"]
LANGS: tuple[str, ...] = get_args(Lang)
