"""Every refusal is one JSON object, ``{"error": "<one readable line>"}``, with a 4xx status.

Bad JSON is 400; a body or argument the knowledge base refuses (an empty or over-long
question, an unknown topic, lang, kind or role) is 422 with the library's own message;
an unknown id is 404; a wrong credential 401; a compressed body 415 (``plain``). Anything unexpected is a 500 with a fixed
message and the details in the server log, never a traceback in the response.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from ..errors import Unavailable
from .auth import Unauthenticated
from .limits import RequestTimeout

log = logging.getLogger("unitrag.serve")

#: The 400 for a body that is not UTF-8 text (FastAPI's reading of the body fails on it).
NOT_UTF8_BODY = 'the body is not UTF-8 text: send JSON encoded as UTF-8, e.g. {"question": "..."}'
#: The 400 for a body in UTF-16 or UTF-32, or UTF-8 behind a byte order mark: JSON's reader of bytes takes them all
#: (``plain.plain_json_body``), a proxy or a filter in front reads other text, or no JSON at all.
NOT_PLAIN_UTF8_BODY = ("the body is not plain UTF-8 text (it is UTF-16 or UTF-32, or starts with a byte order mark): "
                       'send JSON encoded as UTF-8 without a byte order mark, e.g. {"question": "..."}')


def error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """The one shape of every refusal: ``{"error": message}`` with a 4xx (or 5xx) status."""
    return JSONResponse({"error": message}, status_code=status, headers=headers)


#: The 400 for every preflight when ``cors_origins`` is not set: no origin could pass, whatever it asks for.
NO_CORS_ORIGINS = "CORS preflight refused: the server takes no cross-origin calls (cors_origins is not set)"


class JsonCors(CORSMiddleware):
    """Starlette's CORS middleware, but a refused preflight is the documented ``{"error": ...}`` JSON (Starlette's own
    is ``text/plain`` "Disallowed CORS origin, method"), with its status (400) and its CORS headers kept: a client
    reads every refusal one way, and the message names what was refused and the setting that decides it.

    Installed without origins too: then it refuses every preflight, one reason (no origin could pass, so the method or
    headers asked for do not matter), and leaves other responses untouched (no ``Vary: Origin`` on a server that
    takes no cross-origin calls)."""

    def preflight_response(self, request_headers: Headers) -> Response:
        """The preflight's answer; a refusal rewritten as JSON naming what was refused."""
        response = super().preflight_response(request_headers)
        if response.status_code < 400:
            return response
        headers = {k: v for k, v in response.headers.items() if k not in ("content-type", "content-length")}
        if not self.allow_origins:  # nothing is allowed: no method or header advertised, one reason
            return error(400, NO_CORS_ORIGINS, {"vary": headers["vary"]})
        failures = bytes(response.body).decode("utf-8", "replace").removeprefix("Disallowed CORS ").split(", ")
        reasons = {
            "origin": "the Origin is not one of the server's cors_origins",
            "method": f"the method is not one of {', '.join(self.allow_methods)}",
            "headers": f"a requested header is not one of {', '.join(dict.fromkeys(self.allow_headers))}",
            "private-network": "private network access is not allowed",
        }
        return error(response.status_code, "CORS preflight refused: " + "; ".join(reasons.get(f, f) for f in failures),
                     headers)

    async def simple_response(self, scope: Scope, receive: Receive, send: Send, request_headers: Headers) -> None:
        """Any other request: with origins, Starlette's CORS headers; without, the app's own response, untouched."""
        if self.allow_origins:
            await super().simple_response(scope, receive, send, request_headers)
        else:
            await self.app(scope, receive, send)


def _validation_message(exc: RequestValidationError) -> tuple[int, str]:
    """One line out of pydantic's list: bad JSON is 400, a wrong field 422."""
    problems = exc.errors()
    first = problems[0] if problems else {}
    if first.get("type") == "json_invalid":
        return 400, f"the body is not valid JSON ({first.get('ctx', {}).get('error', 'parse error')})"
    if tuple(first.get("loc", ())) == ("body",):
        return 400, 'the body must be a JSON object, e.g. {"question": "..."} (Content-Type: application/json)'
    parts = []
    for problem in problems[:3]:
        where = ".".join(str(p) for p in problem.get("loc", ()) if p not in ("body", "query"))
        parts.append(f"{where}: {problem.get('msg', 'invalid')}" if where else str(problem.get("msg", "invalid")))
    return 422, "; ".join(parts) or "invalid request"


def _unreadable_body(cause: BaseException) -> str:
    """Why JSON that parses no further could not be read, in the words ``_validation_message`` uses: an attacker's
    30,000 nested brackets and 60,000-digit number got "There was an error parsing the body"."""
    if isinstance(cause, RecursionError):
        why = "nested too deeply"
    elif isinstance(cause, ValueError) and "digits" in str(cause):
        why = "a number too long"
    else:
        why = str(cause).splitlines()[0][:120] if str(cause) else type(cause).__name__
    return f'the body is not valid JSON ({why}): a request is one flat object, e.g. {{"question": "..."}}'


def install(app: FastAPI) -> None:
    """Register the handlers that turn exceptions into the one error shape."""

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return error(*_validation_message(exc))

    @app.exception_handler(ValueError)  # InvalidArgument from the knowledge base is a ValueError
    async def _value(_: Request, exc: ValueError) -> JSONResponse:
        return error(422, str(exc) or "invalid argument")

    @app.exception_handler(Unauthenticated)
    async def _unauthenticated(_: Request, exc: Unauthenticated) -> JSONResponse:
        return error(401, str(exc), {"www-authenticate": "Bearer"})

    @app.exception_handler(Unavailable)
    async def _unavailable(request: Request, exc: Unavailable) -> JSONResponse:
        log.error("%s %s: %s", request.method, request.url.path, exc)  # the detail (host, reason) for the operator only
        return error(503, "the knowledge base cannot be reached now; try again shortly", {"retry-after": "5"})

    @app.exception_handler(RequestTimeout)
    async def _timeout(_: Request, exc: RequestTimeout) -> JSONResponse:
        return error(504, str(exc))

    @app.exception_handler(HTTPException)
    async def _http(_: Request, exc: HTTPException) -> JSONResponse:
        if exc.status_code == 400 and isinstance(exc.__cause__, UnicodeDecodeError):  # FastAPI's "error parsing the body"
            return error(400, NOT_UTF8_BODY)
        if exc.status_code == 400 and exc.__cause__ is not None:  # the same, from a body Python's json cannot read
            return error(400, _unreadable_body(exc.__cause__))
        return error(exc.status_code, str(exc.detail), dict(exc.headers or {}))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return error(500, "internal error (details are in the server log)")
