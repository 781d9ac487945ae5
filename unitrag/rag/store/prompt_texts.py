"""Prompt texts, read from the artifact for the rows a search returns instead of held in memory.

A chunk's prompt text is the largest thing the runtime reads after its vector (108 MiB
of Arrow at 100k chunks, against 30 MiB for every other column), yet a search hands a
few rows on. So an artifact's texts stay in the file: ``ArtifactTexts`` keeps one
read-only DuckDB connection and fetches a result's texts in one query (about 1 ms at
100k chunks), the most recent few thousand kept in a small LRU. DuckDB connections
are not thread-safe, so each thread queries through its own cursor.

The connection attaches the artifact to an in-memory database rather than opening it
by path: DuckDB shares one instance per path within a process, and a server reloading
a rebuilt artifact must open the new file, not be handed the one this store holds.
A file replaced or deleted after open keeps serving: the connection holds the file it
opened, so texts always match the rows loaded with them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import duckdb

from ...errors import UserError
from .columns import Column

#: Texts kept after a fetch (least recently used dropped): ~1-2 KB each, so a few MB at most;
#: a small knowledge base's popular rows are then served without a query.
TEXT_CACHE_SIZE = 4096
#: DuckDB's buffer pool for the texts connection: the text blocks a query touched stay cached up to this
#: (the 100k synthetic artifact's text column is 54 MiB compressed; below ~32 MiB a fetch slows 4×).
TEXT_BUFFER_LIMIT = "64MB"
#: Ids per query at most (a whole-store read, e.g. re-tokenising every chunk, goes in slices).
FETCH_BATCH = 2048


class KnowledgeBaseClosed(UserError):
    """A search on a knowledge base after ``close()``."""

    def __init__(self) -> None:
        super().__init__("the knowledge base was closed: open it again (KnowledgeBase.open) to search it")


class PromptTexts(Protocol):
    """Where a store's prompt texts come from: ``fetch`` returns them in the order of ``rows``."""

    def fetch(self, rows: Sequence[int]) -> list[str]: ...

    def close(self) -> None: ...


class HeldTexts:
    """Texts held as an Arrow column: a published database's store, a test's, an artifact too old to fetch from."""

    def __init__(self, column: Column) -> None:
        self.column = column

    def fetch(self, rows: Sequence[int]) -> list[str]:
        return [self.column[i] for i in rows]

    def close(self) -> None:
        """Nothing to release."""


class ArtifactTexts:
    """Texts fetched by chunk id from the artifact, one query per batch; thread-safe."""

    def __init__(self, path: Path, ids: Column, cache_size: int = TEXT_CACHE_SIZE) -> None:
        self.path = path
        self.ids = ids  # row → chunk_id (the store's Arrow column)
        self._con: duckdb.DuckDBPyConnection | None = duckdb.connect(
            ":memory:", config={"threads": 1, "memory_limit": TEXT_BUFFER_LIMIT})
        self._con.execute(f"ATTACH '{_quoted(str(path))}' AS artifact (READ_ONLY)")
        self._local = threading.local()
        self._lock = threading.Lock()
        self._cache: OrderedDict[int, str] = OrderedDict()
        self._cache_size = cache_size

    def fetch(self, rows: Sequence[int]) -> list[str]:
        """The texts of ``rows``; those not cached in one query (a KnowledgeBaseClosed after ``close``)."""
        if self._con is None:
            raise KnowledgeBaseClosed()
        found: dict[int, str] = {}
        with self._lock:
            for row in rows:
                text = self._cache.get(row)
                if text is not None:
                    self._cache.move_to_end(row)
                    found[row] = text
        missing = sorted({row for row in rows if row not in found})
        for start in range(0, len(missing), FETCH_BATCH):
            fetched = self._query(missing[start:start + FETCH_BATCH])
            found.update(fetched)
            with self._lock:
                self._cache.update(fetched)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return [found[row] for row in rows]

    def _query(self, rows: list[int]) -> dict[int, str]:
        """One query for ``rows`` (literals, not parameters: binding a parameter imports pandas, 1 s and 40 MiB)."""
        wanted = {self.ids[row]: row for row in rows}
        listed = ", ".join(f"'{_quoted(cid)}'" for cid in wanted)
        try:
            got = self._cursor().execute(
                f"SELECT chunk_id, text_for_prompt FROM artifact.chunks WHERE chunk_id IN ({listed})").fetchall()
        except duckdb.ConnectionException:
            raise KnowledgeBaseClosed() from None
        except duckdb.Error as exc:
            from ...artifact.reader import ArtifactDamaged

            raise ArtifactDamaged(self.path, f"reading prompt texts: {str(exc).strip().splitlines()[0]}") from None
        texts = {wanted[cid]: text for cid, text in got}
        if len(texts) != len(wanted):
            from ...artifact.reader import ArtifactDamaged

            raise ArtifactDamaged(self.path, f"{len(wanted) - len(texts)} chunk(s) loaded at open have no prompt text")
        return texts

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        """This thread's cursor on the shared connection (made on first use)."""
        con = self._con
        if con is None:
            raise KnowledgeBaseClosed()
        cursor = getattr(self._local, "cursor", None)
        if cursor is None or getattr(self._local, "of", None) is not con:
            cursor = self._local.cursor = con.cursor()
            self._local.of = con
        return cursor

    def warm(self) -> None:
        """Pay DuckDB's first-query costs at open, not on the first searches: every block of the chunk ids
        (a fetch filters on them; ~6 ms at 100k chunks, and fetches then take 5-8 ms instead of 7-14)."""
        if len(self.ids):
            try:
                self._cursor().execute("SELECT sum(length(chunk_id)) FROM artifact.chunks").fetchall()
            except duckdb.Error:
                pass  # a damaged file: the first fetch says so, by name
            self._query([0])

    def clear_cache(self) -> None:
        """Forget the cached texts (the next fetch of any row queries the file)."""
        with self._lock:
            self._cache.clear()

    def close(self) -> None:
        """Close the connection (and every thread's cursor with it); later fetches raise KnowledgeBaseClosed."""
        con, self._con = self._con, None
        if con is not None:
            con.close()
        self.clear_cache()


def _quoted(text: str) -> str:
    """``text`` inside a single-quoted SQL literal."""
    return text.replace("'", "''")
