"""Response headers every answer carries: no sniffing, no referrer, no framing, and no caching of what credentials chose.

- every response: ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``, ``X-Frame-Options: DENY``
  and a Content-Security-Policy with ``frame-ancestors 'none'`` (the page has an API-key field: no other site may
  frame it). A response that sets its own policy keeps it (the preview page's, ``page_csp``); the JSON API's is
  ``default-src 'none'``; the OpenAPI pages (``/docs``, ``/redoc``) keep FastAPI's own HTML, which loads Swagger UI
  from a CDN, so theirs only refuses framing.
- every ``/v1`` response: ``Cache-Control: no-store`` (answers and sources depend on the caller and on the artifact
  being served) and ``Vary`` on the credential headers (``Authorization``, ``X-API-Key``, and the operator's roles
  header when one is configured): a shared cache must never hand one caller's answer to another.
- every error response (4xx, 5xx), whatever its path (a 404 for ``//v1/health``, a 405, a 413): ``Cache-Control:
  no-store``, so that a cache in front never keeps a refusal (a 404 while a path is mistyped, a 503 while the
  database is down) and answers later requests with it.

Set here, outermost, so that refusals made by the other middleware (413, 415, 429, CORS) carry them too.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable
from functools import lru_cache

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: The OpenAPI pages: FastAPI's HTML with Swagger UI / ReDoc from cdn.jsdelivr.net and an inline script.
DOCS_PATHS = ("/docs", "/docs/oauth2-redirect", "/redoc")
FRAMING_ONLY_CSP = "frame-ancestors 'none'"
API_CSP = "default-src 'none'; frame-ancestors 'none'"
CREDENTIAL_HEADERS = ("Authorization", "X-API-Key")


def _hashes(tag: str, html: str) -> list[str]:
    """CSP sources (``'sha256-…'``) for each inline ``<tag>`` element's exact text."""
    return [f"'sha256-{base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()}'"
            for body in re.findall(rf"<{tag}>(.*?)</{tag}>", html, flags=re.DOTALL)]


@lru_cache(maxsize=4)
def page_csp(html: str) -> str:
    """The preview page's policy: its own inline script and style by hash (nothing else inline runs), requests only to
    this server, the empty ``data:`` icon, no plugins, no base rewriting, no form posted anywhere, no framing."""
    scripts = " ".join(_hashes("script", html)) or "'none'"
    styles = " ".join(_hashes("style", html)) or "'none'"
    return (f"default-src 'none'; script-src {scripts}; style-src {styles}; connect-src 'self'; img-src 'self' data:; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def _vary(existing: str | None, names: Iterable[str]) -> str:
    """``existing`` (CORS's ``Origin``, say) with ``names`` added, each once (case-insensitive)."""
    values = [v.strip() for v in (existing or "").split(",") if v.strip()]
    seen = {v.lower() for v in values}
    values += [n for n in names if n.lower() not in seen]
    return ", ".join(values)


class SecurityHeaders:
    """Adds the headers above to every HTTP response (see the module's docstring)."""

    def __init__(self, app: ASGIApp, roles_header: str | None = None) -> None:
        self.app = app
        self.vary = CREDENTIAL_HEADERS + ((roles_header,) if roles_header else ())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        api = path == "/v1" or path.startswith("/v1/")
        docs = path in DOCS_PATHS

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                headers = MutableHeaders(scope=message)
                headers["x-content-type-options"] = "nosniff"
                headers["referrer-policy"] = "no-referrer"
                headers["x-frame-options"] = "DENY"
                if "content-security-policy" not in headers:
                    headers["content-security-policy"] = FRAMING_ONLY_CSP if docs else API_CSP
                if api or message["status"] >= 400:
                    headers["cache-control"] = "no-store"
                if api:
                    headers["vary"] = _vary(headers.get("vary"), self.vary)
            await send(message)

        await self.app(scope, receive, send_with_headers)


class HeadAsGet:
    """``HEAD`` wherever ``GET`` is served (``/``, ``/v1/health``, ...): answered as the ``GET`` would be, headers
    only (a load balancer's health check sends HEAD; FastAPI's routes would refuse it with a 405). Innermost: the
    limits, CORS and the access log see the request as the ``HEAD`` it is."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # the body's pieces are dropped; its Content-Length (when given) is kept
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
