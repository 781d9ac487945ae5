"""The access log without personal data: a health question never reaches the server's log.

uvicorn's access log writes each request line as sent, query string and all
(``GET /v1/search?q=<the question>``). ``unitrag serve`` configures uvicorn's logging with
``log_config()``: the ``uvicorn.access`` logger drops the query string from every record
(``NoQuery``, a filter on the logger, so every handler sees the record without it) and its
lines hold the time, the method, the path, the HTTP version and the status; not the client's
address. Bodies are never logged (uvicorn does not, and neither does the app).
"""

from __future__ import annotations

import copy
import logging
from typing import Any

ACCESS_LOGGER = "uvicorn.access"
ACCESS_FORMAT = '%(asctime)s %(levelprefix)s "%(request_line)s" %(status_code)s'


def without_query(path: str) -> str:
    """``/v1/search?q=…`` → ``/v1/search`` (a fragment too, should a client have sent one)."""
    return path.split("?", 1)[0].split("#", 1)[0]


class NoQuery(logging.Filter):
    """Rewrites uvicorn's access records, ``(client, method, path with query, http version, status)``, to hold the path
    only; any other record on the logger has each argument that looks like a request target cut at its ``?``."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple):
            record.args = tuple(without_query(a) if isinstance(a, str) and a.startswith("/") else a for a in args)
        elif isinstance(args, dict):
            record.args = {k: without_query(v) if isinstance(v, str) and v.startswith("/") else v
                           for k, v in args.items()}
        return True


def install(logger: logging.Logger | None = None) -> None:
    """Put ``NoQuery`` on the access logger (once): for an app that uvicorn was started on without ``log_config()``."""
    logger = logger or logging.getLogger(ACCESS_LOGGER)
    if not any(isinstance(f, NoQuery) for f in logger.filters):
        logger.addFilter(NoQuery())


def log_config() -> dict[str, Any]:
    """uvicorn's own logging configuration, with the access logger filtered and formatted as above."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["no_query"] = {"()": f"{__name__}.NoQuery"}
    config["formatters"]["access"]["fmt"] = ACCESS_FORMAT
    config["formatters"]["access"]["datefmt"] = "%Y-%m-%dT%H:%M:%S%z"
    config["loggers"][ACCESS_LOGGER]["filters"] = ["no_query"]
    return config
