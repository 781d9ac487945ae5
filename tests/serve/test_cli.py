"""`unitrag serve` refuses what it cannot serve before starting; the holder reloads on request (SIGHUP)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import queue
import sys
import threading
import time
import urllib.request
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


@pytest.mark.parametrize(("args", "env", "said"), [
    (["--llm", "bogus:x"], {}, "unknown llm 'bogus:x'"),
    ([], {"UNITRAG_LLM": "bogus:x"}, "unknown llm 'bogus:x'"),
    (["--llm", "litellm:openai/fake"], {"UNITRAG_LLM_API_BASE": "file:///etc/passwd"}, "UNITRAG_LLM_API_BASE: not an http(s) URL"),
    (["--llm", "litellm:openai/fa\nke"], {}, "a model name has no spaces or line breaks"),
])
def test_an_llm_that_cannot_be_used_is_refused_before_the_server_starts(tmp_path, monkeypatch, args, env, said):
    """An attacker's ``serve --llm bogus:x`` announced its address, then answered every question with a 500."""
    monkeypatch.chdir(tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    (tmp_path / "kb.duckdb").write_bytes(b"")  # never opened: the LLM is refused first
    result = CliRunner().invoke(app, ["serve", "--kb", "kb.duckdb", *args])
    assert isinstance(result.exception, UserError) and said in str(result.exception)


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


def test_a_plain_api_key_stops_the_server_in_one_line_that_does_not_echo_it(tmp_path):
    """An entry without ``sha256:`` was served as a plaintext key, silently: now the server does not start, and says
    which entry and how to write its digest, with no traceback and without printing the secret."""
    (tmp_path / "kb.duckdb").write_bytes(b"")  # never opened: the keys are refused first
    digest = "sha256:" + "ab" * 32
    env = {**os.environ, "UNITRAG_API_KEYS": f"{digest}=clinician,my-secret-key=clinician"}
    result = subprocess.run([sys.executable, "-m", "unitrag", "serve", "--kb", "kb.duckdb", "--port", "0"],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.startswith("error: UNITRAG_API_KEYS entry 2: not a digest") and result.stderr.count("\n") == 1
    assert "sha256sum" in result.stderr and "my-s" not in result.stderr and "Traceback" not in result.stderr
    assert "serving" not in result.stderr


def _serve_until_announced(args: list[str], cwd, timeout_s: float = 120) -> tuple[subprocess.Popen, list[str]]:
    """``unitrag serve ARGS`` started; its stderr lines up to the announcement (or the end, if it exits first)."""
    process = subprocess.Popen([sys.executable, "-m", "unitrag", "serve", *args], cwd=cwd, stderr=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, text=True)
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=lambda: ([lines.put(line) for line in process.stderr], lines.put(None)), daemon=True).start()
    seen: list[str] = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            continue
        if line is None:
            break
        seen.append(line)
        if line.startswith("serving "):
            break
    return process, seen


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_port_zero_binds_a_free_port_and_the_announcement_comes_once_it_answers(built_sample, tmp_path, workers):
    from unitrag.serve import load_serve_settings

    assert load_serve_settings(env={"UNITRAG_SERVE_PORT": "0"}).port == 0  # as uvicorn allows: any free port
    with bind_port("127.0.0.1", 0) as listener:
        assert listener.getsockname()[1] > 0
    ws, _ = built_sample
    process, seen = _serve_until_announced(["--kb", str(ws.artifact), "--port", "0", "--llm", "none",
                                            "--workers", workers], tmp_path)
    try:
        announced = re.search(r"serving \S+ on http://127\.0\.0\.1:(\d+)/", "".join(seen))
        assert announced and int(announced.group(1)) > 0, seen
        # announced: the knowledge base is open and the port answers at once
        with urllib.request.urlopen(f"http://127.0.0.1:{announced.group(1)}/v1/health", timeout=10) as health:
            assert health.status == 200
        assert sum(line.startswith("serving ") for line in seen) == 1
    finally:
        _stop(process)


@pytest.mark.parametrize("kb", ["kb.duckdb", "postgresql://u:secret@127.0.0.1:1/db"])
def test_a_knowledge_base_that_does_not_open_is_never_announced(tmp_path, kb):
    (tmp_path / "kb.duckdb").write_bytes(b"not a database")
    result = subprocess.run([sys.executable, "-m", "unitrag", "serve", "--kb", kb, "--port", "0", "--llm", "none"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "serving" not in result.stderr, result.stderr
    assert "secret" not in result.stderr and "non-negative" not in result.stderr


def test_serve_gives_uvicorn_the_access_log_without_query_strings(tmp_path, monkeypatch):
    import uvicorn

    from unitrag.serve.accesslog import log_config

    given: dict = {}
    real_config = uvicorn.Config

    def config(*args, **kwargs):
        given.update(kwargs)
        return real_config(*args, **kwargs)

    monkeypatch.setattr(uvicorn, "Config", config)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)  # never started: nothing announced
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kb.duckdb").write_bytes(b"")
    result = CliRunner().invoke(app, ["serve", "--kb", "kb.duckdb", "--port", "0"])
    assert result.exit_code == 3 and "serving" not in result.output
    assert given["log_config"] == log_config()
    assert given["log_config"]["loggers"]["uvicorn.access"]["filters"] == ["no_query"]


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


# -- the [serve] numbers' bounds (audit F7 e) ---------------------------------------------------------


@pytest.mark.parametrize("key, value, message", [
    ("request_timeout_s", "nan", "expected a finite number (0 to 86,400: a day"),  # nan passed `< 0`: every request waited
    ("header_timeout_s", "inf", "expected a finite number (0 to 86,400: a day"),
    ("body_timeout_s", "1e308", "(0 to 86,400: a day"),
    ("reload_poll_s", "86401", "(0 to 86,400: "),
    ("workers", "9" * 30, "(1 to 64: "),  # each worker loads the knowledge base and its embedder
    ("rate_limit_per_minute", str(10 ** 400), "(0 to 1,000,000: "),  # float(10**400) raised in every request
    ("rate_limit_clients", "10000001", "(1 to 10,000,000: "),
    ("max_body_bytes", "9" * 5000, "expected a whole number (0 to 16,777,216: "),
    ("workers", "²", "expected a positive whole number (1 to 64: "),
    # the bound under it is said too: workers = 0 was "expected a non-negative number", though the range is 1 to 64
    ("workers", "0", "expected a positive whole number (1 to 64: each worker process"),
    ("rate_limit_clients", "0", "expected a positive whole number (1 to 10,000,000: "),
    ("max_body_bytes", "-1", "expected a whole number (0 to 16,777,216: "),
    ("keep_alive_s", "-0.5", "expected a finite number (0 to 86,400: a day)"),
])
def test_a_serve_number_past_its_bound_is_one_line_naming_the_key(tmp_path, key, value, message):
    from unitrag.serve import load_serve_settings

    with pytest.raises(UserError) as raised:
        load_serve_settings(tmp_path / "none.toml", env={f"UNITRAG_SERVE_{key.upper()}": value})
    assert str(raised.value).startswith(f"[serve] {key}: ") and message in str(raised.value)
    assert len(str(raised.value)) < 300


def test_the_serve_bounds_themselves_are_taken(tmp_path):
    from unitrag.serve import load_serve_settings
    from unitrag.serve.settings import LIMITS

    for key, (bound, _) in LIMITS.items():
        assert getattr(load_serve_settings(tmp_path / "none.toml", env={f"UNITRAG_SERVE_{key.upper()}": str(bound)}),
                       key) == bound
    assert load_serve_settings(tmp_path / "none.toml", env={"UNITRAG_SERVE_REQUEST_TIMEOUT_S": "0"}).request_timeout_s == 0
