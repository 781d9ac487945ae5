"""How a gate's input is spelled in calibration.json and the artifact's calibration table.

``max_dense + 0.065*topic + -0.103*gap``: one main feature, then weighted mix features. The build checks the
spelling before it copies a gate into the artifact (``compiler.calibration_file``) and the runtime reads it back
(``rag.gate``): one parser and one list of names for both, here, below them both.
"""

from __future__ import annotations

import math

#: Every feature a gate may read (``rag.gate.FEATURES`` computes each one from the ranked sources).
FEATURE_NAMES = ("max_dense", "dense", "rerank", "final", "dense_margin", "sparse", "topic", "gap", "exemplar")


def parse_feature(spelled: str) -> tuple[str, dict[str, float]]:
    """The main feature and the mix's weights; ValueError naming what is wrong (an unknown name, a weight that is
    not a finite number)."""
    main, *mixed = (part.strip() for part in str(spelled).split("+"))
    mix: dict[str, float] = {}
    for part in mixed:
        weight, _, name = part.partition("*")
        try:
            value = float(weight)
        except ValueError:
            raise ValueError(f"{part!r} is not a weight times a feature (such as 0.065*topic)") from None
        if not math.isfinite(value):
            raise ValueError(f"the weight of {name.strip()!r} is not a finite number")
        mix[name.strip()] = value
    for name in (main, *mix):
        if name not in FEATURE_NAMES:
            raise ValueError(f"unknown gate feature {name!r} (known: {', '.join(FEATURE_NAMES)})")
    return main, mix
