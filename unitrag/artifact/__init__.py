"""The artifact: one DuckDB file an app needs and nothing else (schema, reader, writer)."""

from typing import Any

from .reader import PreviousState, open_artifact, read_manifest, read_previous, read_vectors
from .schema import SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION", "PreviousState", "open_artifact", "read_manifest", "read_previous", "read_vectors", "write_artifact"]


def __getattr__(name: str) -> Any:
    """``write_artifact`` on first use: the writer pulls in pyarrow, which reading (a plan, a query) never needs."""
    if name == "write_artifact":
        from .writer import write_artifact

        return write_artifact
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
