"""The artifact's tables, as numbered, additive migrations.

Migration N only ever adds (tables, columns, rows) or relaxes a constraint; a reader of
schema version N can read any artifact of version >= N it knows the tables of.
``SCHEMA_VERSION`` is the number of migrations.
"""

from __future__ import annotations

import duckdb

#: ``guard_examples.role`` values that are authors' questions of units, not labelled questions: the runtime
#: reads them as answerability exemplars, and the build's guard fit leaves them out of its negatives.
UNIT_ROLES = frozenset({"unit_question", "clinician_question"})

MIGRATIONS: list[tuple[str, list[str]]] = [
    (
        "initial: manifest, units, chunks, citations, topics, guard rules, prompts",
        [
            "CREATE TABLE manifest (key VARCHAR PRIMARY KEY, value JSON NOT NULL)",
            """CREATE TABLE units (
                unit_id VARCHAR PRIMARY KEY, kind VARCHAR NOT NULL, title VARCHAR NOT NULL,
                lang VARCHAR NOT NULL, access VARCHAR NOT NULL, story_id VARCHAR, "order" INTEGER,
                summary VARCHAR, topics VARCHAR[] NOT NULL, citation_ids VARCHAR[] NOT NULL,
                trigger JSON, severity VARCHAR, source VARCHAR, source_path VARCHAR NOT NULL)""",
            """CREATE TABLE chunks (
                chunk_id VARCHAR PRIMARY KEY, unit_id VARCHAR NOT NULL, kind VARCHAR NOT NULL,
                story_id VARCHAR, scene_id VARCHAR, page INTEGER, title VARCHAR NOT NULL,
                lang VARCHAR NOT NULL, access VARCHAR NOT NULL, topics VARCHAR[] NOT NULL,
                citation_ids VARCHAR[] NOT NULL, text_for_embedding VARCHAR NOT NULL,
                text_for_prompt VARCHAR NOT NULL, extra JSON, source_path VARCHAR NOT NULL,
                content_hash VARCHAR NOT NULL, meta_hash VARCHAR NOT NULL,
                embedding FLOAT[{dim}] NOT NULL)""",
            """CREATE TABLE citations (
                id VARCHAR PRIMARY KEY, title VARCHAR NOT NULL, authors VARCHAR[] NOT NULL,
                year INTEGER NOT NULL, venue VARCHAR, url VARCHAR, doi VARCHAR, pmid VARCHAR)""",
            """CREATE TABLE topics (
                id VARCHAR PRIMARY KEY, is_group BOOLEAN NOT NULL, name_en VARCHAR NOT NULL,
                name_zh VARCHAR NOT NULL, synonyms_en VARCHAR[] NOT NULL, synonyms_zh VARCHAR[] NOT NULL,
                members VARCHAR[] NOT NULL)""",
            """CREATE TABLE guard_rules (
                id VARCHAR PRIMARY KEY, type VARCHAR NOT NULL, patterns_en VARCHAR[] NOT NULL,
                patterns_zh VARCHAR[] NOT NULL, response_en VARCHAR NOT NULL, response_zh VARCHAR NOT NULL)""",
            "CREATE TABLE prompts (name VARCHAR PRIMARY KEY, template VARCHAR NOT NULL)",
        ],
    ),
    (
        "sparse_terms: each chunk's BM25 terms, tokenised at build time (space-separated)",
        [
            # NULL in rows carried over from a version-1 artifact: the runtime then tokenises them itself.
            "ALTER TABLE chunks ADD COLUMN sparse_terms VARCHAR",
        ],
    ),
    (
        "calibration: answerability gates fitted per query pipeline (copied from calibration.json)",
        [
            """CREATE TABLE calibration (
                pipeline_id VARCHAR PRIMARY KEY, feature VARCHAR NOT NULL, a DOUBLE NOT NULL, b DOUBLE NOT NULL,
                threshold DOUBLE, by_lang JSON, n_answerable INTEGER, n_unanswerable INTEGER,
                fitted_at VARCHAR, metrics JSON)""",
        ],
    ),
    (
        "semantic guard: rule examples, near-misses and negatives with their query vectors; the fitted classifier",
        [
            """CREATE TABLE guard_examples (
                rule_id VARCHAR, role VARCHAR NOT NULL, lang VARCHAR NOT NULL, text VARCHAR NOT NULL,
                content_hash VARCHAR NOT NULL, embedding FLOAT[{dim}] NOT NULL)""",
            """CREATE TABLE guard_model (
                class VARCHAR PRIMARY KEY, type VARCHAR, intercept DOUBLE NOT NULL, weights FLOAT[{dim}] NOT NULL,
                threshold DOUBLE, metrics JSON)""",
        ],
    ),
    (
        "stored BM25 index: vocabulary, postings by chunk number, document lengths (unitrag.artifact.postings)",
        [
            # NULL in rows carried over from an older artifact: the runtime then builds the index from sparse_terms.
            "ALTER TABLE chunks ADD COLUMN chunk_no INTEGER",
            "ALTER TABLE chunks ADD COLUMN sparse_length INTEGER",
            "CREATE TABLE sparse_vocab (term_id INTEGER NOT NULL, term VARCHAR NOT NULL)",
            "CREATE TABLE sparse_postings (term_id INTEGER NOT NULL, chunk_no INTEGER NOT NULL, tf USMALLINT NOT NULL)",
        ],
    ),
    (
        "vectors as raw float32 BLOBs by chunk number (unitrag.artifact.vectors), chunks.embedding left NULL; terms' df",
        [
            # Written NULL from schema 6 on (the vectors live in dense_vectors); older artifacts' rows keep theirs.
            "ALTER TABLE chunks ALTER COLUMN embedding DROP NOT NULL",
            "CREATE TABLE dense_vectors (chunk_no INTEGER NOT NULL, vector BLOB NOT NULL)",
            # Postings per term, so that open need not count them (NULL in rows carried over from schema 5).
            "ALTER TABLE sparse_vocab ADD COLUMN df INTEGER",
        ],
    ),
    (
        "topics.excludes: words that contain a topic's name but are not about it (高铁 for 铁)",
        [
            # NULL in rows carried over from an older artifact: no excludes.
            "ALTER TABLE topics ADD COLUMN excludes VARCHAR[]",
        ],
    ),
    (
        "guard_rules.caution_en / caution_zh: a red flag's safety note for questions framed as not acute",
        [
            # NULL in rows carried over from an older artifact, or for a rule without a note: no caution outcome.
            "ALTER TABLE guard_rules ADD COLUMN caution_en VARCHAR",
            "ALTER TABLE guard_rules ADD COLUMN caution_zh VARCHAR",
        ],
    ),
    (
        "guard_rules.similar_without_sign: a red flag by similarity alone, with no sign told, is stopped or noted",
        [
            # NULL in rows carried over from an older artifact: stop, as before.
            "ALTER TABLE guard_rules ADD COLUMN similar_without_sign VARCHAR",
        ],
    ),
    (
        "guard_rules.exempt_restricted_role: a rule the restricted role is answered past",
        [
            # NULL in rows carried over from an older artifact: every caller is stopped, as before.
            "ALTER TABLE guard_rules ADD COLUMN exempt_restricted_role BOOLEAN",
        ],
    ),
]

SCHEMA_VERSION = len(MIGRATIONS)

#: Columns of ``chunks`` that belong to the artifact's stored BM25 index (migration 5): row numbers of
#: its postings. A PostgreSQL target keeps its own index from ``sparse_terms``, so publish leaves them out.
INDEX_COLUMNS = ("chunk_no", "sparse_length")


def migrate(con: duckdb.DuckDBPyConnection, dim: int) -> None:
    """Bring a new or older artifact up to ``SCHEMA_VERSION``, recording each step."""
    con.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, description VARCHAR, applied_at TIMESTAMP)"
    )
    row = con.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()
    current = int(row[0]) if row else 0
    for version, (description, statements) in enumerate(MIGRATIONS, start=1):
        if version <= current:
            continue
        for statement in statements:
            con.execute(statement.format(dim=dim))
        con.execute("INSERT INTO schema_migrations VALUES (?, ?, now())", [version, description])
