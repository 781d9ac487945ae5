"""`unitrag serve`: the knowledge base over HTTP (see unitrag.serve); this only parses flags and starts uvicorn."""

from __future__ import annotations

import errno
import importlib.util
import logging
import os
import signal
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..config import check_artifact_name, load_config
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
    from ..providers.llm import load_llm
    from ..serve.accesslog import log_config
    from ..serve.app import CONFIG_FILE_ENV
    from ..serve.connections import uvicorn_options
    from ..serve.settings import ENV_PREFIX, load_serve_settings

    flags = {"kb": kb, "host": host, "port": port, "workers": workers}
    settings = load_serve_settings(config, **flags)  # refuses a bad [serve] section before any worker starts
    loaded = load_config(config, llm=llm)
    load_llm(loaded.llm)  # an unknown provider or a bad endpoint is one line now, not a 500 on every question
    location = settings.kb or str(loaded.artifact)
    shown = redacted_location(location)  # a URL's password is never printed
    if location.startswith(SCHEMES):
        DatabaseUrl.parse(location)  # a bad URL is one line now, not an error in every worker
    else:
        check_artifact_name(Path(location))  # a name too long for the file system: one line, not an OSError
        if not Path(location).is_file():
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
    supervisor = None
    interrupted = False
    try:
        if settings.workers > 1:
            supervisor = AnnouncingMultiprocess(server_config, [listener], announcement, location)
            supervisor.run()
        else:
            server.run(sockets=[listener])
    except KeyboardInterrupt:
        interrupted = True
    finally:
        listener.close()
    if supervisor is not None:
        interrupted = interrupted or supervisor.interrupted
        if supervisor.failed:
            raise typer.Exit(3)  # every worker failed to start: each logged why, the supervisor that it stopped
    announced = supervisor.announced if supervisor is not None else server.announced
    if interrupted and not announced:
        raise typer.Exit(130)  # Ctrl-C before the address was announced: "the server did not start"
    if settings.workers == 1 and not server.started:
        raise typer.Exit(3)  # uvicorn's own exit status for a server that never started; it has logged why


def announce(message: str) -> None:
    err.print(message, highlight=False, soft_wrap=True)  # a long path must not break the address across lines


def AnnouncingServer(config: Any, announcement: str) -> Any:  # noqa: N802 (a class, made when uvicorn is imported)
    """A uvicorn server that prints ``announcement`` once its startup is complete: the app built (the knowledge base
    opened) and the socket accepting. A startup that fails prints nothing. ``announced`` says whether it did (a
    Ctrl-C before it is "the server did not start")."""
    import uvicorn

    class _Server(uvicorn.Server):
        announced = False

        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.started and not self.should_exit:
                announce(announcement)
                self.announced = True

    return _Server(config)


#: Seconds before a worker that failed to start is replaced again, doubling per failure up to the last: a worker
#: that cannot open the artifact fails the same way until a new build lands (whose arrival retries at once).
RESPAWN_BACKOFF_S = (2.0, 4.0, 8.0, 16.0, 32.0, 60.0)


