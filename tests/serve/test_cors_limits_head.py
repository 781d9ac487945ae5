"""A browser can read the limits' refusals (413, 429 carry the CORS headers), its preflights are not counted against
the rate limit, and HEAD is answered wherever GET is (a load balancer's health check)."""

from __future__ import annotations

import pytest

from unitrag.serve import ServeSettings

ORIGIN = "https://app.example.org"
PREFLIGHT = {"origin": ORIGIN, "access-control-request-method": "POST",
             "access-control-request-headers": "authorization,content-type"}


def cors_client(make_client, **settings):
    return make_client(ServeSettings(cors_origins=(ORIGIN,), reload_poll_s=0, **settings))


def test_a_body_too_large_is_a_413_a_browser_can_read(make_client):
    client = cors_client(make_client, max_body_bytes=10)
    response = client.post("/v1/ask", json={"question": "How is vitamin B12 deficiency treated?"},
                           headers={"origin": ORIGIN})
    assert response.status_code == 413 and response.headers["access-control-allow-origin"] == ORIGIN
    assert response.json()["error"].startswith("request body over")


def test_a_rate_limited_request_is_a_429_a_browser_can_read(make_client):
    client = cors_client(make_client, rate_limit_per_minute=2)
    statuses = [client.get("/v1/health", headers={"origin": ORIGIN}) for _ in range(3)]
    assert [r.status_code for r in statuses] == [200, 200, 429]
    assert statuses[-1].headers["access-control-allow-origin"] == ORIGIN and statuses[-1].headers["retry-after"]


def test_preflights_are_not_counted_against_the_rate_limit(make_client):
    client = cors_client(make_client, rate_limit_per_minute=2)
    for _ in range(5):
        preflight = client.options("/v1/ask", headers=PREFLIGHT)
        assert preflight.status_code == 200 and preflight.headers["access-control-allow-origin"] == ORIGIN
    assert [client.get("/v1/health", headers={"origin": ORIGIN}).status_code for _ in range(3)] == [200, 200, 429]


@pytest.mark.parametrize("path", ["/", "/v1/health", "/v1/about", "/v1/topics", "/openapi.json"])
def test_head_is_answered_wherever_get_is_with_the_headers_and_no_body(client, path):
    get, head = client.get(path), client.head(path)
    assert get.status_code == head.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == get.headers["content-type"]
    assert head.headers["x-content-type-options"] == "nosniff"


def test_head_is_refused_where_get_is(client):
    assert client.head("/v1/ask").status_code == 405  # POST only
    assert client.head("/v1/units/no-such-unit").status_code == 404


@pytest.mark.parametrize("headers, reason", [
    ({"origin": "https://evil.example", "access-control-request-method": "POST"}, "cors_origins"),
    ({"origin": ORIGIN, "access-control-request-method": "PUT"}, "the method is not one of GET, POST"),
    ({"origin": ORIGIN, "access-control-request-method": "POST", "access-control-request-headers": "x-other"},
     "a requested header is not one of"),
])
def test_a_refused_preflight_is_the_json_error_keeping_its_status(make_client, headers, reason):
    response = cors_client(make_client).options("/v1/ask", headers=headers)
    assert response.status_code == 400 and response.headers["content-type"] == "application/json"  # text/plain before
    error = response.json()["error"]
    assert set(response.json()) == {"error"} and error.startswith("CORS preflight refused: ") and reason in error
    assert "Origin" in response.headers["vary"] and response.headers["x-content-type-options"] == "nosniff"


def test_without_cors_origins_a_preflight_is_the_documented_400_not_a_405(client):
    response = client.options("/v1/ask", headers={"origin": ORIGIN, "access-control-request-method": "POST"})
    assert response.status_code == 400 and response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert error == "CORS preflight refused: the server takes no cross-origin calls (cors_origins is not set)"
    assert "access-control-allow-origin" not in response.headers


def test_without_cors_origins_other_requests_carry_no_cors_headers(client):
    response = client.get("/v1/health", headers={"origin": ORIGIN})
    assert response.status_code == 200 and "access-control-allow-origin" not in response.headers
    assert "origin" not in response.headers["vary"].lower()
    assert client.options("/v1/ask").status_code == 405  # an OPTIONS that is no preflight (no Origin) is the router's
