"""A request is read one way only: what could be read two ways is refused, not guessed at.

A compressed body read as plain text, a query parameter or JSON key given twice (the last
silently winning), bytes that are not UTF-8 read as replacement characters (in a query parameter
or in the path), a body in UTF-16 or behind a byte order mark decoded by guessing: each is a
request the server would answer as something other than what was sent, and a proxy or cache in
front of it may have read it the other way. Each is refused with the usual one-line JSON error:
415 for a content encoding, 400 for text that is not plain UTF-8, 422 naming the repeated
parameter or key.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from urllib.parse import unquote_to_bytes

from fastapi import Request
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from ..rag.arguments import DuplicateKey, json_once
from .errors import NOT_PLAIN_UTF8_BODY, NOT_UTF8_BODY, error


class IdentityEncoding:
    """Refuse a request whose body comes with a ``Content-Encoding`` other than ``identity`` (415): the server
    never decompresses, and reading gzip bytes as JSON would be a misleading 400, or worse, a guess."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            codings = [c.strip().lower() for name, value in scope["headers"] if name.lower() == b"content-encoding"
                       for c in value.decode("latin-1").split(",")]
            other = next((c for c in codings if c not in ("", "identity")), None)
            if other is not None:
                await error(415, f"Content-Encoding {other!r} is not accepted: send the body uncompressed "
                                 "(identity)")(scope, receive, send)
                return
        await self.app(scope, receive, send)


#: The 400 for a path whose percent-decoding is not UTF-8.
NOT_UTF8_PATH = "the path is not UTF-8 once percent-decoded: percent-encode UTF-8 bytes"


class Utf8Path:
    """Refuse a request whose path, percent-decoded, is not UTF-8 (400), as ``query_names`` refuses such a query
    parameter: the server reads ``/v1/units/%ff%fe`` with U+FFFD in place of each byte (a 404 for an id nobody sent,
    and two different paths read as one), a proxy or a log another way."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw = scope.get("raw_path") if scope["type"] == "http" else None
        if raw is not None:
            try:
                unquote_to_bytes(raw).decode("utf-8")
            except UnicodeDecodeError:
                await error(400, NOT_UTF8_PATH)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def query_names(request: Request) -> list[str]:
    """The query string's parameter names in order, repeats kept; 400 naming a parameter whose name or value is
    not UTF-8 once percent-decoded (Starlette would hand it on as U+FFFD, e.g. an "empty" question)."""
    names = []
    for part in request.scope.get("query_string", b"").split(b"&"):
        if not part:
            continue
        raw_name, _, raw_value = part.partition(b"=")
        try:
            name = unquote_to_bytes(raw_name.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            raise HTTPException(400, "a query parameter's name is not UTF-8: percent-encode UTF-8 bytes") from None
        try:
            unquote_to_bytes(raw_value.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            raise HTTPException(400, f"query parameter {name!r}: not UTF-8 (percent-encode UTF-8 bytes)") from None
        names.append(name)
    return names


def once_each(names: list[str], repeatable: Collection[str], endpoint: str) -> None:
    """422 for a parameter given more than once that takes one value (the last would silently win)."""
    seen: set[str] = set()
    for name in names:
        if name in seen and name not in repeatable:
            raise HTTPException(422, f"query parameter {name!r} given more than once; {endpoint} takes one value "
                                     f"(repeatable: {', '.join(sorted(repeatable)) or 'none'})")
        seen.add(name)


async def plain_json_body(request: Request) -> None:
    """The body read one way: 400 for one that is not plain UTF-8 (FastAPI's reading, ``json.loads`` of the bytes,
    takes UTF-16 and UTF-32 and skips a byte order mark, where a proxy or a filter in front reads other text, or no
    JSON at all); 422 naming a key that a JSON object of the body holds twice (``json`` keeps the last, silently;
    the words are ``--user-context``'s, ``json_once``). A body that is not JSON is left to the route's own parsing,
    which answers for it."""
    body = await request.body()
    if body and json.detect_encoding(body) != "utf-8":  # a BOM of any kind, or the NUL bytes of UTF-16/32 text
        raise HTTPException(400, NOT_PLAIN_UTF8_BODY)
    try:
        json_once(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise HTTPException(400, NOT_UTF8_BODY) from None
    except DuplicateKey as exc:
        raise HTTPException(422, f"the JSON body {exc}") from None
    except ValueError:  # not JSON: answered by FastAPI's reading of the body
        return
