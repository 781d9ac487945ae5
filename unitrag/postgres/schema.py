"""The PostgreSQL tables, as numbered, additive migrations recorded in ``unitrag_migrations``.

They mirror the artifact's tables (``unitrag.artifact.schema``) with a ``unitrag_``
prefix, so they can live beside an application's own tables; JSON columns are
``jsonb`` and the embedding is a pgvector ``vector(dim)`` with an HNSW index for
cosine distance. The embedding dimension is fixed when the tables are created:
a different embedder needs a fresh database (``publish`` refuses, writing nothing).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from ..errors import UserError
from .index import INDEX_NAME, NEW_INDEX_NAME, IndexSettings, built_index, create_index_sql

CHUNKS = "unitrag_chunks"
MANIFEST = "unitrag_manifest"
MIGRATIONS_TABLE = (
    "CREATE TABLE IF NOT EXISTS unitrag_migrations "
    "(version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
)
#: A table of ours in the schema new tables go to (the first of the search path), never one further down the path.
_OWN = "to_regclass(format('%%I.%%I', current_schema(), %s::text))"
#: The artifact's registry tables, each replaced whole when its rows change.
REGISTRIES = ("units", "citations", "topics", "guard_rules", "prompts", "calibration", "guard_examples", "guard_model")

#: The dense index as the first migration made it (pgvector's defaults). A first publish drops it, loads
#: every row, then builds it once with the publish's settings (``index.create_index_sql``): one bulk
#: build is many times faster than maintaining the graph on each insert.
HNSW_INDEX = f"CREATE INDEX IF NOT EXISTS {INDEX_NAME} ON unitrag_chunks USING hnsw (embedding vector_cosine_ops)"
#: Memory for building the HNSW graph (pgvector builds far faster when the graph fits); session-local.
INDEX_BUILD_MEMORY = "512MB"

MIGRATIONS: list[tuple[str, list[str]]] = [
    (
        "initial: manifest, units, chunks with vector(dim) and an HNSW cosine index, registries, calibration",
        [
            "CREATE EXTENSION IF NOT EXISTS vector",
            "CREATE TABLE unitrag_manifest (key text PRIMARY KEY, value jsonb NOT NULL)",
            """CREATE TABLE unitrag_units (
                unit_id text PRIMARY KEY, kind text NOT NULL, title text NOT NULL, lang text NOT NULL,
                access text NOT NULL, story_id text, "order" integer, summary text, topics text[] NOT NULL,
                citation_ids text[] NOT NULL, trigger jsonb, severity text, source text, source_path text NOT NULL)""",
            """CREATE TABLE unitrag_chunks (
                chunk_id text PRIMARY KEY, unit_id text NOT NULL, kind text NOT NULL, story_id text, scene_id text,
                page integer, title text NOT NULL, lang text NOT NULL, access text NOT NULL, topics text[] NOT NULL,
                citation_ids text[] NOT NULL, text_for_embedding text NOT NULL, text_for_prompt text NOT NULL,
                extra jsonb, source_path text NOT NULL, sparse_terms text, content_hash text NOT NULL,
                meta_hash text NOT NULL, embedding vector({dim}) NOT NULL)""",
            HNSW_INDEX,
            "CREATE INDEX unitrag_chunks_topics ON unitrag_chunks USING gin (topics)",
            """CREATE TABLE unitrag_citations (
                id text PRIMARY KEY, title text NOT NULL, authors text[] NOT NULL, year integer NOT NULL,
                venue text, url text, doi text, pmid text)""",
            """CREATE TABLE unitrag_topics (
                id text PRIMARY KEY, is_group boolean NOT NULL, name_en text NOT NULL, name_zh text NOT NULL,
                synonyms_en text[] NOT NULL, synonyms_zh text[] NOT NULL, members text[] NOT NULL)""",
            """CREATE TABLE unitrag_guard_rules (
                id text PRIMARY KEY, type text NOT NULL, patterns_en text[] NOT NULL, patterns_zh text[] NOT NULL,
                response_en text NOT NULL, response_zh text NOT NULL)""",
            "CREATE TABLE unitrag_prompts (name text PRIMARY KEY, template text NOT NULL)",
            """CREATE TABLE unitrag_calibration (
                pipeline_id text PRIMARY KEY, feature text NOT NULL, a double precision NOT NULL,
                b double precision NOT NULL, threshold double precision, by_lang jsonb, n_answerable integer,
                n_unanswerable integer, fitted_at text, metrics jsonb)""",
        ],
    ),
    (
        "semantic guard: rule examples with their query vectors, and the fitted classifier (artifact schema 4)",
        [
            """CREATE TABLE unitrag_guard_examples (
                rule_id text, role text NOT NULL, lang text NOT NULL, text text NOT NULL, content_hash text NOT NULL,
                embedding vector({dim}) NOT NULL)""",
            """CREATE TABLE unitrag_guard_model (
                class text PRIMARY KEY, type text, intercept double precision NOT NULL, weights vector({dim}) NOT NULL,
                threshold double precision, metrics jsonb)""",
        ],
    ),
    (
        "topics.excludes: words that contain a topic's name but are not about it (artifact schema 7)",
        [
            # NULL in rows published before it, or from an artifact older than schema 7: no excludes.
            "ALTER TABLE unitrag_topics ADD COLUMN excludes text[]",
        ],
    ),
    (
        "publish generations: each chunk row records the publish that added it and the one that removed it, so "
        "readers see one whole publish while the next is written (generations.py)",
        [
            # Rows published before it are generation 0, which a database without a numbered publish serves.
            "ALTER TABLE unitrag_chunks ADD COLUMN added_in integer NOT NULL DEFAULT 0",
            "ALTER TABLE unitrag_chunks ADD COLUMN removed_in integer",
            "ALTER TABLE unitrag_chunks ALTER COLUMN added_in DROP DEFAULT",
            "ALTER TABLE unitrag_chunks DROP CONSTRAINT unitrag_chunks_pkey, ADD PRIMARY KEY (chunk_id, added_in)",
        ],
    ),
    (
        "guard_rules.caution_en / caution_zh: a red flag's safety note (artifact schema 8)",
        [
            # NULL in rows published before it, or for a rule without a note: no caution outcome.
            "ALTER TABLE unitrag_guard_rules ADD COLUMN caution_en text",
            "ALTER TABLE unitrag_guard_rules ADD COLUMN caution_zh text",
        ],
    ),
    (
        "guard_rules.similar_without_sign: stop or note a red flag by similarity alone (artifact schema 9)",
        [
            # NULL in rows published before it: stop, as before.
            "ALTER TABLE unitrag_guard_rules ADD COLUMN similar_without_sign text",
        ],
    ),
    (
        "guard_rules.exempt_restricted_role: a rule the restricted role is answered past (artifact schema 10)",
        [
            # NULL in rows published before it: every caller is stopped, as before.
            "ALTER TABLE unitrag_guard_rules ADD COLUMN exempt_restricted_role boolean",
        ],
    ),
]

SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(conn: Any) -> int:
    """The last migration applied to this database; 0 when unitrag has never published here."""
    if conn.execute(f"SELECT {_OWN}", ["unitrag_migrations"]).fetchone()[0] is None:
        return 0
    return int(conn.execute("SELECT coalesce(max(version), 0) FROM unitrag_migrations").fetchone()[0])


def embedding_dim(conn: Any) -> int | None:
    """The ``vector(n)`` dimension the chunks table was created with, or None before the first publish."""
    row = conn.execute(
        f"SELECT atttypmod FROM pg_attribute WHERE attrelid = {_OWN} AND attname = 'embedding'", [CHUNKS]
    ).fetchone()
    return int(row[0]) if row else None


def migrate(conn: Any, dim: int) -> list[int]:
    """Apply the migrations this database lacks, in one transaction; returns the versions applied."""
    applied = []
    with conn.transaction():
        conn.execute(MIGRATIONS_TABLE)
        current = schema_version(conn)
        for version, (description, statements) in enumerate(MIGRATIONS, start=1):
            if version <= current:
                continue
            for statement in statements:
                conn.execute(statement.replace("{dim}", str(int(dim))))
            conn.execute("INSERT INTO unitrag_migrations (version, description) VALUES (%s, %s)", [version, description])
            applied.append(version)
    return applied


def column_types(conn: Any, table: str) -> list[tuple[str, int]]:
    """(column, type oid) of a table in order: the catalog, not a second copy of the DDL, drives COPY."""
    return [
        (str(name), int(oid)) for name, oid in conn.execute(
            f"SELECT attname, atttypid FROM pg_attribute WHERE attrelid = {_OWN} AND attnum > 0 "
            "AND NOT attisdropped ORDER BY attnum", [table],
        ).fetchall()
    ]


def drop_dense_index(conn: Any) -> None:
    """Before loading into an empty table: the index is rebuilt in one pass by ``ensure_dense_index``."""
    with conn.transaction():
        conn.execute(f"DROP INDEX IF EXISTS {INDEX_NAME}")


def dense_index(conn: Any) -> IndexSettings | None:
    """The settings the dense index was built with (``index.built_index``); None when it is missing."""
    return built_index(conn, _OWN)


def ensure_dense_index(conn: Any, settings: IndexSettings, dim: int) -> bool:
    """Build the HNSW index unless the one there was built with ``settings``; whether it built one.

    The new graph is built beside the old one, which serves queries meanwhile, and swapped in by
    rename in the same transaction: an interrupted rebuild leaves the old index, never none.
    """
    if settings.same_graph(dense_index(conn)):
        return False
    with conn.transaction():
        conn.execute(f"SET LOCAL maintenance_work_mem = '{INDEX_BUILD_MEMORY}'")
        conn.execute(create_index_sql(settings, dim, NEW_INDEX_NAME))
        conn.execute(f"DROP INDEX IF EXISTS {INDEX_NAME}")
        conn.execute(f"ALTER INDEX {NEW_INDEX_NAME} RENAME TO {INDEX_NAME}")
    return True


def check_tables(conn: Any) -> None:
    """Refuse ``unitrag_*`` tables that the migrations did not make as they are: another application's
    table of the same name, or one altered since. Named with its columns, before anything is written."""
    version = _recorded_version(conn)
    expected = table_columns(version or SCHEMA_VERSION)
    found = {table: [name for name, _ in column_types(conn, table)] for table in expected}
    found = {table: columns for table, columns in found.items() if columns}
    problems = []
    for table, columns in found.items():
        unexpected = sorted(set(columns) - set(expected[table]))
        missing = [name for name in expected[table] if name not in columns]
        if unexpected or missing:
            said = [f"unexpected column(s): {', '.join(unexpected)}"] * bool(unexpected)
            said += [f"missing column(s): {', '.join(missing)}"] * bool(missing)
            problems.append(f"{table} ({'; '.join(said)})")
    strangers = sorted(set(found) - {"unitrag_migrations"}) if version == 0 else []
    if problems or strangers:
        tables = sorted(set(found) if version == 0 else {p.split(" ", 1)[0] for p in problems})
        what = ("; ".join(problems) + " differ from what unitrag publish makes") if problems else (
            f"{', '.join(strangers)} exist but unitrag publish did not make them (no unitrag_migrations record)")
        raise UserError(
            f"table(s) {what}. Drop them if nothing else needs them (DROP TABLE {', '.join(tables)}) and publish "
            "again, or publish into another schema: CREATE SCHEMA kb, then add ?options=-csearch_path%3Dkb,public to the URL"
        )


def _recorded_version(conn: Any) -> int:
    """schema_version, or 0 when ``unitrag_migrations`` itself is not ours (check_tables then says so)."""
    names = {name for name, _ in column_types(conn, "unitrag_migrations")}
    return schema_version(conn) if {"version"} <= names else 0


@cache
def table_columns(version: int) -> dict[str, list[str]]:
    """Each table's columns after migration ``version``, read from the migrations' own DDL (one description)."""
    tables: dict[str, list[str]] = {}
    for statement in [MIGRATIONS_TABLE] + [s for _, statements in MIGRATIONS[:version] for s in statements]:
        created = re.match(r"\s*CREATE TABLE (?:IF NOT EXISTS )?(\w+)\s*\((.*)\)\s*$", statement, re.S)
        if created:
            tables[created[1]] = [_column_name(item) for item in _top_level_items(created[2])]
            tables[created[1]] = [name for name in tables[created[1]] if name]
        for table, column in re.findall(r"ALTER TABLE (\w+) ADD COLUMN (?:IF NOT EXISTS )?\"?(\w+)", statement):
            tables[table].append(column)
    return tables


def _top_level_items(body: str) -> list[str]:
    """A column list split at its top-level commas (``vector(384)`` and ``numeric(5, 2)`` stay whole)."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(body):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            items.append(body[start:i])
            start = i + 1
    return items + [body[start:]]


def _column_name(item: str) -> str | None:
    """The column an item of a column list defines; None for a table constraint."""
    word = item.split()[0].strip('"')
    return None if word.upper() in ("PRIMARY", "UNIQUE", "CONSTRAINT", "FOREIGN", "CHECK", "EXCLUDE") else word
