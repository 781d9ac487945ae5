"""The compiler: content folder → validated, incrementally built artifact."""

from .chunking import CHUNKER_VERSION, Chunk, chunk_content
from .pipeline import BuildReport, build
from .plan import Plan, make_plan

__all__ = ["CHUNKER_VERSION", "BuildReport", "Chunk", "Plan", "build", "chunk_content", "make_plan"]
