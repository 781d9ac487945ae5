"""`unitrag serve` refuses what it cannot serve before starting; the holder reloads on request (SIGHUP)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from unitrag.cli import app
from unitrag.cli.serve_cmd import bind_port
from unitrag.errors import UserError
from unitrag.serve.reload import KbHolder


def test_serve_without_an_artifact_says_how_to_make_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["serve", "--kb", "missing.duckdb"])
    assert isinstance(result.exception, UserError) and "unitrag build" in str(result.exception)


def test_a_bad_serve_section_is_refused_before_any_worker_starts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "unitrag.toml").write_text("[serve]\nport = -1\n")
    result = CliRunner().invoke(app, ["serve"])
    assert isinstance(result.exception, UserError) and "port" in str(result.exception)


@pytest.mark.parametrize("port", ["99999", "65536", "-1"])
def test_a_port_out_of_range_is_one_line_naming_the_flag_and_the_range(tmp_path, monkeypatch, port):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kb.duckdb").write_bytes(b"")  # never opened: the port is refused first
    result = CliRunner().invoke(app, ["serve", "--kb", "kb.duckdb", "--port", port])
    assert isinstance(result.exception, UserError), result.exception  # one line from the CLI, not OverflowError
    assert "--port" in str(result.exception) and "0-65535" in str(result.exception)


def test_a_busy_port_is_one_line_naming_it_and_nothing_is_announced(tmp_path):
    (tmp_path / "kb.duckdb").write_bytes(b"")  # never opened: the port is refused first
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "unitrag", "serve", "--kb", "kb.duckdb", "--port", str(port)],
                                cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert f"error: port {port} on 127.0.0.1 is in use" in result.stderr and "--port 0" in result.stderr
    assert "serving" not in result.stderr and "Traceback" not in result.stderr


def test_port_zero_binds_a_free_port_and_the_announcement_names_it(tmp_path):
    from unitrag.serve import load_serve_settings

    assert load_serve_settings(env={"UNITRAG_SERVE_PORT": "0"}).port == 0  # as uvicorn allows: any free port
    with bind_port("127.0.0.1", 0) as listener:
        assert listener.getsockname()[1] > 0
    (tmp_path / "kb.duckdb").write_bytes(b"not a database")  # announced, then refused when a worker opens it
    result = subprocess.run([sys.executable, "-m", "unitrag", "serve", "--kb", "kb.duckdb", "--port", "0"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    announced = re.search(r"serving kb.duckdb on http://127\.0\.0\.1:(\d+)/", result.stderr)
    assert announced and int(announced.group(1)) > 0, result.stderr
    assert "non-negative" not in result.stderr


def fake_kb(n: int) -> SimpleNamespace:
    return SimpleNamespace(store=SimpleNamespace(manifest={"built_at": n}), close=lambda: None)


def test_wake_reloads_even_an_unchanged_location_and_a_failed_open_keeps_the_old(tmp_path):
    opened: list[int] = []

    def opener(_location, _previous):
        opened.append(len(opened))
        if len(opened) == 3:
            raise RuntimeError("half-written file")
        return fake_kb(len(opened))

    holder = KbHolder(str(tmp_path / "kb.duckdb"), opener, poll_s=0)  # no file watch: SIGHUP only
    first = holder.current.id
    holder.start()
    try:
        holder.wake()  # what the SIGHUP handler calls
        deadline = time.monotonic() + 10
        while holder.reloads < 1:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        second = holder.current.id
        assert second != first
        assert holder.reload() is False and holder.current.id == second  # the third open fails: still serving
    finally:
        holder.stop()


# -- reloads: their outcome and their log lines (issue 22, items 2 and 13) --------------------------------

SECRET_URL = "postgresql://pwuser:S3cretPW@/kb1?host=/tmp/pg&sslpassword=S3cretKeyPW"


def test_reload_log_lines_never_show_the_password(caplog):
    opened: list[int] = []

    def opener(location, _previous):
        opened.append(len(opened))
        if len(opened) == 3:  # a driver that echoes what it was given
            raise RuntimeError(f"connection to {location} failed: password S3cretPW rejected")
        return fake_kb(len(opened))

    holder = KbHolder(SECRET_URL, opener, poll_s=0)
    with caplog.at_level("INFO", logger="unitrag.serve"):
        assert holder.reload() is True
        assert holder.reload() is False
    assert [r.levelname for r in caplog.records] == ["INFO", "ERROR"]
    assert "S3cret" not in caplog.text and "pwuser:***@" in caplog.text


def test_a_failed_reload_is_remembered_until_a_newer_build_opens():
    results = iter([fake_kb(1), RuntimeError("corrupt"), fake_kb(3)])

    def opener(_location, _previous):
        result = next(results)
        if isinstance(result, Exception):
            raise result
        return result

    holder = KbHolder("kb.duckdb", opener, poll_s=0)
    assert holder.last_reload is None and not holder.degraded
    holder.reload()
    assert holder.degraded and holder.last_reload.to_dict()["outcome"] == "failed"
    holder.reload()
    assert not holder.degraded and holder.last_reload.to_dict()["outcome"] == "ok"
