"""What every response says to browsers and caches: no sniffing, no referrer, no framing; the page's own script policy;
no /v1 answer kept by a cache, nor handed to a caller with other credentials; CORS origins that could never match refused."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest

from unitrag.errors import UserError
from unitrag.serve import ServeSettings, load_serve_settings
from unitrag.serve.headers import page_csp

from .conftest import CLINICIAN_KEY, CLINICIAN_KEYS

RESTRICTED_UNIT = "en-b12-treatment"  # access: clinician


def _csp(response) -> dict[str, str]:
    """The policy's directives: name → sources."""
    policy = response.headers["content-security-policy"]
    return {d.split()[0]: " ".join(d.split()[1:]) for d in (p.strip() for p in policy.split(";")) if d}


@pytest.mark.parametrize("path", ["/", "/v1/health", "/v1/topics", "/v1/units/no-such-unit", "/nowhere", "/docs",
                                  "/openapi.json"])
def test_every_response_refuses_sniffing_referrers_and_framing(client, path):
    response = client.get(path)
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["x-frame-options"] == "DENY"
    assert _csp(response)["frame-ancestors"] == "'none'"


def test_refusals_made_before_the_app_carry_the_headers_too(make_client):
    limited = make_client(ServeSettings(max_body_bytes=10, reload_poll_s=0))
    refused = limited.post("/v1/ask", content=b'{"question": "' + b"x" * 100 + b'"}',
                           headers={"content-type": "application/json"})
    assert refused.status_code == 413
    assert refused.headers["x-frame-options"] == "DENY" and refused.headers["cache-control"] == "no-store"


def test_the_page_policy_allows_only_its_own_inline_script_and_style(client):
    page = client.get("/")
    html = page.text
    csp = _csp(page)
    assert csp["default-src"] == "'none'" and csp["connect-src"] == "'self'"
    assert "unsafe-inline" not in page.headers["content-security-policy"]
    assert "unsafe-eval" not in page.headers["content-security-policy"]
    for tag, directive in (("script", "script-src"), ("style", "style-src")):
        bodies = re.findall(rf"<{tag}>(.*?)</{tag}>", html, flags=re.DOTALL)
        assert bodies, tag
        hashes = {f"'sha256-{base64.b64encode(hashlib.sha256(b.encode()).digest()).decode()}'" for b in bodies}
        assert set(csp[directive].split()) == hashes
    # an inline style attribute or event handler would be refused by the policy: the page has none
    assert not re.search(r"<[^>]+\s(style|on[a-z]+)=", html)
    assert page_csp(html) == page.headers["content-security-policy"]


