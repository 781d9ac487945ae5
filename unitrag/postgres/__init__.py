"""PostgreSQL + pgvector: the same build published to a shared database (schema, connect, publish).

The runtime side (``unitrag.rag.store.pg_store.PgChunkStore``) reads what ``publish`` writes.
"""

from .connect import connect, is_postgres_url
from .publish import PublishReport, publish
from .url import DatabaseUrl

__all__ = ["DatabaseUrl", "PublishReport", "connect", "is_postgres_url", "publish"]
