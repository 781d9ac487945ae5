"""The ASGI app: ``create_app(settings)`` opens the knowledge base once and serves it.

FastAPI (on Starlette) for typed request bodies and the OpenAPI page at ``/docs``;
uvicorn runs it (``unitrag serve``). Each worker process builds its own app from the
settings, so each opens the knowledge base once.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from importlib.resources import files
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

from ..config import Config, load_config
from ..content.text.unicode_fold import fold_table
from ..errors import UserError
from ..rag.knowledge_base import KnowledgeBase
from . import accesslog, errors
from .auth import Authenticator, check_granted
from .headers import HeadAsGet, SecurityHeaders, page_csp
from .limits import BodyLimit, RateLimit
from .plain import IdentityEncoding, Utf8Path
from .reload import KbHolder, Opener
from .settings import ServeSettings, check_origins, load_serve_settings
from .state import ServerState

log = logging.getLogger("unitrag.serve")

#: Set by ``unitrag serve`` for its worker processes: the config file to read settings from.
CONFIG_FILE_ENV = "UNITRAG_SERVE_CONFIG_FILE"
#: A worker process's exit status when its app did not build (uvicorn's ``STARTUP_FAILURE``).
WORKER_STARTUP_FAILURE = 3


#: What a freshly opened knowledge base embeds and screens once, before it serves (``warm_up``).
WARM_UP_QUESTION = "warm-up question"


def opener(config: Config, llm: Any = None, granted: Collection[str] = ()) -> Opener:
    """How the holder opens (and re-opens) the knowledge base: the previous one's embedder is reused
    when the new artifact was built with the same model, so a swap does not load the model again.
    Each one opened is warmed up (``warm_up``) before the holder serves it, and refused when the API keys
    grant a role (``granted``) other than its restricted one."""

    def open_kb(location: str, previous: KnowledgeBase | None) -> KnowledgeBase:
        embedder = previous.encoder.embedder if previous is not None else None
        try:
            kb = KnowledgeBase.open(location, config=config, llm=llm, embedder=embedder, refuse_stale=False)
        except UserError:
            if embedder is None:
                raise
            kb = KnowledgeBase.open(location, config=config, llm=llm, refuse_stale=False)  # built with another embedder
        try:
            check_granted(granted, kb.restricted_role)
            warm_up(kb)
        except BaseException:
            kb.close()
            raise
        return kb

    return open_kb


def warm_up(kb: KnowledgeBase) -> None:
    """Embed one question and run the guard (its classifier) once, in the loading thread: at start-up before the
    address is announced, on a reload before the swap. So no request reaches a cold embedder (OpenVINO's bindings
    could deadlock when their first calls came from many threads at once), and it is the probe of the embedder the
    artifact names: one that cannot embed here (another model, an API without a key) is a knowledge base that does
    not open, refused like a damaged one, never a server whose every question is a 500."""
    embedder = kb.store.manifest.get("embedder", {}).get("id", "?")
    try:
        kb.encoder.encode(WARM_UP_QUESTION)
    except Exception as exc:
        text = str(exc).strip()
        reason = text.splitlines()[0] if text else "no message"
        reason = reason if isinstance(exc, UserError) else f"{type(exc).__name__}: {reason}"
        raise UserError(f"the artifact's embedder {embedder} cannot embed a question here ({reason}); serve it where "
                        "that embedder works, or rebuild the artifact with one that does") from None
    kb.screen(WARM_UP_QUESTION, "en")


def create_app(
    settings: ServeSettings | None = None, *, config: Config | None = None, llm: Any = None,
    holder: KbHolder | None = None,
) -> FastAPI:
    """The app for ``settings`` (default: ``[serve]`` and ``UNITRAG_SERVE_*``), serving ``settings.kb``
    (default: the config's artifact). ``llm`` overrides ``config.llm``; ``holder`` an already opened one."""
    settings = settings or load_serve_settings()
    config = config or load_config()
    check_origins(settings.cors_origins)  # also when built from ServeSettings directly: before the knowledge base opens
    auth = Authenticator(settings.api_keys, settings.roles_header, settings.trusted_proxies)
    if holder is None:
        holder = KbHolder(settings.kb or str(config.artifact), opener(config, llm, auth.granted()),
                          settings.reload_poll_s)
    else:
        check_granted(auth.granted(), holder.current.kb.restricted_role)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        holder.start()
        fold_table()  # Unicode's invisible and look-alike characters (~0.1 s): built now, not in a first request
        _on_sighup(holder)
        try:
            yield
        finally:
            holder.stop()

    app = FastAPI(
        title="unitrag", summary="Search and ask a unitrag knowledge base; answers carry checked citations.",
        version=_version(), lifespan=lifespan,
        redirect_slashes=False,  # Starlette's slash redirect names the request's Host header: a trailing slash is a 404
    )
    app.state.unitrag = ServerState(settings, holder, auth)
    errors.install(app)
    from .routes import router
    from .stream import router as stream_router

    app.include_router(router)
    app.include_router(stream_router)
    app.add_api_route("/", _page, methods=["GET"], response_class=HTMLResponse, include_in_schema=False)
    app.add_middleware(HeadAsGet)  # innermost: HEAD wherever GET is served (a load balancer's health check)
    app.add_middleware(IdentityEncoding)  # inside CORS: a browser can read the 415
    app.add_middleware(Utf8Path)  # and the 400 for a path that is not UTF-8 once percent-decoded
    app.add_middleware(RateLimit, per_minute=settings.rate_limit_per_minute, trusted_proxies=settings.trusted_proxies,
                       max_clients=settings.rate_limit_clients)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    # outside the limits: a browser can read their 413 and 429; a preflight is never counted. Without origins it only
    # refuses preflights (the documented 400, not the router's 405 for OPTIONS)
    app.add_middleware(
        errors.JsonCors, allow_origins=list(settings.cors_origins), allow_methods=["GET", "POST"],
        allow_headers=["authorization", "x-api-key", "content-type"],
    )
    app.add_middleware(SecurityHeaders, roles_header=settings.roles_header)  # outermost: every refusal carries them
    return app


def _page() -> HTMLResponse:
    """The preview page: one static file, package data; its inline script and style are allowed by hash, nothing else."""
    html = files("unitrag.serve").joinpath("static/index.html").read_text(encoding="utf-8")
    return HTMLResponse(html, headers={"cache-control": "no-cache", "content-security-policy": page_csp(html)})


def _on_sighup(holder: KbHolder) -> None:
    """``kill -HUP <pid>`` reloads the artifact (only the main thread can install a handler).

    ``unitrag serve`` holds SIGHUP blocked while it starts (``cli.defer_hangup``: its default action would kill the
    server); it is released here, once the handler is in place, so a HUP sent during start-up is a reload now."""
    if hasattr(signal, "SIGHUP"):
        try:
            signal.signal(signal.SIGHUP, lambda *_: holder.wake())
        except ValueError:  # not the main thread (a test client)
            return
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGHUP})


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("unitrag")
    except PackageNotFoundError:
        return "0"


def app_from_env() -> FastAPI:
    """The factory uvicorn calls in each worker: settings from the config file ``unitrag serve`` named."""
    if not log.handlers:  # reloads and unexpected errors, next to uvicorn's own lines
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s:     %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
    accesslog.install()  # no query string (a health question) in the access log, however uvicorn was started
    path = os.environ.get(CONFIG_FILE_ENV)
    file = Path(path) if path else None
    try:
        return create_app(load_serve_settings(file), config=load_config(file))
    except Exception as exc:
        if multiprocessing.parent_process() is None:
            raise  # one server process: the command prints it as its one error line
        # a worker process (--workers): one line, never a traceback, and uvicorn's start-up failure status, which
        # the supervisor (cli.serve_cmd) reads to back off rather than start the same failure every second
        text = str(exc).strip().splitlines()
        reason = text[0] if text else type(exc).__name__
        log.error("worker [%d] did not start: %s", os.getpid(),
                  reason if isinstance(exc, UserError) else f"{type(exc).__name__}: {reason}")
        sys.exit(WORKER_STARTUP_FAILURE)
