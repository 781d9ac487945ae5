"""Roles are not the caller's to claim: restricted content only for operator-configured credentials."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import re

import pytest

from unitrag.errors import UserError
from unitrag.serve import ServeSettings, load_serve_settings
from unitrag.rag.types import UserContext
from unitrag.serve.auth import Authenticator, Unauthenticated, parse_api_keys

from .conftest import CLINICIAN_KEY

pytestmark = pytest.mark.e2e


def sha256(key: str) -> str:
    """A key's configured form: its digest."""
    return "sha256:" + hashlib.sha256(key.encode()).hexdigest()


RESTRICTED_UNIT = "en-b12-treatment"  # access: clinician
QUESTION = "B12 injections hydroxocobalamin dose"  # finds it first, for a clinician
KEY = {"authorization": f"Bearer {CLINICIAN_KEY}"}
KNOWN = ("clinician",)  # the sample's restricted role (restricted_role)


@pytest.fixture(scope="module")
def restricted(sample_kb) -> dict[str, list[str]]:
    """The clinician-only chunks' unit ids, titles and text fragments: none may reach a public caller."""
    store = sample_kb.store
    rows = [i for i in range(len(store)) if store.access[i] == "clinician"]
    assert RESTRICTED_UNIT in {store.columns["unit_id"][i] for i in rows}
    texts = store.prompt_texts(rows)
    return {
        "units": sorted({store.columns["unit_id"][i] for i in rows}),
        "titles": sorted({store.columns["title"][i] for i in rows}),
        "fragments": [t[len(t) // 2: len(t) // 2 + 40] for t in texts],
    }


def leaks(response_text: str, restricted: dict[str, list[str]]) -> list[str]:
    decoded = response_text
    try:  # JSON escapes non-ASCII: compare the decoded text too
        decoded = json.dumps(json.loads(response_text), ensure_ascii=False)
    except ValueError:
        pass
    return [x for x in restricted["units"] + restricted["titles"] + restricted["fragments"] if x in decoded or x in response_text]


def test_a_clinician_key_reaches_the_restricted_scene(client):
    found = client.get("/v1/search", params={"q": QUESTION}, headers=KEY).json()
    assert RESTRICTED_UNIT in {s["unit_id"] for s in found["sources"]}
    answer = client.post("/v1/ask", json={"question": QUESTION}, headers=KEY).json()
    assert RESTRICTED_UNIT in {s["unit_id"] for s in answer["sources"]}


@pytest.mark.parametrize("path", ["/v1/ask", "/v1/ask/stream"])
@pytest.mark.parametrize("user", [None, {"roles": ["clinician"]}, {"roles": ["clinician"], "current_topic": "vitamin-b12"}])
def test_anonymous_and_forged_roles_get_public_content_only(client, restricted, path, user):
    body = {"question": QUESTION} | ({"user": user} if user is not None else {})
    response = client.post(path, json=body)
    assert response.status_code == 200
    assert leaks(response.text, restricted) == []


def test_a_forged_roles_header_is_ignored_unless_the_operator_trusts_the_proxy(make_client, restricted):
    header = {"x-unitrag-roles": "clinician"}
    untrusted = make_client(ServeSettings(roles_header="X-Unitrag-Roles", reload_poll_s=0))  # peer is not a proxy
    assert leaks(untrusted.get("/v1/search", params={"q": QUESTION}, headers=header).text, restricted) == []
    unconfigured = make_client(ServeSettings(trusted_proxies=("testclient",), reload_poll_s=0))  # no header named
    assert leaks(unconfigured.get("/v1/search", params={"q": QUESTION}, headers=header).text, restricted) == []
    trusted = make_client(ServeSettings(roles_header="X-Unitrag-Roles", trusted_proxies=("testclient",), reload_poll_s=0))
    sources = trusted.get("/v1/search", params={"q": QUESTION}, headers=header).json()["sources"]
    assert RESTRICTED_UNIT in {s["unit_id"] for s in sources}


def test_a_proxys_roles_of_other_systems_count_for_nothing(make_client, restricted):
    """A proxy's header lists every role the caller holds anywhere: only the knowledge base's restricted one counts."""
    trusted = make_client(ServeSettings(roles_header="X-Unitrag-Roles", trusted_proxies=("testclient",), reload_poll_s=0))
    others = trusted.get("/v1/me", headers={"x-unitrag-roles": "admin, staff"}).json()
    assert others == {"authenticated": False, "roles": []}
    mixed = trusted.get("/v1/me", headers={"x-unitrag-roles": "admin,clinician"}).json()
    assert mixed["roles"] == ["clinician"]


def test_a_key_granting_another_role_than_the_knowledge_bases_is_refused_at_start(make_client):
    """A key for `staff` on a knowledge base whose restricted role is `clinician` would read nothing while its holder
    believes it reads the restricted units: the server does not start (and a reload to such a build is refused)."""
    with pytest.raises(UserError, match="'staff'.*restricted role is 'clinician'"):
        make_client(ServeSettings(api_keys=parse_api_keys(f"{sha256('k')}=staff"), reload_poll_s=0))


def test_a_roles_header_sent_twice_is_refused_not_read_first_come(make_client, restricted):
    """A proxy that appends its own header leaves the caller's first: the first value must not be taken on trust."""
    trusted = make_client(ServeSettings(roles_header="X-Unitrag-Roles", trusted_proxies=("testclient",), reload_poll_s=0))
    twice = [("x-unitrag-roles", "clinician"), ("x-unitrag-roles", "")]
    response = trusted.get("/v1/search", params={"q": QUESTION}, headers=twice)
    assert response.status_code == 401 and "X-Unitrag-Roles" in response.json()["error"]
    assert leaks(response.text, restricted) == []


def test_body_roles_can_narrow_a_key_never_widen_it(client, restricted):
    narrowed = client.post("/v1/ask", json={"question": QUESTION, "user": {"roles": []}}, headers=KEY)
    assert leaks(narrowed.text, restricted) == []


def test_an_anonymous_caller_cannot_tell_the_restricted_role_from_another_name(client):
    """Claimed without credentials, the restricted role was dropped (200) and any other name a 422 "not this
    knowledge base's role": a probe for the role's name. Every claimed role is dropped alike now."""

    def seen(path: str, roles: list[str]) -> tuple[int, Any]:
        response = client.post(path, json={"question": QUESTION, "user": {"roles": roles}})
        if path == "/v1/ask/stream":
            return response.status_code, None
        return response.status_code, {k: v for k, v in response.json().items() if k != "timings_ms"}

    for path in ("/v1/ask", "/v1/ask/stream"):
        public = seen(path, [])
        assert public[0] == 200
        assert seen(path, ["clinician"]) == seen(path, ["staff"]) == seen(path, ["clinician", "staff"]) == public


def test_a_caller_holding_the_role_is_told_a_claimed_name_is_not_it(client):
    """A key holder knows the role's name: another one in the body is a typo, said (not a silent public answer)."""
    response = client.post("/v1/ask", json={"question": QUESTION, "user": {"roles": ["staff"]}}, headers=KEY)
    assert response.status_code == 422
    assert response.json() == {"error": "user.roles: 'staff' is not this knowledge base's role ('clinician')"}


@pytest.mark.parametrize("headers", [{}, KEY])
@pytest.mark.parametrize("path", ["/v1/ask", "/v1/ask/stream"])
def test_null_roles_are_refused_as_the_library_refuses_them(client, path, headers):
    """``"roles": null`` meant "whatever the key grants" over HTTP, where ``UserContext.from_dict`` and the CLI refuse
    it: a null list is an error (leaving the field out is what means the key's roles)."""
    with pytest.raises(ValueError, match="roles: expected a list of names, got None"):
        UserContext.from_dict({"roles": None})
    response = client.post(path, json={"question": QUESTION, "user": {"roles": None}}, headers=headers)
    assert response.status_code == 422, response.text
    assert response.json()["error"].startswith("user.roles: expected a list of names, got null")
    left_out = client.post(path, json={"question": QUESTION, "user": {}}, headers=headers)
    assert left_out.status_code == 200


@pytest.mark.parametrize("headers", [{"authorization": "Bearer wrong"}, {"x-api-key": "wrong"}, {"authorization": "Basic abc"}])
def test_a_wrong_credential_is_refused_not_served_as_anonymous(client, headers):
    response = client.get("/v1/search", params={"q": QUESTION}, headers=headers)
    assert response.status_code == 401 and set(response.json()) == {"error"}


WRONG = "wrong-key"


@pytest.mark.parametrize("headers", [{"x-api-key": "wrong"}, {"x-api-key": ""}, {"authorization": "Bearer wrong"},
                                     {"authorization": "Basic abc"}])
def test_health_refuses_a_wrong_key_as_every_other_endpoint_does(client, headers):
    """`curl /v1/health -H 'X-API-Key: wrong'` was a 200: a client could not tell its key was refused everywhere else."""
    for method in (client.get, client.head):
        response = method("/v1/health", headers=headers)
        assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer", response.text


@pytest.mark.parametrize("headers", [{}, KEY, {"x-api-key": CLINICIAN_KEY}])
def test_health_stays_public_and_takes_a_good_key(client, headers):
    assert client.get("/v1/health", headers=headers).status_code == 200


@pytest.mark.parametrize("headers", [
    [("authorization", f"Bearer {CLINICIAN_KEY}"), ("x-api-key", WRONG)],
    [("x-api-key", CLINICIAN_KEY), ("authorization", f"Bearer {WRONG}")],
    [("x-api-key", CLINICIAN_KEY), ("x-api-key", WRONG)],
    [("x-api-key", WRONG), ("x-api-key", CLINICIAN_KEY)],
    [("authorization", f"Bearer {CLINICIAN_KEY}"), ("authorization", f"Bearer {WRONG}")],
    [("authorization", f"Bearer {CLINICIAN_KEY}"), ("authorization", "Basic abc")],
    [("authorization", f"Bearer {CLINICIAN_KEY}"), ("x-api-key", "")],
    [("x-api-key", "")],
    [("x-api-key", "  ")],
    [("authorization", "Bearer ")],
    [("authorization", "")],
])
def test_conflicting_or_empty_credentials_are_refused_in_any_order(client, restricted, headers):
    response = client.get("/v1/search", params={"q": QUESTION}, headers=headers)
    assert response.status_code == 401 and set(response.json()) == {"error"}, (headers, response.text)
    assert leaks(response.text, restricted) == []


@pytest.mark.parametrize("headers", [
    [("x-api-key", CLINICIAN_KEY), ("x-api-key", CLINICIAN_KEY)],
    [("authorization", f"Bearer {CLINICIAN_KEY}"), ("x-api-key", f" {CLINICIAN_KEY} ")],
])
def test_the_same_key_sent_twice_is_one_credential(client, headers):
    assert client.get("/v1/me", headers=headers).json() == {"authenticated": True, "roles": ["clinician"]}


def test_a_restricted_unit_is_not_found_for_anonymous_callers(client, restricted):
    anonymous = client.get(f"/v1/units/{RESTRICTED_UNIT}")
    assert anonymous.status_code == 404 and leaks(anonymous.text, restricted) == [RESTRICTED_UNIT]  # only the id asked for
    assert anonymous.json() == {"error": f"no unit '{RESTRICTED_UNIT}'"}  # as for an id that does not exist
    clinician = client.get(f"/v1/units/{RESTRICTED_UNIT}", headers={"x-api-key": CLINICIAN_KEY}).json()
    assert clinician["access"] == "clinician" and clinician["chunks"][0]["text"]


MISSING_UNIT = "en-b12-treatmenx"  # as long as RESTRICTED_UNIT: the same bytes but for the id


def test_a_restricted_unit_and_a_missing_one_get_byte_identical_404s(client):
    hidden, missing = client.get(f"/v1/units/{RESTRICTED_UNIT}"), client.get(f"/v1/units/{MISSING_UNIT}")
    assert (hidden.status_code, dict(hidden.headers)) == (missing.status_code, dict(missing.headers))
    assert hidden.content.replace(RESTRICTED_UNIT.encode(), b"ID") == missing.content.replace(MISSING_UNIT.encode(), b"ID")


def test_the_unit_route_does_the_same_lookups_for_a_restricted_and_a_missing_unit(client, monkeypatch):
    from unitrag.serve import routes

    kb = client.app.state.unitrag.holder.current.kb
    steps: list[str] = []
    monkeypatch.setattr(routes, "unit_rows", lambda ids, unit_id: steps.append("rows") or [])
    known = kb.known
    monkeypatch.setattr(kb, "known", type(known)(known.topics, lambda i: steps.append("kind") or known.kind_of(i),
                                                  lambda i: steps.append("access") or known.access_of(i)))
    monkeypatch.setattr(type(kb.store.units), "__getitem__", lambda *_: steps.append("row") or {})
    for unit_id in (RESTRICTED_UNIT, MISSING_UNIT):
        assert client.get(f"/v1/units/{unit_id}").status_code == 404
    assert steps == ["kind", "access", "rows"] * 2


@pytest.mark.parametrize("search, ask", [
    ({"recent_scene": "{id}"}, {"recent_scenes": ["{id}"]}),
    ({"triggered_rule": "{id}"}, {"triggered_rules": ["{id}"]}),
])
def test_an_anonymous_caller_naming_a_restricted_id_gets_the_missing_ids_422(client, search, ask):
    """A clinician-only scene named as a recent scene or as a rule: the same 422 as an id that does not exist."""

    def answers(unit_id: str) -> list[tuple[int, str]]:
        params = {"q": QUESTION} | {k: v.format(id=unit_id) for k, v in search.items()}
        user = {k: [v[0].format(id=unit_id)] for k, v in ask.items()}
        got = [client.get("/v1/search", params=params), client.post("/v1/ask", json={"question": QUESTION, "user": user}),
               client.post("/v1/ask/stream", json={"question": QUESTION, "user": user})]
        return [(r.status_code, r.text.replace(unit_id, "ID")) for r in got]

    hidden = answers(RESTRICTED_UNIT)
    assert hidden == answers(MISSING_UNIT) and {code for code, _ in hidden} == {422}
    assert "not in this knowledge base" in hidden[0][1]
    clinician = client.get("/v1/search", params={"q": QUESTION, "recent_scene": RESTRICTED_UNIT}, headers=KEY)
    assert clinician.status_code == 200


def test_me_reports_granted_roles_only(client):
    assert client.get("/v1/me").json() == {"authenticated": False, "roles": []}
    assert client.get("/v1/me", headers=KEY).json() == {"authenticated": True, "roles": ["clinician"]}


# -- configuration ---------------------------------------------------------------------


def test_keys_are_kept_as_digests_and_compared_whole():
    hashed = parse_api_keys({sha256("s3cret"): ["clinician"]})
    assert hashed == parse_api_keys(f"{sha256('s3cret').upper().replace('SHA256', 'sha256')}=clinician")
    auth = Authenticator(hashed)
    assert auth.roles({"x-api-key": "s3cret"}, "1.2.3.4", KNOWN) == ("clinician",)
    for wrong in ("s3cre", "s3crett", "S3CRET", sha256("s3cret"), sha256("s3cret")[len("sha256:"):]):
        with pytest.raises(Unauthenticated):
            auth.roles({"x-api-key": wrong}, "1.2.3.4", KNOWN)
    assert auth.roles({}, "1.2.3.4", KNOWN) == ()


@pytest.mark.parametrize("value", [f"{sha256('k')}=Admin", f"{sha256('k')}=public", f"{sha256('k')}=", "nokey",
                                   {sha256("k"): "clinician", sha256("j"): [1]}])
def test_bad_key_configuration_is_refused(value):
    with pytest.raises(UserError):
        parse_api_keys(value)


SECRET = "correct-horse-battery-staple"
DIGEST = sha256(SECRET)[len("sha256:"):]


@pytest.mark.parametrize("entry, problem", [
    (DIGEST, "a digest without its sha256: prefix"),  # was a bearer secret equal to the digest
    (SECRET, "not a digest"),  # was a plaintext key
    ("sha256:zz", "sha256: takes hex digits only"),
    ("sha256:" + DIGEST[:60], "sha256: takes exactly 64 hex digits, got 60"),
    ("sha256:" + DIGEST + "00", "sha256: takes exactly 64 hex digits, got 66"),
    ("sha512:" + DIGEST, "only sha256: digests are accepted"),
    ("SHA256:" + DIGEST, "only sha256: digests are accepted (the prefix in lower case)"),
])
@pytest.mark.parametrize("table", [False, True])
def test_only_a_sha256_digest_is_a_key_and_anything_else_is_one_line_naming_the_entry(entry, problem, table):
    """Docs promise the server never stores a key itself: an entry without ``sha256:`` was silently a plaintext key,
    a malformed digest one that could never match. Either stops the server, naming the entry's position and how to
    write its digest, and never echoing the value whole."""
    good = sha256("other")
    value = {good: ["clinician"], entry: ["clinician"]} if table else f"{good}=clinician,{entry}=clinician"
    with pytest.raises(UserError) as raised:
        parse_api_keys(value)
    message = str(raised.value)
    where = "[serve.api_keys] entry 2" if table else "UNITRAG_API_KEYS entry 2"
    assert message.startswith(f"{where}") and problem in message, message
    assert "printf %s" in message and "sha256sum" in message and "\n" not in message
    # a second audit: even its first characters were shown ("'supe'…"); only a hash's name may be
    shown = message[len(where):message.index(":", len(where))]
    assert shown in ("", " ('sha256'…)", " ('sha512'…)", " ('SHA256'…)"), shown
    assert entry not in message and DIGEST[:4] not in message and SECRET[:4] not in message


def test_settings_from_file_then_environment_then_flags(tmp_path):
    config = tmp_path / "unitrag.toml"
    digest = hashlib.sha256(b"k1").hexdigest()
    config.write_text(
        '[unitrag]\nartifact = "x.duckdb"\n[serve]\nport = 9000\nrate_limit_per_minute = 60\n'
        f'cors_origins = ["https://a.example"]\n[serve.api_keys]\n"sha256:{digest}" = ["clinician"]\n'
    )
    settings = load_serve_settings(config, env={"UNITRAG_SERVE_PORT": "9100", "UNITRAG_SERVE_MAX_BODY_BYTES": "1000"}, host="0.0.0.0")
    assert (settings.port, settings.host, settings.max_body_bytes, settings.rate_limit_per_minute) == (9100, "0.0.0.0", 1000, 60)
    assert settings.cors_origins == ("https://a.example",)
    assert Authenticator(settings.api_keys).roles({"x-api-key": "k1"}, None, KNOWN) == ("clinician",)
    from_env = load_serve_settings(config, env={"UNITRAG_API_KEYS": f"{sha256('k2')}=clinician"})
    assert Authenticator(from_env.api_keys).roles({"x-api-key": "k2"}, None, KNOWN) == ("clinician",)
    with pytest.raises(UserError):
        load_serve_settings(config, env={"UNITRAG_SERVE_PORT": "many"})


def test_a_value_in_the_roles_place_that_is_no_role_name_is_not_echoed():
    """A second audit: `sha256:<hex>=MySecretPass1` printed "got ['MySecretPass1']": a key pasted where the roles go."""
    with pytest.raises(UserError) as raised:
        parse_api_keys(f"sha256:{DIGEST}=My$ecretPass1")
    assert "My$ecret" not in str(raised.value) and "1 value(s) that are not role names" in str(raised.value)


@pytest.mark.parametrize(("env", "words"), [
    ({"UNITRAG_SERVE_TRUSTED_PROXIES": "127.0.0.1,not-an-ip"}, "'not-an-ip' (not an IP address"),
    ({"UNITRAG_SERVE_TRUSTED_PROXIES": "localhost"}, "'localhost' (not an IP address"),
    ({"UNITRAG_SERVE_TRUSTED_PROXIES": "127.0.0.0/8"}, "'127.0.0.0/8' (a network"),
    ({"UNITRAG_SERVE_TRUSTED_PROXIES": "127.0.0.1", "UNITRAG_SERVE_ROLES_HEADER": "Authorization"}, "already means"),
    ({"UNITRAG_SERVE_TRUSTED_PROXIES": "127.0.0.1", "UNITRAG_SERVE_ROLES_HEADER": "X Roles"}, "not a header name"),
    ({"UNITRAG_SERVE_ROLES_HEADER": "X-Unitrag-Roles"}, "none is set"),
])
def test_proxy_settings_that_could_never_match_are_refused(env, words):
    """An attacker's list: each was taken without a word, and the proxy's roles were then never believed."""
    with pytest.raises(UserError, match=re.escape(words)):
        load_serve_settings(env=env)


def test_a_proxy_address_is_compared_as_the_server_writes_it():
    settings = load_serve_settings(env={"UNITRAG_SERVE_TRUSTED_PROXIES": "::0001, 10.0.0.5",
                                        "UNITRAG_SERVE_ROLES_HEADER": "X-Unitrag-Roles"})
    assert settings.trusted_proxies == ("::1", "10.0.0.5") and settings.roles_header == "X-Unitrag-Roles"
