"""Questions in traditional characters for the benchmarks: the labelled sets hold few, so they are made by conversion."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

_converter: Any = None


def traditional_twin(question: str) -> str | None:
    """``question`` in traditional characters as written in Taiwan (OpenCC ``s2twp``, wording too); None when
    the conversion changes nothing (no Han character, or none with a traditional form)."""
    global _converter
    if _converter is None:
        import opencc

        _converter = opencc.OpenCC("s2twp")
    converted: str = _converter.convert(question)
    return converted if converted != question else None


def knowledge_base_and_files(description: str) -> tuple[Any, list[Path]]:
    """The ``--kb`` artifact, opened, and the question files of a conversion benchmark's command line."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--kb", required=True)
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    from unitrag.rag.knowledge_base import KnowledgeBase

    return KnowledgeBase.open(args.kb), args.files
