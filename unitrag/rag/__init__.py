"""The runtime: guard → broaden → embed → search → rerank → gate → post-process → prompt → generate → check.

One subpackage per stage, wired in order by ``knowledge_base``:

- ``guard``: red flags and out-of-scope requests (patterns, similarity, framing, an LLM's second opinion);
- ``search``: broadening, the query vector, dense + BM25 retrieval, cross-language offsets, roll-up and boosts;
- ``gate`` (one module): whether the sources answer the question at all;
- ``answer``: the prompt, the LLM or the extractive answer, the citation check;
- ``store``: the artifact or published database every stage reads;
- ``calibrate``: fitting the gate to a knowledge base's own labelled questions (``unitrag calibrate``).

The names below load on first use (PEP 562): a command that needs one module of the
runtime (the build's gate warning reads ``rag.calibration_file``) does not import the knowledge
base, the store and pyarrow with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .answer.citations import check_citations
    from .knowledge_base import KnowledgeBase
    from .results import Answer, SearchResult
    from .types import FaithfulnessReport, GuardOutcome, ResolvedCitation, Source, UserContext

_WHERE = {
    "check_citations": ".answer.citations", "Answer": ".results", "KnowledgeBase": ".knowledge_base",
    "SearchResult": ".results", "FaithfulnessReport": ".types", "GuardOutcome": ".types",
    "ResolvedCitation": ".types", "Source": ".types", "UserContext": ".types",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name], __name__), name)
    globals()[name] = value
    return value
