"""The compiler: content folder → validated, incrementally built artifact.

Its names load on first use (PEP 562): the query path imports ``compiler.tokens`` alone, and
importing the build pipeline with it cost a knowledge base's first question ~35 ms.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_WHERE = {"CHUNKER_VERSION": "chunking", "Chunk": "chunking", "chunk_content": "chunking",
          "BuildReport": "pipeline", "build": "pipeline", "Plan": "plan", "make_plan": "plan"}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_WHERE[name]}", __name__), name)
