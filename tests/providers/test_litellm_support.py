"""litellm is imported with its local price list: no network fetch (13-20 s before `--llm` fell back
without a key), unless the user chose otherwise. Run in fresh processes: other tests set the variable."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

VAR = "LITELLM_LOCAL_MODEL_COST_MAP"
REPO = Path(__file__).resolve().parents[2]

# Records what litellm's import sees, and every attempt to reach the network (then refuses it).
PROBE = """
import json, os, socket, sys, time
attempts = []
def refuse(*args, **kwargs):
    attempts.append(repr(args[:2]))
    raise OSError("network disabled by the test")
socket.getaddrinfo = refuse
socket.socket.connect = refuse
started = time.perf_counter()
from unitrag.providers.litellm_support import import_litellm
module = import_litellm("test")
print(json.dumps({"seen": getattr(module, "SEEN", os.environ.get("%s")), "after": os.environ.get("%s"),
                  "attempts": attempts, "seconds": time.perf_counter() - started}))
""" % (VAR, VAR)


def _probe(env_value: str | None, stub_dir: Path | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != VAR and not k.startswith("LITELLM")}
    if env_value is not None:
        env[VAR] = env_value
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in (stub_dir, REPO) if p)
    result = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture
def stub_litellm(tmp_path: Path) -> Path:
    """A stand-in litellm that remembers the variable as its import saw it."""
    (tmp_path / "litellm.py").write_text(f"import os\nSEEN = os.environ.get({VAR!r})\n", encoding="utf-8")
    return tmp_path


def test_the_local_price_list_is_chosen_before_litellm_is_imported(stub_litellm):
    assert _probe(None, stub_litellm)["seen"] == "True"


def test_a_value_the_user_set_is_kept(stub_litellm):
    probe = _probe("False", stub_litellm)
    assert probe["seen"] == "False" and probe["after"] == "False"


@pytest.mark.skipif(importlib.util.find_spec("litellm") is None, reason="needs the api extra (litellm)")
def test_the_real_import_makes_no_network_call():
    probe = _probe(None)
    assert probe["after"] == "True"
    assert probe["attempts"] == [], f"litellm reached for the network on import: {probe['attempts']}"
    assert probe["seconds"] < 30, probe  # was 13-20 s of fetch retries on top of the import itself
