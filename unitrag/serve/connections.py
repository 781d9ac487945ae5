"""What uvicorn is told about connections: deadlines for slow clients, and no forwarding headers of its own.

uvicorn (h11) closes a connection that sits idle between requests (``timeout_keep_alive``) but
waits without end for a request's headers or body: 3,000 connections sending a byte now and then
were all still open after 20 s, each holding a socket and a buffer. ``DeadlineH11Protocol`` gives
the headers ``header_timeout_s`` from their first byte (or from the connection's start) and the
body ``body_timeout_s`` after the headers; past that the connection is closed, the request
unanswered. The app's own time is ``request_timeout_s`` (``limits.within``).

uvicorn's proxy-header rewriting stays off: it trusts ``127.0.0.1`` by default, and rewriting the
client address would hide the TCP peer the roles header is checked against. The app reads
``X-Forwarded-For`` itself, only from the operator's ``trusted_proxies`` (``auth.client_ip``).
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .settings import ServeSettings


def uvicorn_options(settings: ServeSettings) -> dict[str, Any]:
    """The ``uvicorn.run`` / ``uvicorn.Config`` arguments that bound a connection's time and decide whom to believe."""
    return {
        "http": partial(DeadlineH11Protocol, header_timeout_s=settings.header_timeout_s,
                        body_timeout_s=settings.body_timeout_s),
        "timeout_keep_alive": settings.keep_alive_s,
        "proxy_headers": False,
        "forwarded_allow_ips": list(settings.trusted_proxies),  # unused with proxy_headers off; never uvicorn's loopback
    }


class DeadlineH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, with one timer per connection while a request is arriving (0: no limit).

    The timer is (re)armed when the request's phase changes, never per byte: a client cannot keep
    a connection open by trickling. Checked after every read, so the cost is one state comparison.
    """

    def __init__(self, *args: Any, header_timeout_s: float, body_timeout_s: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._limits = {"headers": header_timeout_s, "body": body_timeout_s}
        self._phase: str | None = None
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._track()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._track()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _track(self) -> None:
        """Arm the phase's timer when the request moves on: headers awaited (after the first byte of a kept-alive
        connection's next request: until then ``timeout_keep_alive`` holds), body awaited, or all received."""
        state = self.conn.their_state
        if state is h11.IDLE:
            waiting = self._phase == "headers" or self.cycle is None or bool(self.conn.trailing_data[0])
            phase = "headers" if waiting else None
        else:
            phase = "body" if state is h11.SEND_BODY else None
        if phase == self._phase:
            return
        self._disarm()
        self._phase = phase
        limit = self._limits.get(phase or "", 0)
        if phase is not None and limit > 0:
            self._deadline = self.loop.call_later(limit, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        """Too slow: close the connection (a request being read sees a disconnect)."""
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()
