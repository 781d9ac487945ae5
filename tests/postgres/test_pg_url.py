"""DatabaseUrl: what a valid URL parses to, and what str, repr, describe and scrub show of it (no server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from unitrag.errors import InvalidArgument, UserError
from unitrag.postgres.url import DatabaseUrl, redacted_location


@pytest.mark.parametrize("text, redacted, described", [
    ("postgresql://alice:Zq7s3cr3t@db.example.com:5433/kb", "postgresql://alice:***@db.example.com:5433/kb",
     "db.example.com:5433/kb"),
    ("postgres://alice:Zq7%40s%2F3%3A%25@[::1]:5432/kb?sslmode=require",
     "postgres://alice:***@[::1]:5432/kb?sslmode=require", "[::1]:5432/kb"),
    ("postgresql://alice@h1:5432,h2/kb?password=Zq7s3cr3t&target_session_attrs=read-write",
     "postgresql://alice@h1:5432,h2/kb?password=***&target_session_attrs=read-write", "h1:5432/kb"),
    ("postgresql://postgres:@/kb?host=/tmp/pg", "postgresql://postgres:@/kb?host=/tmp/pg", "/tmp/pg/kb"),
    ("postgresql://%2Fvar%2Frun%2Fpostgresql/kb", "postgresql://%2Fvar%2Frun%2Fpostgresql/kb", "/var/run/postgresql/kb"),
    ("postgresql://alice@localhost", "postgresql://alice@localhost", "localhost/alice"),
    # a query parameter overrides the URL's own part for libpq: the report names where the rows went (an attacker's)
    ("postgresql://alice@db.example.com:5432/d1?dbname=d9&host=/sock", "postgresql://alice@db.example.com:5432/d1?dbname=d9&host=/sock",
     "/sock:5432/d9"),
])
def test_a_valid_url_keeps_its_text_for_the_driver_and_shows_no_secret(text, redacted, described):
    url = DatabaseUrl.parse(text)
    assert url.conninfo == text and DatabaseUrl.parse(url) is url and url == DatabaseUrl.parse(text)
    assert str(url) == redacted and repr(url) == f"DatabaseUrl({redacted!r})" and url.describe() == described
    assert "Zq7" not in str(url) + repr(url) + url.describe()


def test_scrub_masks_the_password_as_written_and_decoded():
    url = DatabaseUrl.parse("postgresql://alice:Zq7%40s3cr3t@localhost/kb?sslpassword=Zq7key")
    assert url.password == "Zq7@s3cr3t" and url.params["sslpassword"] == "Zq7key"
    echoed = f'bad token "Zq7%40s3cr3t", decoded Zq7@s3cr3t, key Zq7key, in {url.conninfo}'
    assert "Zq7" not in url.scrub(echoed)
    assert url.scrub(url.conninfo) == str(url)


@pytest.mark.parametrize("value", [None, 5, b"postgresql://a:b@h/db", "host=h password=Zq7", "mysql://a:Zq7@h/db"])
def test_not_a_postgresql_url_is_an_invalid_argument_that_does_not_echo_it(value):
    with pytest.raises(InvalidArgument) as info:
        DatabaseUrl.parse(value)
    assert isinstance(info.value, UserError) and isinstance(info.value, ValueError)
    assert "Zq7" not in str(info.value) and "expected postgresql://" in str(info.value)


# -- redacted_location: the one way to print or log where a knowledge base is (issue 22, item 2) ------------------


@pytest.mark.parametrize("location, shown", [
    ("dist/kb.duckdb", "dist/kb.duckdb"),
    (Path("/srv/kb/kb.duckdb"), "/srv/kb/kb.duckdb"),
    ("postgresql://pwuser:S3cretPW@/kb1?host=/tmp/pg", "postgresql://pwuser:***@/kb1?host=/tmp/pg"),
    ("postgresql://user:S3cretPW@db:5432/kb", "postgresql://user:***@db:5432/kb"),
    ("postgres://alice@db/kb?password=S3cretPW&sslpassword=S3cretPW&sslmode=require",
     "postgres://alice@db/kb?password=***&sslpassword=***&sslmode=require"),
    ("postgresql://alice:S3cretPW@db/kb?passwd=S3cretPW", "postgresql://***"),  # libpq refuses it: nothing shown
    ("postgresql://alice:S3cret@PW@db/kb", "postgresql://***"),  # an unencoded '@': it does not parse
    ("mysql://alice:S3cretPW@db/kb", "mysql://alice:***@db/kb"),
])
def test_a_location_is_shown_without_its_secrets(location, shown):
    assert redacted_location(location) == shown
    assert redacted_location(DatabaseUrl.parse(location) if str(location).startswith("postgres") and shown != "postgresql://***"
                             else location) == shown
    assert "S3cret" not in redacted_location(location)


def test_a_url_without_a_host_is_said_to_be_the_local_socket_when_it_cannot_connect(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from unitrag.postgres.connect import connect

    monkeypatch.setenv("PGHOST", str(tmp_path))  # libpq's socket directory when the URL names none: nothing listens
    with pytest.raises(UserError, match="the URL names no host, so this was the local Unix socket") as raised:
        connect("postgresql://user:pw@/db", timeout_s=2)
    assert "pw" not in str(raised.value)
    with pytest.raises(UserError) as tcp:
        connect("postgresql://user:pw@127.0.0.1:1/db", timeout_s=2)
    assert "local Unix socket" not in str(tcp.value)
    with pytest.raises(UserError) as named:  # the socket named in the URL: the user knows it was one
        connect(f"postgresql://user:pw@/db?host={tmp_path}", timeout_s=2)
    assert "local Unix socket" not in str(named.value)


@pytest.mark.parametrize("text, shown", [
    ("host=db password=Zq7s3cr3t dbname=kb", "host=db password=*** dbname=kb"),
    ("host=db password='Zq7 s3\\' cr3t' dbname=kb", "host=db password=*** dbname=kb"),
    ("host=db sslpassword = Zq7s3cr3t", "host=db sslpassword = ***"),
    ("dist/kb.duckdb", "dist/kb.duckdb"),
])
def test_a_keyword_string_shows_no_password(text, shown):
    assert redacted_location(text) == shown


@pytest.mark.parametrize("location, database", [
    ("postgresql://a:Zq7@h/kb", True), (Path("postgresql://a:Zq7@h/kb"), True), ("postgres://h/kb", True),
    ("host=db dbname=kb", True), ("dbname=kb", True), ("dist/kb.duckdb", False), ("my kb=1.duckdb", False),
])
def test_a_database_location_is_told_from_a_path(location, database):
    from unitrag.config import looks_like_database

    assert looks_like_database(location) is database
