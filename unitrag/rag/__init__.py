"""The runtime: guard → broaden → embed → search → rerank → gate → post-process → prompt → generate → check.

The names below load on first use (PEP 562): a command that needs one module of the
runtime (the build's gate warning reads ``rag.gate``) does not import the knowledge
base, the store and pyarrow with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .citations import check_citations
    from .knowledge_base import Answer, KnowledgeBase, SearchResult
    from .types import FaithfulnessReport, GuardOutcome, ResolvedCitation, Source, UserContext

_WHERE = {
    "check_citations": ".citations", "Answer": ".knowledge_base", "KnowledgeBase": ".knowledge_base",
    "SearchResult": ".knowledge_base", "FaithfulnessReport": ".types", "GuardOutcome": ".types",
    "ResolvedCitation": ".types", "Source": ".types", "UserContext": ".types",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name], __name__), name)
    globals()[name] = value
    return value
