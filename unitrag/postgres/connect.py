"""Connecting to PostgreSQL: one readable line for every way it can fail, never a traceback.

The URL is the user's (Neon, RDS, a self-hosted server); it may carry a password, so it is
parsed into a ``DatabaseUrl`` first and messages name the host and database only. A failed
connection is raised outside the ``except`` block that caught libpq's error (which may echo the
URL), so not even the exception's ``__context__`` holds it; errors after connecting come from
the server, which never sees the URL, and are masked all the same.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from ..errors import Unavailable, UserError
from .url import SCHEMES, DatabaseUrl

#: pgvector's iterative index scans (``hnsw.iterative_scan``) arrived in 0.8.0: without them
#: a selective filter can return fewer than k rows.
MIN_PGVECTOR = (0, 8, 0)


def is_postgres_url(value: object) -> bool:
    """Whether ``value`` names a database (``postgresql://``) rather than an artifact file."""
    return isinstance(value, DatabaseUrl) or (isinstance(value, str) and value.startswith(SCHEMES))


def connect(url: str | DatabaseUrl, *, autocommit: bool = True, timeout_s: int = 10) -> Any:
    """A psycopg connection, or a UserError: refused, bad credentials, unknown database, bad URL."""
    url = DatabaseUrl.parse(url)
    try:
        import psycopg
    except ImportError:
        raise UserError("PostgreSQL support needs the pg extra: pip install 'unitrag[pg]'") from None
    try:
        return psycopg.connect(url.conninfo, autocommit=autocommit, connect_timeout=timeout_s, application_name="unitrag")
    except psycopg.Error as exc:  # raised below, outside this block: a libpq message may echo the URL
        failure = f"cannot connect to PostgreSQL at {url.describe()}: {reason(exc, url)}"
        host = (url.hosts[0] if url.hosts else None) or url.params.get("host")
        if not host and _unreachable(first_line(exc)):  # libpq then tried the local Unix socket, not localhost's TCP port
            failure += "; the URL names no host, so this was the local Unix socket: add @host:port for a server over TCP"
    raise UserError(failure)


@contextmanager
def database_errors(url: DatabaseUrl, doing: str) -> Iterator[None]:
    """A server error while ``doing`` something (a lost connection, a missing privilege) as one readable line."""
    import psycopg

    try:
        yield
    except psycopg.OperationalError as exc:  # the server gone, a connection lost, no connection free in time
        raise Unavailable(f"PostgreSQL at {url.describe()} failed while {doing}: {reason(exc, url)}") from None
    except psycopg.Error as exc:
        raise UserError(f"PostgreSQL at {url.describe()} failed while {doing}: {reason(exc, url)}") from None


@contextmanager
def snapshot(conn: Any) -> Iterator[None]:
    """One read-only REPEATABLE READ transaction: everything read inside is of one publish, even when another
    completes meanwhile (its last transaction switches the manifest, chunks and registries together)."""
    import psycopg

    conn.isolation_level, conn.read_only = psycopg.IsolationLevel.REPEATABLE_READ, True
    with conn.transaction():
        yield


def reason(exc: BaseException, url: DatabaseUrl) -> str:
    """The cause of a failure in a few words, with what to check; the URL's secrets masked."""
    text = url.scrub(first_line(exc))
    cause = text.rsplit("failed: ", 1)[-1].removeprefix("FATAL:").strip()
    lowered = cause.lower()
    if "password authentication failed" in lowered or "no password supplied" in lowered:
        return f"{cause} (check the user and password in the URL)"
    if _unreachable(lowered):
        return f"{cause} (is the server running and reachable at that host and port?)"
    if "does not exist" in lowered:
        return f"{cause} (create it, or fix the name in the URL)"
    if _read_only(lowered):
        return f"{cause}{READ_ONLY}"
    return cause


#: Said of a failure a read-only connection caused: a standby, or ``default_transaction_read_only``.
READ_ONLY = ("; this connection is read-only (a standby or replica, or default_transaction_read_only on): "
             "publish to the primary; nothing was published")


def _unreachable(message: str) -> bool:
    """Nothing answered at the address (no server, or no socket file where libpq looked)."""
    return any(words in message.lower() for words in ("connection refused", "no such file or directory"))


def _read_only(message: str) -> bool:
    return "read-only transaction" in message.lower()


def ensure_pgvector(conn: Any, *, create: bool) -> str:
    """The pgvector version in this database (created first when ``create``), registered on ``conn``.

    Raises a UserError when the extension is missing, cannot be created or is older than 0.8, or when the
    connection's search path reaches no schema or leaves out the extension's (its type would not be found).
    """
    import psycopg
    from pgvector.psycopg import register_vector

    installed = _installed(conn)
    if create and installed is None:
        try:
            with conn.transaction():
                # in ``public`` where there is one: created in the first schema of a search path such as
                # ``kb,public``, the type would be out of reach of the next knowledge base's ``coffee,public``
                public = conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = 'public'").fetchone()
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector" + (" SCHEMA public" if public else ""))
        except psycopg.Error as exc:
            if _read_only(first_line(exc)):
                raise UserError(f"the pgvector extension is not installed and cannot be created here{READ_ONLY}") from None
            raise UserError(
                f"the pgvector extension cannot be created in this database ({first_line(exc)}): install pgvector >= 0.8 "
                "on the server, or ask an administrator to run CREATE EXTENSION vector"
            ) from None
        installed = _installed(conn)
    if installed is None:
        raise UserError("the pgvector extension is not installed in this database: run `unitrag publish` first "
                        "(it creates it), or CREATE EXTENSION vector")
    version, schema = installed
    if _version(version) < MIN_PGVECTOR:
        raise UserError(f"pgvector {version} is too old: unitrag needs >= 0.8 (iterative index scans); "
                        "ALTER EXTENSION vector UPDATE after upgrading the package on the server")
    searched, current = schemas_searched(conn)
    if schema not in searched and schema != "pg_catalog":
        raise UserError(f"the pgvector extension is in schema {schema!r}, which the search_path ({', '.join(searched)}) "
                        f"leaves out: add it, e.g. options=-csearch_path%3D{current},{schema} in the URL")
    register_vector(conn)
    return version


def schemas_searched(conn: Any) -> tuple[list[str], str]:
    """The existing schemas of the connection's search path, and the first (where tables go); a UserError when the
    path names none that exists (``options=-csearch_path%3Dnosuch``: was "null values cannot be formatted")."""
    path, searched, current = conn.execute(
        "SELECT current_setting('search_path'), current_schemas(false), current_schema()").fetchone()
    if current is None:
        raise UserError(f"the search_path ({path}) names no schema that exists in this database: CREATE SCHEMA it "
                        "first, or fix options=-csearch_path in the URL")
    return list(searched), str(current)


def _installed(conn: Any) -> tuple[str, str] | None:
    """The installed pgvector's version and schema, or None."""
    row = conn.execute("SELECT e.extversion, n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
                       "WHERE e.extname = 'vector'").fetchone()
    return None if row is None else (str(row[0]), str(row[1]))


def pgvector_would_work(conn: Any) -> str:
    """What ``ensure_pgvector(create=True)`` would find, for a dry run: the version, or its UserError (missing and
    not creatable, too old). The extension is created, if need be, in a transaction rolled back: nothing stays."""
    with conn.transaction(force_rollback=True):
        return ensure_pgvector(conn, create=True)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) if part.isdigit() else 0 for part in text.split(".")[:3])


def first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__
