"""A database URL's password never reaches a message: malformed URLs, failed connections, server errors, reprs, logs.

Every password below contains the marker ``Zq7`` (or, for the real role, ``Rt9``); a message,
an exception anywhere in the chain, a repr or a log line that holds it has leaked it.
"""

from __future__ import annotations

import logging
import sys
from typing import Callable, Iterator

import psycopg
import pytest

from unitrag.cli import main
from unitrag.errors import UserError
from unitrag.postgres.publish import publish
from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.rag.store.pg_store import PgChunkStore

MARKERS = ("Zq7", "s3cr3t", "Rt9", "p@ss", "p%40ss")

#: (what is wrong, the URL, what the message says about it)
MALFORMED = {
    "ipv6 without ]": ("postgresql://alice:Zq7s3cr3t@[::1/kb", "IPv6"),
    "encoded specials and a bad ipv6": ("postgresql://alice:Zq7%40s3%2Fcr%3A3t%25%20x@[::1/kb", "IPv6"),
    "port out of range": ("postgresql://alice:Zq7s3cr3t@localhost:99999/kb", "port"),
    "port not a number": ("postgresql://alice:Zq7s3cr3t@localhost:5x32/kb", "port"),
    "slash in the password": ("postgresql://alice:Zq7/s3cr3t@localhost/kb", "percent-encode"),
    "two @": ("postgresql://alice:Zq7@s3cr3t@localhost/kb", "percent-encode"),
    "bad percent escape": ("postgresql://alice:Zq7%zzs3cr3t@localhost/kb", "percent"),
    "space in the user": ("postgresql://al ice:Zq7s3cr3t@localhost/kb", "space"),
    "unknown parameter": ("postgresql://alice:Zq7s3cr3t@localhost/kb?passwd=Zq7", "passwd"),
    "password parameter, bad sslmode": ("postgresql://alice@localhost/kb?password=Zq7s3cr3t&sslmode=bogus", "sslmode"),
    "unknown host": ("postgresql://alice:Zq7s3cr3t@no-such-host.invalid/kb", "no-such-host.invalid"),
    "connection refused": ("postgresql://alice:Zq7s3cr3t@127.0.0.1:9/kb", "refused"),
}


def _chain(exc: BaseException | None) -> Iterator[BaseException]:
    """The exception and everything it was raised from or while handling."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        leaked = [m for m in MARKERS if m in text]
        assert not leaked, f"{leaked} in {text!r}"


def assert_clean_error(exc: BaseException) -> str:
    """One line, and no password in any exception of the chain (str, repr, args)."""
    assert isinstance(exc, UserError), repr(exc)
    for link in _chain(exc):
        assert_no_secret(str(link), repr(link), *map(repr, link.args))
    message = str(exc)
    assert "\n" not in message
    return message


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, tmp_path) -> Callable[..., tuple[int, str, str]]:
    """Run the console entry point in this process, in an empty folder (no unitrag.toml): (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)

    def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
        for name, value in (env or {}).items():
            monkeypatch.setenv(name, value)
        monkeypatch.setattr(sys, "argv", ["unitrag", *args])
        with pytest.raises(SystemExit) as exited:
            main()
        out, err = capsys.readouterr()
        return int(exited.value.code or 0), out, err

    return run


@pytest.mark.parametrize("url, says", MALFORMED.values(), ids=list(MALFORMED))
def test_api_errors_never_show_the_password(url, says, built_sample, caplog):
    caplog.set_level(logging.DEBUG)
    for call in (lambda: KnowledgeBase.open(url), lambda: PgChunkStore.load(url),
                 lambda: publish(built_sample[0].artifact, url), lambda: publish(built_sample[0].artifact, url, dry_run=True)):
        with pytest.raises(UserError) as info:
            call()
        assert says in assert_clean_error(info.value)
    assert_no_secret(caplog.text)


@pytest.mark.parametrize("url, says", MALFORMED.values(), ids=list(MALFORMED))
def test_cli_errors_are_one_line_exit_1_without_the_password(url, says, built_sample, cli):
    artifact = str(built_sample[0].artifact)
    for args, env in (
        (("publish", "--kb", artifact, "--to", url), None),
        (("publish", "--kb", artifact, "--dry-run"), {"UNITRAG_DATABASE_URL": url}),
        (("search", "--kb", url, "iodine"), None),
        (("ask", "--kb", url, "How much iodine in pregnancy?", "--llm", "none"), None),
    ):
        code, out, err = cli(*args, env=env)
        assert code == 1 and out == "", (args, out, err)
        assert err.startswith("error: ") and err.count("\n") == 1 and says in err, err
        assert_no_secret(err)


def test_help_does_not_show_the_url_from_the_environment(cli):
    code, out, _ = cli("publish", "--help", env={"UNITRAG_DATABASE_URL": MALFORMED["unknown host"][0]})
    assert code == 0 and "UNITRAG_DATABASE_URL" in out
    assert_no_secret(out)


