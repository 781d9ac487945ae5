"""The artifact: one DuckDB file an app needs and nothing else (schema, reader, writer)."""

from .reader import PreviousState, open_artifact, read_manifest, read_previous, read_vectors
from .schema import SCHEMA_VERSION
from .writer import write_artifact

__all__ = ["SCHEMA_VERSION", "PreviousState", "open_artifact", "read_manifest", "read_previous", "read_vectors", "write_artifact"]