def test_the_openapi_page_keeps_its_own_scripts_and_only_refuses_framing(client):
    """/docs is FastAPI's HTML loading Swagger UI from a CDN with an inline script: a script policy would blank it."""
    docs = client.get("/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()
    assert _csp(docs) == {"frame-ancestors": "'none'"}


def test_a_clinician_only_unit_is_never_stored_by_a_cache_and_varies_by_credentials(client):
    response = client.get(f"/v1/units/{RESTRICTED_UNIT}", headers={"x-api-key": CLINICIAN_KEY})
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    vary = {v.strip().lower() for v in response.headers["vary"].split(",")}
    assert {"authorization", "x-api-key"} <= vary


@pytest.mark.parametrize("method, path", [("get", "/v1/health"), ("get", "/v1/search?q=iodine"), ("get", "/v1/me"),
                                          ("get", "/v1/units/no-such-unit"), ("post", "/v1/ask")])
def test_every_v1_response_is_no_store(client, method, path):
    kwargs = {"json": {"question": "How much iodine in pregnancy?"}} if method == "post" else {}
    response = getattr(client, method)(path, **kwargs)
    assert response.headers["cache-control"] == "no-store", (path, response.status_code)
    assert "x-api-key" in response.headers["vary"].lower()


@pytest.mark.parametrize("method, path, status", [("get", "//v1/health", 404), ("get", "/nowhere", 404),
                                                  ("get", "/v1/health/", 404), ("post", "/", 405),
                                                  ("get", "/v1/units/nope", 404), ("get", "/v1/health?x=1", 422)])
def test_every_error_response_is_no_store_whatever_its_path(client, method, path, status):
    """A cache in front must not keep a refusal and answer later requests with it, outside /v1 too."""
    response = getattr(client, method)(path)
    assert response.status_code == status, response.text
    assert response.headers["cache-control"] == "no-store", (path, response.status_code)


def test_the_stream_is_no_store_too(client):
    with client.stream("POST", "/v1/ask/stream", json={"question": "How much iodine in pregnancy?"}) as response:
        assert response.headers["cache-control"] == "no-store"
        assert response.headers["x-accel-buffering"] == "no"


def test_vary_keeps_cors_origin_and_names_a_configured_roles_header(make_client):
    settings = ServeSettings(cors_origins=("https://app.example.org",), roles_header="X-Roles", reload_poll_s=0)
    response = make_client(settings).get("/v1/topics", headers={"origin": "https://app.example.org"})
    vary = [v.strip().lower() for v in response.headers["vary"].split(",")]
    assert {"origin", "authorization", "x-api-key", "x-roles"} <= set(vary) and len(vary) == len(set(vary))


def test_the_page_is_not_stored_per_caller_but_revalidated(client):
    assert client.get("/").headers["cache-control"] == "no-cache"


@pytest.mark.parametrize("value, shown", [
    ("https://app.example.org/", "'https://app.example.org/': an origin has no path"),
    ("https://*.example.com", "'https://*.example.com': only a lone * is a wildcard"),
    ("app.example.org", "'app.example.org': no scheme"),
    ("https://app .example.org", "'https://app .example.org': whitespace inside"),
    ("https://App.example.org", "in lower case"),
    ("https://app.example.org:443", "default port"),
])
def test_a_cors_origin_that_can_never_match_is_one_line_naming_the_setting_and_value(value, shown):
    with pytest.raises(UserError) as refused:
        load_serve_settings(env={"UNITRAG_SERVE_CORS_ORIGINS": f"https://ok.example.net,{value}"})
    message = str(refused.value)
    assert "\n" not in message and "cors_origins" in message and shown in message
    assert "ok.example.net" not in message


def test_the_audited_cors_list_names_both_bad_origins():
    with pytest.raises(UserError) as refused:
        load_serve_settings(env={"UNITRAG_SERVE_CORS_ORIGINS":
                                 "https://app.example.org/,https://*.example.com, https://ok.example.net"})
    assert "'https://app.example.org/'" in str(refused.value) and "'https://*.example.com'" in str(refused.value)


def test_cors_origins_that_can_match_are_kept():
    value = "https://ok.example.net, http://localhost:3000,http://[::1]:8080"
    assert load_serve_settings(env={"UNITRAG_SERVE_CORS_ORIGINS": value}).cors_origins == (
        "https://ok.example.net", "http://localhost:3000", "http://[::1]:8080")
    assert load_serve_settings(env={"UNITRAG_SERVE_CORS_ORIGINS": "*"}).cors_origins == ("*",)


def test_an_app_built_with_a_bad_origin_is_refused_before_it_serves(make_client):
    with pytest.raises(UserError, match="cors_origins"):
        make_client(ServeSettings(cors_origins=("https://app.example.org/",), api_keys=CLINICIAN_KEYS, reload_poll_s=0))


@pytest.mark.parametrize("path", ["/v1/units/x/", "/v1/health/", "/docs/"])
def test_a_trailing_slash_is_a_404_never_a_redirect_to_the_requests_host(client, path):
    response = client.get(path, headers={"host": "evil.example"}, follow_redirects=False)
    assert response.status_code == 404 and "location" not in response.headers
    assert response.json() == {"error": "Not Found"}