def test_a_wrong_password_with_special_characters_is_not_shown(published_sample, as_password_role, built_sample, cli):
    url = as_password_role(published_sample, "Zq7 w@ng/p:ss%")
    for call in (lambda: KnowledgeBase.open(url), lambda: publish(built_sample[0].artifact, url)):
        with pytest.raises(UserError) as info:
            call()
        assert "password authentication failed" in assert_clean_error(info.value)
    code, out, err = cli("search", "--kb", url, "iodine")
    assert code == 1 and err.startswith("error: cannot connect") and err.count("\n") == 1
    assert_no_secret(err)


def test_the_right_password_with_special_characters_connects_and_is_never_shown(
    published_sample, new_database, as_password_role, password_role, built_sample
):
    from unitrag.postgres.url import DatabaseUrl

    role, password = password_role
    url = as_password_role(published_sample, password)
    with psycopg.connect(published_sample, autocommit=True) as admin:  # the role may read what was published
        admin.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
    parsed = DatabaseUrl.parse(url)
    assert parsed.password == password and parsed.conninfo == url
    store = PgChunkStore.load(url)
    try:
        assert len(store.ids) > 0
        assert_no_secret(str(parsed), repr(parsed), parsed.describe(), repr(store), repr(store.pool))
    finally:
        store.close()
    # connected, then refused by the server (no right to create anything): the server's message, no password
    with pytest.raises(UserError) as info:
        publish(built_sample[0].artifact, as_password_role(new_database(), password))
    assert_clean_error(info.value)


def test_inspect_reads_a_published_database_and_never_shows_the_password(
    published_sample, as_password_role, password_role, built_sample, cli, caplog
):
    """Issue 22: `unitrag inspect <url>` took the URL for a path ("artifact postgresql:/user:<password>@... not found")."""
    import json

    from unitrag.postgres.url import DatabaseUrl

    caplog.set_level(logging.DEBUG)
    role, password = password_role
    with psycopg.connect(published_sample, autocommit=True) as admin:  # the role may read what was published
        admin.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
    url = as_password_role(published_sample, password)
    code, as_json, err = cli("inspect", url, "--json")
    assert code == 0 and err == "", err
    published = json.loads(as_json)
    artifact = json.loads(cli("inspect", str(built_sample[0].artifact), "--json")[1])
    assert published["database"] == str(DatabaseUrl.parse(url)) and f"{role}:***@" in published["database"]
    assert published["chunks_by"] == artifact["chunks_by"] and sum(r["chunks"] for r in published["chunks_by"]) > 0
    assert published["manifest"]["counts"] == artifact["manifest"]["counts"]
    assert published["manifest"]["publish"]["state"] == "complete"
    code, text, err = cli("inspect", url)
    assert code == 0 and err == "" and "(published)" in text and "publish: complete" in text
    assert f"{role}:***@" in text and "counts: " in text
    assert_no_secret(as_json, text, caplog.text)


ARTIFACT_AS_DATABASE = ("postgresql://kbuser:Zq7s3cr3t@127.0.0.1:9/kb1", "host=127.0.0.1 password=Zq7s3cr3t dbname=kb1")


@pytest.mark.parametrize("location", ARTIFACT_AS_DATABASE, ids=["url", "keywords"])
def test_a_database_given_as_the_artifact_setting_is_refused_in_one_line_without_the_password(location, cli, tmp_path):
    """The audit: UNITRAG_ARTIFACT=postgresql://... became a Path (``//`` collapsed) and "artifact <it> not found"
    printed the password, for inspect, serve, ask and publish, and from unitrag.toml too."""
    for args in (("inspect",), ("serve",), ("ask", "hi", "--llm", "none"), ("search", "hi"),
                 ("publish", "--to", "postgresql://kbuser@127.0.0.1:9/kb1", "--dry-run")):
        code, out, err = cli(*args, env={"UNITRAG_ARTIFACT": location})
        assert code == 1 and err.count("\n") == 1 and "config key 'artifact'" in err and "--kb postgresql://" in err, err
        assert_no_secret(out, err)
    (tmp_path / "unitrag.toml").write_text(f"artifact = {location!r}\n".replace("'", '"'))
    code, out, err = cli("inspect")
    assert code == 1 and "config key 'artifact'" in err
    assert_no_secret(out, err)
    code, out, err = cli("publish", "--kb", location, "--to", "postgresql://kbuser@127.0.0.1:9/kb1")
    assert code == 1 and "config key 'artifact'" in err
    assert_no_secret(out, err)


def test_serve_with_a_keyword_string_never_shows_its_password(cli):
    code, out, err = cli("serve", "--kb", ARTIFACT_AS_DATABASE[1])
    assert code == 1 and err.count("\n") == 1 and "password=***" in err, err
    assert_no_secret(out, err)


def test_a_url_without_a_password_takes_it_from_pgpassword(published_sample, password_role, monkeypatch):
    """docs/deployment.md: PGPASSWORD (or a password file) keeps the password out of the URL, so out of `ps`."""
    role, password = password_role
    with psycopg.connect(published_sample, autocommit=True) as admin:
        admin.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
    url = published_sample.replace("postgresql://postgres:@", f"postgresql://{role}@", 1)
    monkeypatch.setenv("PGPASSWORD", password)
    store = PgChunkStore.load(url)
    try:
        assert len(store.ids) > 0 and password not in repr(store)
    finally:
        store.close()
