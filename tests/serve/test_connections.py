"""Slow clients are cut off and forwarding headers are believed only from listed proxies: a real uvicorn
server on a loopback port, started with the options ``unitrag serve`` passes, and real sockets."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import httpx
import pytest

from unitrag.serve import ServeSettings
from unitrag.serve.connections import uvicorn_options

from .conftest import live_server, sample_app

pytestmark = pytest.mark.e2e

#: Deadlines short enough for a test; what a client gets to send its headers, then its body.
FAST = ServeSettings(header_timeout_s=1.0, body_timeout_s=1.0, reload_poll_s=0)


@contextmanager
def served(sample_kb, settings: ServeSettings) -> Iterator[tuple[str, int]]:
    with live_server(sample_app(sample_kb, settings), **uvicorn_options(settings)) as base:
        url = urlsplit(base)
        yield url.hostname, url.port


def trickle(address: tuple[str, int], head: bytes, drip: bytes, every_s: float = 0.2, for_s: float = 6.0) -> float:
    """Send ``head``, then one byte of ``drip`` every ``every_s``: the seconds until the server closed (``for_s``: never)."""
    started = time.monotonic()
    with socket.create_connection(address, timeout=for_s) as sock:
        sock.sendall(head)
        sock.settimeout(every_s)
        for byte in drip * 1000:
            if time.monotonic() - started > for_s:
                return for_s
            try:
                if sock.recv(4096) == b"":
                    return time.monotonic() - started
            except TimeoutError:
                pass
            except OSError:  # reset
                return time.monotonic() - started
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                return time.monotonic() - started
    return for_s


def test_a_client_sending_its_headers_a_byte_at_a_time_is_disconnected(sample_kb):
    with served(sample_kb, FAST) as address:
        closed_after = trickle(address, b"GET /v1/health HTTP/1.1\r\nHost: x\r\n", b"X-Slow: aaaa\r\n")
    assert closed_after < 3.0


def test_a_client_sending_its_body_a_byte_at_a_time_is_disconnected(sample_kb):
    head = b"POST /v1/ask HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n"
    with served(sample_kb, FAST) as address:
        closed_after = trickle(address, head, b'{"question": "' + b"a" * 200)
    assert closed_after < 3.0


def test_many_slow_connections_are_all_closed_within_the_bound(sample_kb):
    with served(sample_kb, FAST) as address:
        socks = [socket.create_connection(address, timeout=5) for _ in range(200)]
        try:
            for sock in socks:
                sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")  # and never the rest
            time.sleep(2.0)
            closed = 0
            for sock in socks:
                sock.settimeout(2.0)
                try:
                    closed += sock.recv(1) == b""
                except OSError:
                    closed += 1
        finally:
            for sock in socks:
                sock.close()
    assert closed == len(socks)


def test_prompt_clients_and_kept_alive_connections_are_served(sample_kb):
    with served(sample_kb, FAST) as (host, port), httpx.Client(base_url=f"http://{host}:{port}", timeout=30) as client:
        assert client.get("/v1/health").status_code == 200
        time.sleep(1.5)  # idle past the header deadline, within keep-alive: the next request is a new request
        assert client.get("/v1/topics").status_code == 200
        answer = client.post("/v1/ask", json={"question": "How is vitamin B12 deficiency treated?"})
        assert answer.status_code == 200 and answer.json()["sources"]


# -- forwarding headers (issue 22, item 5) ------------------------------------------------------------------


def test_a_local_client_rotating_x_forwarded_for_is_still_rate_limited(sample_kb):
    """Loopback is no trusted proxy unless the operator lists it: the TCP peer is the client."""
    settings = ServeSettings(rate_limit_per_minute=5, reload_poll_s=0)
    with served(sample_kb, settings) as (host, port), httpx.Client(base_url=f"http://{host}:{port}") as client:
        codes = [client.get("/v1/topics", headers={"x-forwarded-for": f"10.0.0.{n}"}).status_code for n in range(10)]
    assert codes == [200] * 5 + [429] * 5


def test_a_listed_proxy_s_forwarded_addresses_are_limited_each(sample_kb):
    settings = ServeSettings(rate_limit_per_minute=2, trusted_proxies=("127.0.0.1",), reload_poll_s=0)
    with served(sample_kb, settings) as (host, port), httpx.Client(base_url=f"http://{host}:{port}") as client:
        def code(forwarded: str) -> int:
            return client.get("/v1/topics", headers={"x-forwarded-for": forwarded}).status_code

        assert [code("10.0.0.1") for _ in range(3)] == [200, 200, 429]
        assert code("10.0.0.2") == 200
        assert code("6.6.6.6, 10.0.0.1") == 429  # what the client wrote left of the proxy's hop is not believed


def test_uvicorn_is_told_to_trust_no_forwarding_headers_of_its_own():
    assert ServeSettings().trusted_proxies == ()
    options = uvicorn_options(ServeSettings())
    assert options["proxy_headers"] is False and options["forwarded_allow_ips"] == []
    assert options["timeout_keep_alive"] == 5.0


def test_the_bounds_are_serve_settings_and_reach_uvicorn_in_every_worker():
    import pickle

    from unitrag.errors import UserError
    from unitrag.serve import load_serve_settings

    env = {"UNITRAG_SERVE_HEADER_TIMEOUT_S": "2.5", "UNITRAG_SERVE_BODY_TIMEOUT_S": "0",
           "UNITRAG_SERVE_TRUSTED_PROXIES": "10.0.0.1, 10.0.0.2", "UNITRAG_SERVE_RATE_LIMIT_CLIENTS": "500"}
    settings = load_serve_settings(env=env)
    assert (settings.header_timeout_s, settings.body_timeout_s, settings.rate_limit_clients) == (2.5, 0.0, 500)
    options = uvicorn_options(settings)
    assert options["forwarded_allow_ips"] == ["10.0.0.1", "10.0.0.2"] and options["proxy_headers"] is False
    protocol = pickle.loads(pickle.dumps(options["http"]))  # --workers: the config travels to each process
    assert protocol.keywords == {"header_timeout_s": 2.5, "body_timeout_s": 0.0}
    for key, value in (("UNITRAG_SERVE_HEADER_TIMEOUT_S", "-1"), ("UNITRAG_SERVE_RATE_LIMIT_CLIENTS", "0")):
        with pytest.raises(UserError, match=key[len("UNITRAG_SERVE_"):].lower()):
            load_serve_settings(env={key: value})
