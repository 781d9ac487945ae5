"""The embedding cache: (embedder id, content_hash) → vector, kept across builds.

The previous artifact already carries the vectors of unchanged chunks; the cache
is what makes a revert, a switch back to an earlier embedder, or a rebuild after
an interrupted run cost nothing. Vectors are written batch by batch, so Ctrl-C
during a long embedding loses at most one batch of work.
"""

from __future__ import annotations

import stat
from pathlib import Path

import duckdb
import numpy as np

from .cache_file import first_line, is_damaged, set_aside, warn

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
        warn(f"cache_dir {directory} {what}: building without the cache (set cache_dir in unitrag.toml, or "
             "--cache-dir, to a folder)")
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
    """The cache a build reads vectors from and writes new ones to. It only saves work: whatever is wrong with its
    file (damaged, read-only, locked by another build, a full disk), the build goes on and says so once."""

    def __init__(self, directory: Path | None) -> None:
        self._con: duckdb.DuckDBPyConnection | None = None
        self._writable = False
        self._path = directory / FILE if directory is not None else None
        if self._path is not None:
            self._open(self._path)

    def _open(self, path: Path, *, recovered: bool = False) -> None:
        """Open for writing; a damaged file is set aside and a new one started (once), a file that can only be read
        is read, and anything else leaves the build without the cache."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._con = duckdb.connect(str(path))
            self._con.execute(
                "CREATE TABLE IF NOT EXISTS vectors (embedder VARCHAR, content_hash VARCHAR, embedding FLOAT[], "
                "PRIMARY KEY (embedder, content_hash))"
            )
            self._writable = True
            return
        except (OSError, duckdb.Error) as exc:  # locked by another build, read-only disk, damaged file...
            self._drop()
            error: BaseException = exc
        if not recovered and is_damaged(path, error):
            self._recover(error)
        elif not self._open_read_only(path):
            warn(f"embedding cache disabled ({first_line(error)})")

    def _open_read_only(self, path: Path) -> bool:
        """Use a cache the build may read but not write (a read-only folder or file): its vectors still save work."""
        if not path.is_file():
            return False
        try:
            self._con = duckdb.connect(str(path), read_only=True)
            self._con.execute("SELECT embedder, content_hash, embedding FROM vectors LIMIT 0")
        except (OSError, duckdb.Error):
            self._drop()
            return False
        warn(f"embedding cache {path} can be read but not written: its vectors are used, new ones are not saved "
             "(make the cache folder and file writable, or set cache_dir / --cache-dir to a folder that is)")
        return True

    def _recover(self, error: BaseException) -> None:
        """Move the damaged file aside (nothing is lost) and start a new cache in its place."""
        assert self._path is not None
        self._drop()
        try:
            aside = set_aside(self._path)
        except OSError as exc:
            warn(f"embedding cache {self._path} is damaged ({first_line(error)}) and could not be moved aside "
                 f"({exc.strerror or exc}): building without it; delete the file to start a new cache")
            return
        where = f"moved to {aside.name}" if aside is not None else "it was empty and was removed"
        warn(f"embedding cache {self._path} is damaged ({first_line(error)}): {where}, and a new cache was started "
             "(vectors are embedded again as needed)")
        self._open(self._path, recovered=True)

    def _failed(self, exc: duckdb.Error, doing: str) -> None:
        """A read or write of an open cache failed: a damaged file is recovered from, anything else ends the
        cache for this build (a full disk while saving: the build's own vectors are all still in memory)."""
        assert self._path is not None
        if is_damaged(self._path, exc):
            self._recover(exc)
            return
        self._drop()
        warn(f"embedding cache {self._path}: {doing} failed ({first_line(exc)}); building on without the cache")

    def _drop(self) -> None:
        con, self._con, self._writable = self._con, None, False
        if con is not None:
            try:
                con.close()
            except (OSError, duckdb.Error):
                pass

    def get_many(self, embedder: str, hashes: list[str]) -> dict[str, np.ndarray]:
        """The cached vectors of ``hashes``; none when the cache is off or its file turns out damaged."""
        if self._con is None or not hashes:
            return {}
        try:
            return _read(self._con, embedder, hashes)
        except duckdb.Error as exc:  # a truncated or corrupt file fails only when a damaged page is read
            self._failed(exc, "reading")
            return {}

    def put_many(self, embedder: str, hashes: list[str], vectors: np.ndarray) -> None:
        """Save ``vectors``; a failure (damaged file, full disk) is said once and never stops the build."""
        if self._con is None or not self._writable or not hashes:
            return
        try:
            _write(self._con, embedder, hashes, vectors)
        except duckdb.Error as exc:
            self._failed(exc, "saving new vectors")
            if self._con is not None and self._writable:  # a new cache in place of a damaged one
                self.put_many(embedder, hashes, vectors)

    def close(self) -> None:
        """Close the file; a checkpoint that fails (a full disk) loses only what the next build embeds again."""
        con, self._con = self._con, None
        if con is None:
            return
        try:
            con.close()
        except (OSError, duckdb.Error) as exc:
            warn(f"embedding cache {self._path}: saving failed ({first_line(exc)}); the build is not affected")


def _read(con: duckdb.DuckDBPyConnection, embedder: str, hashes: list[str]) -> dict[str, np.ndarray]:
    import pyarrow as pa  # here, not at the top: a dry run's cached_hashes needs no Arrow
    con.register("wanted", pa.table({"content_hash": hashes}))
    table = con.execute(
        "SELECT v.content_hash, v.embedding FROM vectors v JOIN wanted w USING (content_hash) WHERE v.embedder = ?",
        [embedder],
    ).to_arrow_table()
    con.unregister("wanted")  # not on failure: the connection is dropped then
    if table.num_rows == 0:
        return {}
    column = table.column("embedding").combine_chunks()
    flat = column.values.to_numpy(zero_copy_only=False).astype(np.float32)
    matrix = flat.reshape(table.num_rows, -1)
    return dict(zip(table.column("content_hash").to_pylist(), matrix))


def _write(con: duckdb.DuckDBPyConnection, embedder: str, hashes: list[str], vectors: np.ndarray) -> None:
    import pyarrow as pa
    rows = pa.table({
        "embedder": [embedder] * len(hashes),
        "content_hash": hashes,
        "embedding": pa.array(list(np.asarray(vectors, dtype=np.float32)), type=pa.list_(pa.float32())),
    })
    con.register("incoming", rows)
    con.execute("INSERT OR REPLACE INTO vectors SELECT * FROM incoming")
    con.unregister("incoming")