@contextmanager
def hangup_deferred() -> Iterator[None]:
    """SIGHUP blocked for the duration: a worker process started inside inherits the blocked mask, so a HUP during
    its start-up waits until it can reload (``serve.app``) instead of killing it; here it is delivered on exit."""
    if not hasattr(signal, "pthread_sigmask") or not hasattr(signal, "SIGHUP"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def AnnouncingMultiprocess(config: Any, sockets: list[socket.socket], announcement: str,  # noqa: N802
                           location: str = "") -> Any:
    """uvicorn's worker supervisor, announcing once the first worker has started (as ``AnnouncingServer``), with
    three changes that keep a server serving its last good build:

    - SIGHUP is passed on to the workers, each of which reloads in place (``serve.reload``: a build that does not
      open leaves it serving the old one), instead of uvicorn's restart of every worker, whose fresh workers would
      open a bad file and fail;
    - a worker that dies before it ever served (it cannot open the artifact) is replaced after a back-off
      (``RESPAWN_BACKOFF_S``, or at once when the artifact file changes), with one line each time, not once a
      second for ever while the other workers serve;
    - when no worker is left serving and a replacement fails to start, the supervisor stops with one line
      (``failed``): nothing holds a good build any more, and a port nobody answers is worse than an exit.
    """
    from uvicorn.supervisors import Multiprocess
    from uvicorn.supervisors.multiprocess import Process

    from ..rag.store.freshness import artifact_signature

    logger = logging.getLogger("uvicorn.error")

    class _Multiprocess(Multiprocess):
        announced = False
        interrupted = False
        failed = False

        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            self.served: set[int] = set()  # pids of the workers that have finished start-up
            self.retry_at: dict[int, float] = {}  # slot -> when its failed worker is replaced again
            self.failures: dict[int, int] = {}  # slot -> failed starts in a row
            self.started_on: dict[int, Any] = {}  # slot -> the artifact's signature when its worker was started

        def init_processes(self) -> None:
            # SIGHUP stays blocked here until the workers are up (``cli.defer_hangup`` blocked it from the start):
            # the workers inherit the block, and a HUP sent meanwhile is passed on to them once they can reload
            try:
                with hangup_deferred():
                    signature = artifact_signature(location) if location else None
                    self.started_on = dict.fromkeys(range(self.processes_num), signature)
                    super().init_processes()
                    self.wait_for_a_worker()
            finally:
                if hasattr(signal, "pthread_sigmask") and hasattr(signal, "SIGHUP"):
                    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGHUP})

        def wait_for_a_worker(self) -> None:
            """Announce once a worker has started; return early on a signal or when every worker has failed."""
            while not self.should_exit.is_set() and not self.signal_queue:
                alive = [p for p in self.processes if p.process.is_alive()]
                if not alive:
                    return  # each failed to start: the supervisor's loop stops the server
                if any(p.is_ready(timeout=0.5) for p in alive):
                    announce(announcement)
                    self.announced = True
                    return
                time.sleep(0.1)

        def start_worker(self, idx: int) -> Any:
            """A new worker for slot ``idx``, started with SIGHUP blocked (it reloads once up)."""
            self.started_on[idx] = artifact_signature(location) if location else None  # what it will try to open
            process = Process(self.config, self.sockets)
            with hangup_deferred():
                process.start()
            return process

        def handle_int(self) -> None:
            self.interrupted = True
            super().handle_int()

        def handle_hup(self) -> None:
            logger.info("Received SIGHUP, reloading the knowledge base in each worker.")
            for process in self.processes:
                if process.process.is_alive() and process.pid is not None:
                    try:
                        os.kill(process.pid, signal.SIGHUP)
                    except ProcessLookupError:
                        pass

        def _health(self, process: Any) -> bool | None:
            """True: serving; False: alive, still starting; None: dead or not answering (hung)."""
            if not process.process.is_alive():
                return None
            check = getattr(process, "_healthcheck", None)
            if check is None:  # an older uvicorn: answering counts as serving
                return True if process.ping(self.config.timeout_worker_healthcheck) else None
            return check(self.config.timeout_worker_healthcheck)

        def keep_subprocess_alive(self) -> None:
            if self.should_exit.is_set():
                return
            now = time.monotonic()
            for idx, process in enumerate(self.processes):
                if idx in self.retry_at:
                    changed = bool(location) and artifact_signature(location) != self.started_on.get(idx)
                    if now < self.retry_at[idx] and not changed:
                        continue
                    del self.retry_at[idx]
                    self.processes[idx] = self.start_worker(idx)
                    continue
                health = self._health(process)
                if health is not None:
                    if health and process.pid not in self.served:
                        self.served.add(process.pid)
                        self.failures[idx] = 0
                    continue
                process.kill()  # hung, or already dead
                process.join()
                if self.should_exit.is_set():
                    return
                if process.pid in self.served:  # it had served: replace it at once, as uvicorn does
                    self.served.discard(process.pid)
                    logger.info(f"Child process [{process.pid}] died")
                    self.processes[idx] = self.start_worker(idx)
                    continue
                self.failed_start(idx, process)
                if self.should_exit.is_set():
                    return

        def failed_start(self, idx: int, process: Any) -> None:
            """A worker that died before it served (it logged why): back off, or stop when none serves."""
            serving = sum(1 for i, p in enumerate(self.processes)
                          if i != idx and i not in self.retry_at and self._health(p))
            if not serving:
                logger.error(f"Child process [{process.pid}] failed to start and no worker is serving: stopping. "
                             "Fix what it logged (a new build), then start unitrag serve again.")
                self.failed = True
                self.should_exit.set()
                return
            failures = self.failures.get(idx, 0)
            self.failures[idx] = failures + 1
            delay = RESPAWN_BACKOFF_S[min(failures, len(RESPAWN_BACKOFF_S) - 1)]
            self.retry_at[idx] = time.monotonic() + delay
            logger.warning(f"Child process [{process.pid}] failed to start; {serving} of {len(self.processes)} "
                           f"worker(s) keep serving the last good build; next try in {delay:g} s "
                           "(or when the artifact changes).")

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
