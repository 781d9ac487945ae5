"""The runtime: guard → broaden → embed → search → rerank → gate → post-process → prompt → generate → check."""

from .citations import check_citations
from .knowledge_base import Answer, KnowledgeBase, SearchResult
from .types import FaithfulnessReport, GuardOutcome, ResolvedCitation, Source, UserContext

__all__ = [
    "Answer", "FaithfulnessReport", "GuardOutcome", "KnowledgeBase", "ResolvedCitation", "SearchResult", "Source",
    "UserContext", "check_citations",
]
