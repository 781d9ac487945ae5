"""Whether an artifact's tables hold what its manifest says they do: what ``unitrag inspect`` checks.

``open_artifact`` checks the manifest itself; a table emptied or cut short (rows deleted by hand, a bad copy)
shows only when a search reads it. Counting rows is cheap in DuckDB (kept per row group), so ``inspect`` counts
every table the manifest gives a count of, and the vectors and BM25 postings against the chunks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from .reader import ArtifactDamaged, has_table, read_manifest
from .vectors import TABLE as VECTORS


def check_counts(con: duckdb.DuckDBPyConnection, path: Path, manifest: dict[str, Any] | None = None) -> None:
    """Raise ``ArtifactDamaged`` naming the first table whose rows differ from the manifest's count (``manifest``: as
    the caller read it already, else read here)."""
    manifest = read_manifest(con) if manifest is None else manifest
    tables = {row[0] for row in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    counts: dict[str, Any] = manifest.get("counts") if isinstance(manifest.get("counts"), dict) else {}
    chunks = _rows(con, "chunks")
    expected = [(name, value) for name, value in counts.items()
                if name in tables and isinstance(value, int) and not isinstance(value, bool)]
    sparse = manifest.get("sparse_index") if isinstance(manifest.get("sparse_index"), dict) else {}
    for key, table in (("chunks", "chunks"), ("terms", "sparse_vocab"), ("postings", "sparse_postings")):
        if isinstance(sparse.get(key), int) and table in tables:
            expected.append((table, sparse[key]))
    for table, count in expected:
        found = chunks if table == "chunks" else _rows(con, table)
        if found != count:
            raise ArtifactDamaged(path, f"the manifest records {count:,} rows in {table}, the table holds {found:,}")
    by_kind = counts.get("chunks_by_kind")
    if isinstance(by_kind, dict):
        found_by_kind = dict(con.execute("SELECT kind, count(*) FROM chunks GROUP BY kind").fetchall())
        if found_by_kind != {k: v for k, v in by_kind.items() if v}:
            raise ArtifactDamaged(path, f"the manifest records chunks by kind {by_kind}, the table holds {found_by_kind}")
    if has_table(con, VECTORS):
        vectors = _rows(con, VECTORS)
        if vectors != chunks:
            raise ArtifactDamaged(path, f"{chunks:,} chunks but {vectors:,} stored vectors: a chunk has no vector")


def _rows(con: duckdb.DuckDBPyConnection, table: str) -> int:
    row = con.execute(f'SELECT count(*) FROM "{table}"').fetchone()
    return int(row[0]) if row else 0
