"""A knowledge base's location is printed without its password (issue 22, item 2): `unitrag serve` used to say
"serving postgresql://user:S3cretPW@..." at start-up, and `unitrag inspect <url>` "artifact postgresql:/pwuser:
S3cretPW@... not found". No server is needed: the URLs point at a closed port or a missing socket."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

SECRET = "S3cretPW"


def _run(cwd: Path, *args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "unitrag", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={"PATH": "/usr/bin:/bin", "UNITRAG_LLM": "none"})


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _one_error_line(result: subprocess.CompletedProcess, *words: str) -> str:
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert SECRET not in result.stdout + result.stderr
    assert result.stdout == "" and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def test_serve_names_the_database_without_its_password(tmp_path: Path) -> None:
    url = f"postgresql://user:{SECRET}@127.0.0.1:{_closed_port()}/kb?sslpassword={SECRET}"
    result = _run(tmp_path, "serve", "--kb", url, "--port", str(_closed_port()))
    output = result.stdout + result.stderr
    assert result.returncode != 0 and SECRET not in output, output  # the worker cannot connect: serve stops
    assert "serving" not in output  # announced only once it serves
    assert "cannot connect to PostgreSQL at 127.0.0.1:" in output and "/kb" in output


def test_serve_refuses_a_malformed_url_before_starting_and_without_echoing_it(tmp_path: Path) -> None:
    _one_error_line(_run(tmp_path, "serve", "--kb", f"postgresql://user:{SECRET}@x@localhost/kb"),
                    "not a valid PostgreSQL URL", "percent-encode")


@pytest.mark.parametrize("json", [[], ["--json"]])
def test_inspect_reads_a_url_as_a_database_and_says_why_it_cannot_without_the_password(tmp_path: Path, json: list) -> None:
    url = f"postgresql://pwuser:{SECRET}@/kb1?host={tmp_path / 'no-server'}"
    _one_error_line(_run(tmp_path, "inspect", url, *json), "cannot connect to PostgreSQL", "/kb1")
    port = _closed_port()
    _one_error_line(_run(tmp_path, "inspect", f"postgresql://pwuser:{SECRET}@127.0.0.1:{port}/kb1", *json),
                    f"127.0.0.1:{port}/kb1", "refused")


@pytest.mark.parametrize("location, words", [
    (f"postgresql://pwuser:{SECRET}@x@localhost/kb1", ("not a valid PostgreSQL URL",)),
    (f"mysql://pwuser:{SECRET}@localhost/kb1", ("mysql://pwuser:***@localhost/kb1", "not a location unitrag opens")),
])
def test_inspect_refuses_what_it_cannot_open_in_one_line_without_the_password(tmp_path: Path, location: str,
                                                                             words: tuple[str, ...]) -> None:
    _one_error_line(_run(tmp_path, "inspect", location), *words)
