"""What a published knowledge base holds, read as cheaply as ``unitrag inspect`` reads an artifact.

The manifest and the chunk counts by kind, language and access, in one snapshot and within the
publish generation readers see (``generations``): what a server opening the URL now would serve.
No vectors and no text are read, and no pgvector is needed.
"""

from __future__ import annotations

from typing import Any

from ..errors import UserError
from .connect import connect, database_errors, snapshot
from .generations import live_generation, visible_sql
from .schema import CHUNKS, MANIFEST, check_tables, schema_version
from .url import DatabaseUrl


def published_summary(url: str | DatabaseUrl) -> dict[str, Any]:
    """``{"database", "manifest", "chunks_by"}`` of what ``unitrag publish`` wrote to ``url`` (the URL redacted);
    a UserError when unitrag never published there. A publish in progress shows in ``manifest["publish"]``."""
    url = DatabaseUrl.parse(url)
    with connect(url) as conn, database_errors(url, "reading the published manifest"):
        with snapshot(conn):  # the counts are of the generation the manifest names
            check_tables(conn)
            version = schema_version(conn)
            if version == 0:
                raise UserError(f"no unitrag knowledge base at {url.describe()}: run `unitrag publish --to <url>` first")
            manifest = dict(conn.execute(f"SELECT key, value FROM {MANIFEST}").fetchall())
            visible = visible_sql(version, live_generation(manifest.get("publish") or {}))
            by = conn.execute(f"SELECT kind, lang, access, count(*) FROM {CHUNKS}" + (f" WHERE {visible}" if visible else "")
                              + " GROUP BY 1, 2, 3 ORDER BY 1, 2, 3").fetchall()
    return {"database": url.redacted, "manifest": manifest,
            "chunks_by": [{"kind": k, "lang": lang, "access": a, "chunks": n} for k, lang, a, n in by]}
