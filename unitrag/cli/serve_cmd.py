"""`unitrag serve`: the knowledge base over HTTP (see unitrag.serve); this only parses flags and starts uvicorn."""

from __future__ import annotations

import errno
import importlib.util
import os
import socket
import time
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..config import load_config
from ..errors import UserError
from .options import ConfigOpt
from .output import err


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)


def serve(
    kb: Annotated[Optional[str], typer.Option("--kb", help="Artifact path, or a postgresql:// URL [config: artifact].")] = None,
    host: Annotated[Optional[str], typer.Option("--host", help="Address to listen on [serve: host, default 127.0.0.1].")] = None,
    port: Annotated[Optional[int], typer.Option("--port", help="Port; 0 picks a free one [serve: port, default 8000].")] = None,
    workers: Annotated[Optional[int], typer.Option("--workers", help="Worker processes, each with its own copy of the knowledge base [serve: workers, default 1].")] = None,
    llm: Annotated[Optional[str], typer.Option("--llm", help="litellm:<model> or none [config: llm].")] = None,
    config: ConfigOpt = None,
) -> None:
    """Serve the JSON API (/v1/..., OpenAPI at /docs) and the preview page (/). API keys and limits: [serve] in unitrag.toml."""
    if importlib.util.find_spec("fastapi") is None or importlib.util.find_spec("uvicorn") is None:
        raise UserError("unitrag serve needs FastAPI and uvicorn; install them with `pip install unitrag[serve]`")
    import uvicorn

    from ..postgres.url import SCHEMES, DatabaseUrl, redacted_location
    from ..serve.accesslog import log_config
    from ..serve.app import CONFIG_FILE_ENV
    from ..serve.connections import uvicorn_options
    from ..serve.settings import ENV_PREFIX, load_serve_settings

    flags = {"kb": kb, "host": host, "port": port, "workers": workers}
    settings = load_serve_settings(config, **flags)  # refuses a bad [serve] section before any worker starts
    location = settings.kb or str(load_config(config, llm=llm).artifact)
    shown = redacted_location(location)  # a URL's password is never printed
    if location.startswith(SCHEMES):
        DatabaseUrl.parse(location)  # a bad URL is one line now, not an error in every worker
    elif not Path(location).is_file():
        raise UserError(f"no artifact at {shown}; build one with `unitrag build` or pass --kb")
    # worker processes read their settings from the environment: flags win over file and environment there too
    for key, value in flags.items():
        if value is not None:
            os.environ[f"{ENV_PREFIX}{key.upper()}"] = str(value)
    if llm is not None:
        os.environ["UNITRAG_LLM"] = llm
    if config is not None:
        os.environ[CONFIG_FILE_ENV] = str(config)
    if not settings.api_keys and not settings.roles_header:
        err.print("no API keys configured: every caller is anonymous and sees public content only", highlight=False)
    listener = bind_port(settings.host, settings.port)  # a busy port is one line, never announced
    port = listener.getsockname()[1]  # the real one when --port 0 let the system choose
    address = f"[{settings.host}]" if ":" in settings.host else settings.host
    announcement = f"serving {shown} on http://{address}:{port}/ (API docs at /docs)"
    # log_config: the access log holds no query string (a health question is personal data; serve.accesslog)
    server_config = uvicorn.Config("unitrag.serve.app:app_from_env", factory=True, host=settings.host, port=port,
                                   workers=settings.workers, log_level="info", log_config=log_config(),
                                   **uvicorn_options(settings))
    # announced only once the knowledge base is open and the server accepts on the port: an artifact or a database
    # that does not open is an error, never an address a client is told to use
    server = AnnouncingServer(server_config, announcement)
    try:
        if settings.workers > 1:
            AnnouncingMultiprocess(server_config, [listener], announcement).run()
        else:
            server.run(sockets=[listener])
    except KeyboardInterrupt:
        pass
    finally:
        listener.close()
    if settings.workers == 1 and not server.started:
        raise typer.Exit(3)  # uvicorn's own exit status for a server that never started; it has logged why


def announce(message: str) -> None:
    err.print(message, highlight=False, soft_wrap=True)  # a long path must not break the address across lines


def AnnouncingServer(config: Any, announcement: str) -> Any:  # noqa: N802 (a class, made when uvicorn is imported)
    """A uvicorn server that prints ``announcement`` once its startup is complete: the app built (the knowledge base
    opened) and the socket accepting. A startup that fails prints nothing."""
    import uvicorn

    class _Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.started and not self.should_exit:
                announce(announcement)

    return _Server(config)


def AnnouncingMultiprocess(config: Any, sockets: list[socket.socket], announcement: str) -> Any:  # noqa: N802
    """uvicorn's worker supervisor, announcing once the first worker has started (as ``AnnouncingServer``); nothing
    when every worker fails to start (uvicorn then stops, having logged why)."""
    from uvicorn.supervisors import Multiprocess

    class _Multiprocess(Multiprocess):
        def init_processes(self) -> None:
            super().init_processes()
            while not self.should_exit.is_set() and not self.signal_queue:
                alive = [p for p in self.processes if p.process.is_alive()]
                if not alive:
                    return  # each failed to start: the supervisor's loop stops the server
                if any(p.is_ready(timeout=0.5) for p in alive):
                    announce(announcement)
                    return
                time.sleep(0.1)

    return _Multiprocess(config, sockets)


def bind_port(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (0: a free port the system picks), ready for uvicorn's workers.

    Bound here, not by uvicorn, so that a port another process holds is one line naming it, before anything is
    announced: a client must never be told to use an address that some other server answers.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn: a restart need not wait for TIME_WAIT
    try:
        listener.bind((host, port))
    except OSError as exc:
        listener.close()
        if exc.errno == errno.EADDRINUSE:
            raise UserError(f"port {port} on {host} is in use by another process: stop it, or pass --port with "
                            "another port (--port 0 picks a free one)") from None
        if exc.errno == errno.EACCES:
            raise UserError(f"port {port} on {host}: permission denied (ports below 1024 need privileges); "
                            "pass --port 1024 or above") from None
        raise UserError(f"cannot listen on {host}:{port} ({exc.strerror or exc}): check --host and --port") from None
    listener.set_inheritable(True)  # worker processes accept on it
    return listener
