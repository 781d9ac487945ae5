"""unitrag: typed Markdown knowledge units → one DuckDB artifact → cited, checked answers.

``from unitrag import KnowledgeBase, UserContext, check_citations`` — imported lazily,
so ``import unitrag`` (and the build CLI) stays light.
"""

from typing import Any

from .version import __version__

__all__ = ["KnowledgeBase", "UserContext", "__version__", "check_citations"]


def __getattr__(name: str) -> Any:
    if name in ("KnowledgeBase", "UserContext", "check_citations"):
        from . import rag

        return getattr(rag, name)
    raise AttributeError(f"module 'unitrag' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The lazy names too: ``dir(unitrag)`` and completion show what ``from unitrag import`` offers."""
    return sorted({*globals(), *__all__} - {"Any"})
