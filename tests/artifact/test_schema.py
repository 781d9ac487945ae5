"""migrate(): numbered, additive, idempotent, recorded."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from unitrag.artifact.schema import MIGRATIONS, SCHEMA_VERSION, migrate

TABLES = {
    "manifest", "units", "chunks", "citations", "topics", "guard_rules", "prompts", "calibration", "schema_migrations",
    "sparse_vocab", "sparse_postings", "dense_vectors",
    "guard_examples", "guard_model",
}


def tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}


def test_schema_version_is_the_number_of_migrations() -> None:
    assert SCHEMA_VERSION == len(MIGRATIONS) >= 1


def test_migrate_creates_every_table_and_records_each_step() -> None:
    con = duckdb.connect()
    migrate(con, 8)
    assert tables(con) == TABLES
    rows = con.execute("SELECT version, description, applied_at FROM schema_migrations ORDER BY version").fetchall()
    assert [r[0] for r in rows] == list(range(1, SCHEMA_VERSION + 1))
    assert [r[1] for r in rows] == [description for description, _ in MIGRATIONS]
    assert all(r[2] is not None for r in rows)


def test_migrate_is_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    con = duckdb.connect(str(path))
    migrate(con, 8)
    con.execute("INSERT INTO prompts VALUES ('answer', 'Hello {{ q }}')")
    migrate(con, 8)
    migrate(con, 8)
    assert con.execute("SELECT count(*) FROM schema_migrations").fetchone() == (SCHEMA_VERSION,)
    assert con.execute("SELECT * FROM prompts").fetchall() == [("answer", "Hello {{ q }}")]  # data kept
    con.close()
    con = duckdb.connect(str(path))  # and across connections
    migrate(con, 8)
    assert con.execute("SELECT count(*) FROM schema_migrations").fetchone() == (SCHEMA_VERSION,)
    con.close()


@pytest.mark.parametrize("dim", [3, 384])
def test_embedding_column_has_the_given_dimension(dim: int) -> None:
    con = duckdb.connect()
    migrate(con, dim)
    [(column_type,)] = con.execute(
        "SELECT data_type FROM information_schema.columns WHERE table_name = 'chunks' AND column_name = 'embedding'"
    ).fetchall()
    assert column_type == f"FLOAT[{dim}]"


def test_migrate_applies_only_missing_steps() -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description VARCHAR, applied_at TIMESTAMP)")
    con.execute("INSERT INTO schema_migrations VALUES (?, 'pretend', now())", [SCHEMA_VERSION])
    migrate(con, 8)
    assert tables(con) == {"schema_migrations"}  # nothing re-run
    assert con.execute("SELECT count(*) FROM schema_migrations").fetchone() == (1,)
