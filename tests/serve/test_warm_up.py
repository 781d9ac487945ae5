"""A knowledge base is warmed up when it opens, before it serves: its embedder has embedded a question (no request
reaches a cold one), and an artifact whose embedder cannot embed here is refused as one that does not open."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import duckdb
import pytest
from fastapi.testclient import TestClient

from unitrag.config import Config
from unitrag.serve import ServeSettings, create_app

from .test_reload import QUESTION, publish

pytestmark = pytest.mark.e2e

#: An embedder this machine cannot use: an API, and no key for it.
OTHER_EMBEDDER = '{"id": "litellm:openai/text-embedding-3-small", "dim": 384}'
KEY_VARIABLES = ("OPENAI_API_KEY", "UNITRAG_EMBEDDER_API_KEY", "UNITRAG_EMBEDDER_API_BASE")


def built_with_another_embedder(source, target):
    """The sample artifact whose manifest names an embedder without a key here (as an audit made one)."""
    shutil.copy(source, target)
    with duckdb.connect(str(target)) as con:
        con.execute("UPDATE manifest SET value = ? WHERE key = 'embedder'", [OTHER_EMBEDDER])
    return target


def test_the_embedder_has_embedded_a_question_before_the_first_request_and_before_a_swap(built_sample, tmp_path):
    ws, _ = built_sample
    served = tmp_path / "kb.duckdb"
    shutil.copy(ws.artifact, served)
    app = create_app(ServeSettings(kb=str(served), reload_poll_s=0), config=Config(llm="none"))
    holder = app.state.unitrag.holder
    assert holder.current.kb.encoder.cache_size() == 1  # no request yet: the loading thread embedded one question
    publish(ws.artifact, served, "2030-04-01T00:00:00+00:00")
    assert holder.reload() is True
    assert holder.current.kb.encoder.cache_size() == 1  # the new one (a new cache) was warmed before the swap


def test_a_reload_to_an_artifact_whose_embedder_cannot_embed_here_keeps_the_old_one(built_sample, tmp_path,
                                                                                     monkeypatch, caplog):
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    ws, _ = built_sample
    served = tmp_path / "kb.duckdb"
    shutil.copy(ws.artifact, served)
    app = create_app(ServeSettings(kb=str(served), reload_poll_s=0), config=Config(llm="none"))
    holder = app.state.unitrag.holder
    with TestClient(app) as client:
        before = client.get("/v1/health").json()
        os.replace(built_with_another_embedder(ws.artifact, tmp_path / "other.duckdb"), served)
        with caplog.at_level("ERROR", logger="unitrag.serve"):
            assert holder.reload() is False
        health = client.get("/v1/health").json()
        assert health["status"] == "degraded" and health["artifact_id"] == before["artifact_id"]
        assert client.get("/v1/search", params={"q": QUESTION}).status_code == 200
        assert client.post("/v1/ask", json={"question": QUESTION}).status_code == 200
    assert "did not open, still serving" in caplog.text and "litellm:openai/text-embedding-3-small" in caplog.text


def test_serving_an_artifact_whose_embedder_cannot_embed_here_is_one_error_line_and_never_announced(built_sample,
                                                                                                  tmp_path):
    ws, _ = built_sample
    artifact = built_with_another_embedder(ws.artifact, tmp_path / "kb.duckdb")
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    result = subprocess.run([sys.executable, "-m", "unitrag", "serve", "--kb", str(artifact), "--port", "0",
                             "--llm", "none"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "litellm:openai/text-embedding-3-small cannot embed" in errors[0], result.stderr
    assert "serving" not in result.stderr and "Traceback" not in result.stderr
