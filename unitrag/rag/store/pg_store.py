"""The chunk store served from PostgreSQL + pgvector: many app replicas, one shared index.

Everything but the vectors is loaded at open exactly as from the artifact (chunk
metadata and BM25 terms, registries, calibration), so guard, broadening, the
sparse arm, reranking and post-processing run unchanged. Only the dense search
goes to the database: an HNSW index (cosine), the caller's filter in the WHERE
clause so a restricted chunk never takes a slot, and pgvector's iterative scan so
a selective filter still fills k rows. Connections come from a small pool, so
one store serves many threads; a pooled connection the server dropped (a restart, a
failover, ``pg_terminate_backend``) is replaced and the query run once more. The
semantic guard's classifier and examples are published too, so the guard is the
artifact's in full. A store serves one whole publish: it loads in one snapshot and
searches only the rows of the generation it loaded (``postgres.generations``), so a
publish running or killed meanwhile never shows through.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, TypeVar

import numpy as np

from ...errors import InvalidArgument, UserError
from ...postgres.connect import connect, database_errors, ensure_pgvector, snapshot
from ...postgres.generations import live_generation, visible_sql
from ...postgres.index import IndexSettings, order_by_distance
from ...postgres.schema import CHUNKS, check_tables, dense_index, schema_version
from ...postgres.url import DatabaseUrl
from ...artifact.reader import rows_as_dicts
from .exemplars import ROLES_SQL, UNIT_QUESTIONS_SQL, Exemplars
from ..guard.semantic import SemanticGuard
from .artifact_store import CHUNK_COLUMNS, ChunkStore
from ..types import SearchFilter

T = TypeVar("T")

#: HNSW candidate list per query, unless the publish recorded another (pgvector's default is 40; 100 gives
#: recall@20 0.985 on SciFact, 200 0.996: docs/benchmarks/postgres.md); raised to k when k is larger.
DEFAULT_EF_SEARCH = IndexSettings().ef_search
_MAX_EF_SEARCH = 1000  # pgvector's limit
#: Rows fetched past k: halfvec's rounding (about 1e-3 of a cosine) can rank the k-th row just past k, and every
#: score the fusion reranker normalises over the list moves with its tail (the published store gave another 5th
#: source than the artifact for one of the sample's dev questions).
_MARGIN = 8


@dataclass
class PgChunkStore(ChunkStore):
    pool: Any = None  # psycopg_pool.ConnectionPool
    ef_search: int = DEFAULT_EF_SEARCH
    url: DatabaseUrl | None = None
    #: Whether the index is on ``embedding::halfvec(dim)``: the query's ORDER BY must say the same to use it.
    halfvec: bool = False
    #: The condition on chunk rows of the publish generation this store loaded (``postgres.generations``).
    visible: str = ""

    def __repr__(self) -> str:
        return f"PgChunkStore({self.url}, {len(self.ids)} chunks)"  # the URL redacted, and not every column

    @classmethod
    def load(  # type: ignore[override]
        cls, url: str | DatabaseUrl, *, ef_search: int | None = None, max_connections: int = 8,
    ) -> "PgChunkStore":
        """Open what ``unitrag publish`` wrote to ``url``; a UserError when there is nothing complete there.

        ``ef_search`` overrides the one the publish recorded (``unitrag publish --hnsw-ef-search``).
        """
        url = DatabaseUrl.parse(url)
        if ef_search is not None:
            IndexSettings(ef_search=ef_search)  # the same range check as the publish option
        with connect(url) as conn, database_errors(url, "loading the knowledge base"), snapshot(conn):
            check_tables(conn)
            version = schema_version(conn)
            if version == 0:
                raise UserError(f"no unitrag knowledge base at {url.describe()}: run `unitrag publish --to <url>` first")
            ensure_pgvector(conn, create=False)
            manifest = dict(conn.execute("SELECT key, value FROM unitrag_manifest").fetchall())
            if "completed_at" not in (manifest.get("publish") or {}):
                raise UserError(f"the first publish to {url.describe()} has not completed: run `unitrag publish` again")
            visible = visible_sql(version, live_generation(manifest["publish"]))
            columns = _columns(conn.execute(f"SELECT {CHUNK_COLUMNS}, sparse_terms FROM {CHUNKS}"
                                            + (f" WHERE {visible}" if visible else "") + ' ORDER BY chunk_id COLLATE "C"'))
            tables = {
                "citations": rows_as_dicts(conn, "SELECT * FROM unitrag_citations"),
                "topics": rows_as_dicts(conn, 'SELECT * FROM unitrag_topics ORDER BY id COLLATE "C"'),
                "guard_rules": rows_as_dicts(conn, 'SELECT * FROM unitrag_guard_rules ORDER BY id COLLATE "C"'),
                "prompts": dict(conn.execute("SELECT name, template FROM unitrag_prompts").fetchall()),
                # JSON as text, as the artifact returns it: one parser for every backend
                "units": rows_as_dicts(conn, 'SELECT unit_id, kind, title, story_id, "order", trigger::text AS trigger, severity '
                                     'FROM unitrag_units ORDER BY unit_id COLLATE "C"'),  # RowsByKey bisects it as it is
                "calibration": rows_as_dicts(conn, "SELECT pipeline_id, feature, a, b, threshold, by_lang::text AS by_lang, "
                                           "n_answerable, n_unanswerable, fitted_at, metrics::text AS metrics "
                                           "FROM unitrag_calibration"),
            }
            built = dense_index(conn)
            guard = _semantic_guard(conn)
            exemplars = _exemplars(conn)
            unit_questions = (rows_as_dicts(conn, UNIT_QUESTIONS_SQL.format(table="unitrag_guard_examples"))
                              if schema_version(conn) >= 2 else [])
        dim = int(manifest["embedder"]["dim"])
        store = cls.assemble(manifest=manifest, vectors=np.zeros((0, dim), np.float32), columns=columns, **tables)
        recorded = (manifest.get("index") or {}).get("ef_search", DEFAULT_EF_SEARCH)
        store.ef_search, store.url = recorded if ef_search is None else ef_search, url
        store.halfvec, store.semantic_guard, store.exemplars = built is not None and built.halfvec, guard, exemplars
        store.visible = visible
        store.unit_questions = unit_questions
        store.pool = _pool(url, max_connections)
        return store

    def close(self) -> None:
        """Close the connection pool (idle connections count against a managed database's limit)."""
        if self.pool is not None:
            self.pool.close()

    def dense_search(self, vector: np.ndarray, k: int, where: SearchFilter) -> tuple[np.ndarray, np.ndarray]:
        """Row indexes and cosine scores of the ``k`` best rows ``where`` allows, from the HNSW index.

        Only rows of the publish generation this store loaded are searched, so a publish completed since
        changes nothing here (reopen to serve it, as with a new artifact) until the publish after it
        starts and deletes the rows it replaced: those then drop out of the results.
        """
        conditions, params = filter_sql(where, self.visible)
        query = np.asarray(vector, dtype=np.float32)
        order = order_by_distance(self.halfvec, len(query))

        def search(conn: Any) -> list[tuple[str, float]]:  # one transaction: the SET LOCALs hold for the query only
            conn.execute(
                "SELECT set_config('hnsw.ef_search', %s, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)",
                [str(min(max(self.ef_search, k), _MAX_EF_SEARCH))],
            )
            return conn.execute(  # ranked by the index's distance; scored (and re-sorted) by the full vectors'
                f"SELECT chunk_id, embedding <=> %s AS distance FROM {CHUNKS}{conditions} ORDER BY {order} LIMIT %s",
                [query, *params, query, k + _MARGIN],
            ).fetchall()

        rows = self._on_connection(search, "searching")
        # relaxed_order (and halfvec's rounding) may return near-ties slightly out of order, and put the k-th row
        # just past k: the margin's rows, re-sorted by the full vectors' distance, bring it back
        rows.sort(key=lambda row: row[1])
        rows = rows[:k]
        scored = [(self.index.get(cid), 1.0 - distance) for cid, distance in rows]  # one bisect per result
        found = [(row, score) for row, score in scored if row is not None]
        return (np.array([r for r, _ in found], dtype=np.int64), np.array([s for _, s in found], dtype=np.float32))

    def _on_connection(self, run: Callable[[Any], T], doing: str) -> T:
        """``run(conn)`` on a pooled connection, once more on a fresh one when the server had dropped it.

        The pool hands out idle connections untested (a test per query would cost a round trip), so
        the first use after a restart, a failover or ``pg_terminate_backend`` finds it dead; then
        every idle connection is checked, since they usually went together, and the query retried.
        """
        import psycopg

        assert self.pool is not None and self.url is not None, "PgChunkStore.load makes the pool"
        with database_errors(self.url, doing):
            for attempt in (1, 2):
                conn = None
                try:
                    with self.pool.connection() as conn:
                        return run(conn)
                except psycopg.OperationalError:
                    if attempt == 2 or conn is None or not conn.broken:
                        raise
                self.pool.check()
        raise AssertionError("unreachable: the second attempt returns or raises")


def filter_sql(where: SearchFilter, visible: str = "") -> tuple[str, list[Any]]:
    """The WHERE clause of a SearchFilter (the same rules as ``ChunkStore.mask``) and its parameters,
    within the rows ``visible`` allows (``postgres.generations.visible_sql``; empty: every row).

    A NUL character is an ``InvalidArgument``: PostgreSQL text cannot hold one (so no chunk has it),
    and the driver would refuse it with a DataError.
    """
    for name, values in (("lang", [where.lang] if where.lang is not None else []), ("kinds", where.kinds),
                         ("topics", where.topics)):
        for value in values:
            if "\x00" in str(value):
                raise InvalidArgument(f"{name}: {str(value)[:40]!r} holds a NUL character (\\x00), which no chunk has")
    conditions: list[str] = [visible] if visible else []
    params: list[Any] = []
    if not where.restricted:
        conditions.append("access = 'public'")
    if where.lang is not None:
        conditions.append("lang = %s")
        params.append(where.lang)
    if where.kinds:
        conditions.append("kind = ANY(%s)")
        params.append(list(where.kinds))
    if where.topics:
        conditions.append("topics && %s::text[]")
        params.append(list(where.topics))
    return (" WHERE " + " AND ".join(conditions) if conditions else ""), params


def _semantic_guard(conn: Any) -> SemanticGuard | None:
    """The guard's classifier as published; None before it was (schema 1) or when no rule has examples."""
    if schema_version(conn) < 2:
        return None
    model = rows_as_dicts(conn, "SELECT class, type, intercept, weights::real[] AS weights, threshold, "
                                "metrics::text AS metrics FROM unitrag_guard_model")
    examples = rows_as_dicts(conn, "SELECT rule_id, role, text, embedding::real[] AS embedding "
                                   "FROM unitrag_guard_examples WHERE role = 'example'")
    return SemanticGuard(model, examples) if len(model) > 1 else None


def _exemplars(conn: Any) -> Exemplars | None:
    """The answerability exemplars as published; None before the guard's examples were (schema 1)."""
    if schema_version(conn) < 2:
        return None
    return Exemplars.from_rows(rows_as_dicts(conn, "SELECT role, text, embedding::real[] AS embedding, rule_id "
                                                   f"FROM unitrag_guard_examples WHERE role IN ({ROLES_SQL})"))


#: Seconds a question waits for a pooled connection (and a new one to connect) before the database is reported
#: unavailable: psycopg_pool's default, 30 s, is a server's whole request budget, so a database down looked like a
#: slow server (a 504 after 30 s) rather than a 503 at once.
POOL_WAIT_S = 5


def _pool(url: DatabaseUrl, max_connections: int) -> Any:
    from psycopg_pool import ConnectionPool

    def configure(conn: Any) -> None:
        ensure_pgvector(conn, create=False)
        conn.commit()  # a pooled connection must be handed out idle

    return ConnectionPool(url.conninfo, min_size=1, max_size=max_connections, configure=configure, open=True,
                          kwargs={"application_name": "unitrag", "connect_timeout": POOL_WAIT_S},
                          name="unitrag", timeout=POOL_WAIT_S)


def _columns(cursor: Any) -> dict[str, list[Any]]:
    names = [d[0] for d in cursor.description]
    rows = cursor.fetchall()
    return {name: [row[i] for row in rows] for i, name in enumerate(names)}
