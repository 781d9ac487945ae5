"""Limits that keep one caller from taking the server: body size, request rate, time per request.

The question's length is the knowledge base's own limit (``max_question_chars``); these are
the HTTP ones. Each answers with the same one-line JSON error as every other refusal.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .auth import client_ip

T = TypeVar("T")


class RequestTimeout(Exception):
    """The work for a request took longer than ``request_timeout_s`` (504)."""


async def within(seconds: float, work: Callable[[], T]) -> T:
    """Run blocking knowledge-base work in a worker thread; give up waiting after ``seconds`` (0: no limit).

    The thread itself runs on (Python cannot stop it); the caller gets its answer in time.
    """
    if seconds <= 0:
        return await run_in_threadpool(work)
    try:
        return await asyncio.wait_for(run_in_threadpool(work), timeout=seconds)
    except asyncio.TimeoutError:
        raise RequestTimeout(f"the request took longer than {seconds:g} s") from None


async def _refuse(send: Send, status: int, message: str, headers: dict[str, str] | None = None) -> None:
    body = json.dumps({"error": message}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """Refuse a request body over ``max_bytes`` (413), by its Content-Length or as it streams in."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.max_bytes <= 0:
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        length = headers.get(b"content-length")
        message = f"request body over {self.max_bytes} bytes"
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            await _refuse(send, 413, message)
            return
        seen = 0
        started = refused = False

        async def counted() -> Message:
            nonlocal seen, started, refused
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.max_bytes:
                    if not started:  # answer now: the app may catch the exception and answer otherwise
                        started = refused = True
                        await _refuse(send, 413, message)
                    raise _TooLarge()
            return msg

        async def tracked(msg: Message) -> None:
            nonlocal started
            if refused:  # the 413 went out already; whatever the app says after it is dropped
                return
            started = started or msg["type"] == "http.response.start"
            await send(msg)

        try:
            await self.app(scope, counted, tracked)
        except _TooLarge:
            pass


class _TooLarge(Exception):
    pass


class RateLimit:
    """A token bucket per client IP: ``per_minute`` requests a minute, bursts up to that many (429).

    Only ``/v1/`` paths count; the page and its docs do not, nor an ``OPTIONS`` request (a browser's CORS preflight:
    the request it asks about is counted when it comes). Off when ``per_minute`` is 0. The table holds
    the ``max_clients`` most recently seen addresses (least recently seen dropped, O(1) per request, no
    pruning pass): at ~200 bytes a client, 10,000 hold ~2 MB, however many addresses call. A dropped
    caller comes back with a full bucket, as it would after a minute's pause.
    """

    def __init__(self, app: ASGIApp, per_minute: int, trusted_proxies: tuple[str, ...] = (),
                 clock: Callable[[], float] = time.monotonic, max_clients: int = 10_000) -> None:
        self.app = app
        self.per_minute = per_minute
        self.trusted_proxies = trusted_proxies
        self.clock = clock
        self.max_clients = max(1, max_clients)
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # ip -> (tokens, last refill)
        self._lock = threading.Lock()

    def take(self, ip: str) -> float:
        """0 when the request may go ahead, else the seconds until it may."""
        now = self.clock()
        rate = self.per_minute / 60.0
        with self._lock:
            tokens, last = self._buckets.pop(ip, (float(self.per_minute), now))
            tokens = min(float(self.per_minute), tokens + (now - last) * rate)
            allowed = tokens >= 1
            self._buckets[ip] = (tokens - 1 if allowed else tokens, now)  # now the most recently seen
            if len(self._buckets) > self.max_clients:
                self._buckets.popitem(last=False)
        return 0.0 if allowed else (1 - tokens) / rate

    def __len__(self) -> int:
        """How many client addresses the table holds now (at most ``max_clients``)."""
        return len(self._buckets)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] != "http" or self.per_minute <= 0 or not scope["path"].startswith("/v1/")
                or scope["method"] == "OPTIONS"):  # a CORS preflight (or a 405): no work, never counted
            await self.app(scope, receive, send)
            return
        headers: dict[str, Any] = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        peer = scope["client"][0] if scope.get("client") else None
        wait = self.take(client_ip(headers, peer, self.trusted_proxies))
        if wait > 0:
            await _refuse(send, 429, f"rate limit: {self.per_minute} requests a minute; retry in {wait:.0f} s",
                          {"retry-after": str(max(1, round(wait)))})
            return
        await self.app(scope, receive, send)
