"""The real app over the sample artifact (built once per session by tests/conftest.py), opened once per
session; each test gets its own app around it with the settings it needs."""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient

from unitrag.config import Config
from unitrag.providers.llm.base import LLM
from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.serve import ServeSettings, create_app
from unitrag.serve.auth import parse_api_keys
from unitrag.serve.reload import KbHolder

CLINICIAN_KEY = "test-clinician-key"
#: The operator configures the digest, never the key itself.
CLINICIAN_KEYS = parse_api_keys({"sha256:" + hashlib.sha256(CLINICIAN_KEY.encode()).hexdigest(): ["clinician"]})


@pytest.fixture(scope="session")
def sample_kb(built_sample) -> KnowledgeBase:
    ws, _ = built_sample
    return KnowledgeBase.open(ws.artifact, config=Config(llm="none"))


@pytest.fixture
def make_client(sample_kb: KnowledgeBase) -> Iterator[Callable[..., TestClient]]:
    """``make_client(settings=..., llm=..., config=...)``: a started TestClient on the real app,
    sharing the session's loaded artifact (the store and the embedder are read-only)."""
    with ExitStack() as stack:

        def make(settings: ServeSettings | None = None, *, llm: Any = None, config: Config | None = None,
                 raise_server_exceptions: bool = True) -> TestClient:
            app = sample_app(sample_kb, settings, llm=llm, config=config)
            return stack.enter_context(TestClient(app, raise_server_exceptions=raise_server_exceptions))

        yield make


def sample_app(sample_kb: KnowledgeBase, settings: ServeSettings | None = None, *, llm: Any = None,
               config: Config | None = None) -> Any:
    """The real app around the session's loaded artifact (the store and the embedder are read-only)."""
    cfg = config or sample_kb.config
    holder = KbHolder("sample", lambda _loc, _prev: KnowledgeBase(sample_kb.store, sample_kb.encoder, cfg, llm,
                                                                  exemplars=sample_kb.retriever.exemplars), 0)
    return create_app(settings or ServeSettings(reload_poll_s=0), config=cfg, holder=holder)


@pytest.fixture
def client(make_client: Callable[..., TestClient]) -> TestClient:
    """Anonymous callers, no LLM (extractive answers), an operator who configured one clinician key."""
    return make_client(ServeSettings(api_keys=CLINICIAN_KEYS, reload_poll_s=0))


def mock_llm(mock_response: Any) -> Any:
    """litellm's offline ``mock_response`` (streamed too), no network."""
    from unitrag.providers.llm.litellm import LiteLLMChat

    return LiteLLMChat("openai/gpt-4o-mini", api_key="sk-test", num_retries=0, mock_response=mock_response)


@contextmanager
def live_server(app: Any, **options: Any) -> Iterator[str]:
    """The app on a real uvicorn server on a free loopback port, in a thread; yields its base URL.
    ``options``: more ``uvicorn.Config`` arguments (``connections.uvicorn_options``, as ``unitrag serve`` passes)."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on", **options))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not (server.started and server.servers):
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


class SlowLLM(LLM):
    """Streams a fixed answer a word at a time with a pause: text visibly arrives before the end."""

    provider = "test"

    def __init__(self, text: str, pause_s: float = 0.05) -> None:
        super().__init__("slow")
        self.text = text
        self.pause_s = pause_s
        self.pieces = 0  # how many pieces it has generated, all streams together

    def complete(self, messages: list[dict[str, str]], *, stream: bool = False) -> str | Iterator[str]:
        if not stream:
            return self.text
        return self._pieces()

    def _pieces(self) -> Iterator[str]:
        for word in re.split(r"(?<= )", self.text):
            time.sleep(self.pause_s)
            self.pieces += 1
            yield word
