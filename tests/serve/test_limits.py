"""The rate limiter's table is bounded: the most recently seen addresses, one O(1) step per request."""

from __future__ import annotations

from unitrag.serve.auth import client_ip
from unitrag.serve.limits import RateLimit


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_table_holds_at_most_max_clients_addresses_the_least_recently_seen_dropped():
    clock = Clock()
    limiter = RateLimit(app=None, per_minute=2, clock=clock, max_clients=100)  # type: ignore[arg-type]
    assert limiter.take("10.0.0.1") == 0 and limiter.take("10.0.0.1") == 0 and limiter.take("10.0.0.1") > 0
    for n in range(50_000):  # a caller rotating addresses: the table stays at its bound
        limiter.take(f"fd00::{n:x}")
        if n % 10 == 0:
            assert limiter.take("10.0.0.1") > 0  # an active caller stays in the table, still limited
    assert len(limiter) == 100
    clock.now += 30  # half a minute: one token back
    assert limiter.take("10.0.0.1") == 0 and limiter.take("10.0.0.1") > 0


def test_a_forwarded_address_counts_only_from_a_listed_proxy_and_only_its_nearest_untrusted_hop():
    headers = {"x-forwarded-for": "6.6.6.6, 10.0.0.1, 192.168.0.2"}
    assert client_ip(headers, "127.0.0.1", ()) == "127.0.0.1"  # nobody listed: the TCP peer
    assert client_ip(headers, "127.0.0.1", ("127.0.0.1",)) == "192.168.0.2"
    assert client_ip(headers, "127.0.0.1", ("127.0.0.1", "192.168.0.2")) == "10.0.0.1"
    assert client_ip({"x-forwarded-for": " , "}, "127.0.0.1", ("127.0.0.1",)) == "127.0.0.1"
