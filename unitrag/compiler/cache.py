"""The embedding cache: (embedder id, content_hash) → vector, kept across builds.

The previous artifact already carries the vectors of unchanged chunks; the cache
is what makes a revert, a switch back to an earlier embedder, or a rebuild after
an interrupted run cost nothing. Vectors are written batch by batch, so Ctrl-C
during a long embedding loses at most one batch of work.
"""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import duckdb
import numpy as np

#: The cache's file in its folder.
FILE = "embeddings.duckdb"


def usable_cache_dir(directory: Path | None) -> Path | None:
    """``directory`` (config ``cache_dir``), or None with one warning when it, or a folder above it, is a file or a
    device (``/dev/null``): no cache could ever be written there, and each cache saying so (or failing) on its own
    would bury the build's output. The build goes on without the cache: it only saves work, never changes a result."""
    if directory is None:
        return None
    for path in (directory, *directory.parents):
        try:
            mode = path.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue  # not there yet (mkdir makes it), or under a file: that one is found further up
        except OSError:
            return directory  # cannot tell (no permission...): each cache says what went wrong
        if stat.S_ISDIR(mode):
            return directory
        what = "is not a folder" if path == directory else f"is under {path}, which is not a folder"
        print(f"warning: cache_dir {directory} {what}: building without the cache (set cache_dir in unitrag.toml, "
              "or --cache-dir, to a folder)", file=sys.stderr)
        return None
    return directory


def cached_hashes(directory: Path | None, embedder: str, hashes: list[str]) -> set[str] | None:
    """Which of ``hashes`` the cache holds a vector of for ``embedder``, read without a model and without writing
    (a dry run's estimate); None when it cannot say (a build holding the cache open, a damaged file)."""
    if directory is None or not hashes:
        return set()
    path = directory / FILE
    if not path.is_file():
        return set()
    try:
        with duckdb.connect(str(path), read_only=True) as con:
            rows = con.execute("SELECT content_hash FROM vectors WHERE embedder = ? "
                               "AND content_hash IN (SELECT unnest(?::VARCHAR[]))", [embedder, hashes]).fetchall()
    except (OSError, duckdb.Error):
        return None
    return {h for (h,) in rows}


class EmbeddingCache:
    def __init__(self, directory: Path | None) -> None:
        self._con: duckdb.DuckDBPyConnection | None = None
        if directory is None:
            return
        try:
            directory.mkdir(parents=True, exist_ok=True)
            self._con = duckdb.connect(str(directory / FILE))
            self._con.execute(
                "CREATE TABLE IF NOT EXISTS vectors (embedder VARCHAR, content_hash VARCHAR, embedding FLOAT[], "
                "PRIMARY KEY (embedder, content_hash))"
            )
        except (OSError, duckdb.Error) as exc:  # locked by another build, read-only disk...
            print(f"warning: embedding cache disabled ({exc})", file=sys.stderr)
            self._con = None

    def get_many(self, embedder: str, hashes: list[str]) -> dict[str, np.ndarray]:
        if self._con is None or not hashes:
            return {}
        import pyarrow as pa  # here, not at the top: a dry run's cached_hashes needs no Arrow
        self._con.register("wanted", pa.table({"content_hash": hashes}))
        table = self._con.execute(
            "SELECT v.content_hash, v.embedding FROM vectors v JOIN wanted w USING (content_hash) WHERE v.embedder = ?",
            [embedder],
        ).to_arrow_table()
        self._con.unregister("wanted")
        if table.num_rows == 0:
            return {}
        column = table.column("embedding").combine_chunks()
        flat = column.values.to_numpy(zero_copy_only=False).astype(np.float32)
        matrix = flat.reshape(table.num_rows, -1)
        return dict(zip(table.column("content_hash").to_pylist(), matrix))

    def put_many(self, embedder: str, hashes: list[str], vectors: np.ndarray) -> None:
        if self._con is None or not hashes:
            return
        import pyarrow as pa
        rows = pa.table({
            "embedder": [embedder] * len(hashes),
            "content_hash": hashes,
            "embedding": pa.array(list(np.asarray(vectors, dtype=np.float32)), type=pa.list_(pa.float32())),
        })
        self._con.register("incoming", rows)
        self._con.execute("INSERT OR REPLACE INTO vectors SELECT * FROM incoming")
        self._con.unregister("incoming")

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None
