"""`unitrag serve` under signals and a bad artifact (audit F3, F4, F10): a HUP while it starts is a reload once it
has started, never its death; with --workers, a worker that cannot open the artifact is one line, the supervisor
backs off (or stops, when no worker is left serving), and the workers that serve keep the last good build."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

#: Generous: two workers each load the embedder on a loaded 2-core machine.
START_S = 180


class Served:
    """``unitrag serve ARGS`` in ``cwd``, its stderr collected line by line as it comes."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "unitrag", "serve", *args], cwd=cwd,
                                        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def wait_for(self, done: Callable[[str], bool], timeout_s: float = START_S) -> bool:
        """Whether ``done(stderr so far)`` came true before the timeout or the process's end."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if done(self.text):
                return True
            if self.process.poll() is not None:
                self._reader.join(timeout=5)
                return done(self.text)
            time.sleep(0.05)
        return False

    def port(self) -> int:
        found = re.search(r"serving \S+ on http://127\.0\.0\.1:(\d+)/", self.text)
        assert found, self.text
        return int(found.group(1))

    def health(self) -> int:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port()}/v1/health", timeout=10) as response:
            return response.status

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def artifact(built_sample, tmp_path: Path) -> Path:
    """A private copy of the sample artifact, free to be replaced by a bad one."""
    ws, _ = built_sample
    (tmp_path / "dist").mkdir()
    return Path(shutil.copy(ws.artifact, tmp_path / "dist" / "kb.duckdb"))


def replace(path: Path, data: bytes | Path) -> None:
    """What a build does: a new file renamed over the served one."""
    new = path.with_name("new.tmp")
    if isinstance(data, Path):
        shutil.copy(data, new)
    else:
        new.write_bytes(data)
    os.replace(new, path)


def serve_args(artifact: Path, workers: str) -> list[str]:
    return ["--kb", str(artifact), "--port", "0", "--llm", "none", "--workers", workers]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_hangup_while_the_server_starts_is_a_reload_once_it_has_started(artifact: Path, tmp_path: Path,
                                                                          workers: str) -> None:
    served = Served(serve_args(artifact, workers), tmp_path)
    try:
        # the first line comes before the knowledge base loads: a HUP then was exit 129, nothing logged
        assert served.wait_for(lambda text: bool(text)), served.text
        served.process.send_signal(signal.SIGHUP)
        assert served.wait_for(lambda text: "serving " in text), served.text
        assert served.process.poll() is None
        assert served.wait_for(lambda text: text.count("now serving") == int(workers), 120), served.text
        assert served.health() == 200
    finally:
        served.stop()


def test_ctrl_c_while_the_server_starts_says_so_not_the_builds_message(artifact: Path, tmp_path: Path) -> None:
    served = Served(serve_args(artifact, "1"), tmp_path)
    try:
        assert served.wait_for(lambda text: bool(text)), served.text
        served.process.send_signal(signal.SIGINT)
        assert served.process.wait(timeout=START_S) == 130
        served._reader.join(timeout=10)
        assert served.lines[-1] == "interrupted: the server did not start\n", served.text
        assert "artifact is unchanged" not in served.text and "serving " not in served.text
    finally:
        served.stop()


def test_workers_that_cannot_open_the_artifact_stop_the_server_with_one_line_each(tmp_path: Path) -> None:
    (tmp_path / "kb.duckdb").write_bytes(os.urandom(100_000))
    served = Served(["--kb", "kb.duckdb", "--port", "0", "--llm", "none", "--workers", "2"], tmp_path)
    try:
        assert served.process.wait(timeout=START_S) == 3
        served._reader.join(timeout=10)
        assert "Traceback" not in served.text and "serving " not in served.text
        assert served.text.count("did not start: artifact kb.duckdb is not a DuckDB file") == 2, served.text
        assert served.text.count("no worker is serving: stopping") == 1, served.text
    finally:
        served.stop()


def test_a_worker_that_cannot_open_a_bad_build_is_retried_with_back_off_while_the_other_serves_the_last_good(
        artifact: Path, tmp_path: Path) -> None:
    good = Path(shutil.copy(artifact, tmp_path / "good.duckdb"))
    served = Served(serve_args(artifact, "2"), tmp_path)
    try:
        assert served.wait_for(lambda text: "serving " in text), served.text
        assert served.wait_for(lambda text: text.count("Application startup complete") == 2), served.text
        workers = [int(pid) for pid in re.findall(r"Started server process \[(\d+)\]", served.text)]
        replace(artifact, os.urandom(100_000))
        # SIGHUP: each worker reloads in place and keeps its build (uvicorn restarted them, and the new ones failed)
        served.process.send_signal(signal.SIGHUP)
        assert served.wait_for(lambda text: text.count("did not open, still serving") >= 2, 60), served.text
        os.kill(workers[-1], signal.SIGKILL)  # a worker crashes: its replacement cannot open the bad file
        assert served.wait_for(lambda text: "failed to start; 1 of 2 worker(s) keep serving" in text, 60), served.text
        time.sleep(6)  # was a respawn (and a 50-line traceback) every second
        assert served.health() == 200
        assert served.text.count("failed to start;") <= 3, served.text
        assert "Traceback" not in served.text
        assert re.findall(r"Started server process \[(\d+)\]", served.text) == [str(pid) for pid in workers]
        started = served.text.count("Started server process")
        replace(artifact, good)  # a good build: the replacement is tried at once, not after the back-off
        assert served.wait_for(lambda text: text.count("Started server process") > started, 90), served.text
        assert served.health() == 200 and served.process.poll() is None
    finally:
        served.stop()
