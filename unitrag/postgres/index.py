"""The dense index: how the HNSW graph is built (``m``, ``ef_construction``, ``vector`` or ``halfvec``)
and how wide the runtime searches it (``ef_search``).

A bigger graph (``m``) built with a wider candidate list (``ef_construction``) finds more of the
true nearest neighbours at the same ``ef_search``, for a longer build and a larger index;
``halfvec`` stores the graph's vectors in 16 bits (half the index, a faster build) with
distances a little less precise. The trade-off was measured on 100k chunks
(docs/benchmarks/postgres.md, "Index settings"), which is where the defaults come from.

``halfvec`` is an expression index on ``embedding::halfvec(dim)``: the table keeps the full
vectors (scores are computed from them), so switching storage rebuilds the index only.
The settings are read back from the catalog (the index itself is the record), so a
publish rebuilds exactly when the index differs from what it is asked for.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..errors import InvalidArgument

INDEX_NAME = "unitrag_chunks_embedding_hnsw"
#: Where a rebuild puts the new graph while the old one keeps serving; swapped in by rename.
NEW_INDEX_NAME = "unitrag_chunks_embedding_hnsw_new"
#: pgvector's own defaults: an index built without options has these.
PGVECTOR_M, PGVECTOR_EF_CONSTRUCTION = 16, 64
#: pgvector's limits for each setting (hnsw.c): anything outside is refused by the server, later and less clearly.
LIMITS = {"m": (2, 100), "ef_construction": (4, 1000), "ef_search": (1, 1000)}
#: How each setting is spelled on the command line and in ``[publish]`` of unitrag.toml, for messages.
SPELLED = {"m": ("--hnsw-m", "hnsw_m"), "ef_construction": ("--hnsw-ef-construction", "hnsw_ef_construction"),
           "halfvec": ("--halfvec/--no-halfvec", "halfvec"), "ef_search": ("--hnsw-ef-search", "hnsw_ef_search")}


@dataclass(frozen=True)
class IndexSettings:
    """The dense index's build settings and the runtime's default search width; checked when made."""

    # Measured on 100k chunks (docs/benchmarks/postgres.md, "Index settings"): pgvector's own 16 / 64 reach recall@20
    # 0.89 at ef_search 200; 32 / 200 reach 0.97 with p95 1.1-1.2x the in-memory exact path's, and halfvec
    # gives the same recall with a 35% smaller index, a 25% faster build and faster queries.
    m: int = 32
    ef_construction: int = 200
    halfvec: bool = True
    ef_search: int = 200

    def __post_init__(self) -> None:
        for name, (low, high) in LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise InvalidArgument(f"{_named(name)}: expected a whole number from {low} to {high}, got {value!r}")
        if self.ef_construction < 2 * self.m:
            raise InvalidArgument(f"{_named('ef_construction')}: must be at least 2 × m ({2 * self.m}), "
                                  f"got {self.ef_construction}")
        if not isinstance(self.halfvec, bool):
            raise InvalidArgument(f"{_named('halfvec')}: expected true or false, got {self.halfvec!r}")

    @property
    def storage(self) -> str:
        return "halfvec" if self.halfvec else "vector"

    def same_graph(self, other: "IndexSettings | None") -> bool:
        """Whether an index built with ``other`` is the one these settings build (``ef_search`` is a query setting)."""
        return other is not None and (self.m, self.ef_construction, self.halfvec) == (
            other.m, other.ef_construction, other.halfvec)

    def to_dict(self) -> dict[str, Any]:
        """As the manifest records it (the runtime reads ``ef_search`` back) and ``publish --json`` prints it."""
        return {**asdict(self), "storage": self.storage}


def indexed_expression(halfvec: bool, dim: int) -> str:
    """The expression the index is built on, which a query's ORDER BY must repeat for the index to serve it."""
    return f"(embedding::halfvec({int(dim)}))" if halfvec else "embedding"


def order_by_distance(halfvec: bool, dim: int) -> str:
    """The ORDER BY of a dense search on this index; its one parameter is the query vector."""
    if halfvec:
        return f"{indexed_expression(True, dim)} <=> %s::halfvec({int(dim)})"
    return "embedding <=> %s"


def create_index_sql(settings: IndexSettings, dim: int, name: str = INDEX_NAME) -> str:
    ops = "halfvec_cosine_ops" if settings.halfvec else "vector_cosine_ops"
    return (f"CREATE INDEX {name} ON unitrag_chunks USING hnsw ({indexed_expression(settings.halfvec, dim)} {ops}) "
            f"WITH (m = {settings.m}, ef_construction = {settings.ef_construction})")


def built_index(conn: Any, own: str) -> IndexSettings | None:
    """The settings the existing dense index was built with (``ef_search`` left default); None when there is none.

    ``own`` is the SQL resolving a name in the schema publish writes to (``schema._OWN``).
    """
    row = conn.execute(
        f"SELECT c.reloptions, pg_get_indexdef(c.oid) FROM pg_class c WHERE c.oid = {own}", [INDEX_NAME]
    ).fetchone()
    if row is None:
        return None
    options = dict(option.split("=", 1) for option in (row[0] or []))
    return IndexSettings(m=int(options.get("m", PGVECTOR_M)),
                         ef_construction=int(options.get("ef_construction", PGVECTOR_EF_CONSTRUCTION)),
                         halfvec="halfvec_cosine_ops" in row[1])


def _named(field: str) -> str:
    flag, key = SPELLED[field]
    return f"index setting {field} ({flag}; [publish] {key})"
