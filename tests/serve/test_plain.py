"""A request that could be read two ways is refused, never guessed at: a compressed body, text that is not UTF-8,
a query parameter or JSON key given twice."""

from __future__ import annotations

import gzip

import pytest

pytestmark = pytest.mark.e2e

QUESTION = "How is vitamin B12 deficiency treated?"
BODY = b'{"question": "How is vitamin B12 deficiency treated?"}'


@pytest.mark.parametrize("encoding", ["gzip", "br", "deflate", "identity, gzip", "GZIP"])
@pytest.mark.parametrize("path", ["/v1/ask", "/v1/ask/stream"])
def test_a_compressed_body_is_refused_not_read_as_plain(client, path, encoding):
    body = gzip.compress(BODY) if "gzip" in encoding.lower() else BODY
    response = client.post(path, content=body, headers={"content-type": "application/json", "content-encoding": encoding})
    assert response.status_code == 415, response.text
    assert set(response.json()) == {"error"} and "Content-Encoding" in response.json()["error"]


def test_an_identity_encoding_is_the_plain_body(client):
    response = client.post("/v1/ask", content=BODY, headers={"content-type": "application/json", "content-encoding": "identity"})
    assert response.status_code == 200


@pytest.mark.parametrize("query", ["q=%ff%fe", "q=B12&lang=%c3", "q=caf%e9"])
def test_a_query_parameter_that_is_not_utf8_is_named_not_called_empty(client, query):
    response = client.get(f"/v1/search?{query}")
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert "not UTF-8" in error and repr(query.split("&")[-1].split("=")[0]) in error and "empty" not in error


@pytest.mark.parametrize("query, name", [("q=a&q=b", "q"), ("q=B12&k=1&k=9", "k"), ("q=B12&lang=en&lang=zh", "lang"),
                                         ("q=B12&current_topic=iron&current_topic=iodine", "current_topic")])
def test_a_single_value_parameter_given_twice_is_refused(client, query, name):
    response = client.get(f"/v1/search?{query}")
    assert response.status_code == 422 and f"query parameter {name!r} given more than once" in response.json()["error"]


def test_a_repeatable_parameter_takes_each_value(client):
    response = client.get("/v1/search", params={"q": QUESTION, "kind": ["scene", "rule"], "topic": ["vitamin-b12", "iron"]})
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("body, key", [
    (b'{"question": "salt", "question": "How is vitamin B12 deficiency treated?"}', "question"),
    (b'{"question": "salt per day", "user": {"roles": [], "roles": ["clinician"]}}', "roles"),
    (b'{"question": "salt per day", "lang": "en", "lang": "zh"}', "lang"),
])
@pytest.mark.parametrize("path", ["/v1/ask", "/v1/ask/stream"])
def test_a_json_key_given_twice_is_refused(client, path, body, key):
    response = client.post(path, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    assert response.json() == {"error": f"the JSON body holds the key {key!r} more than once"}


@pytest.mark.parametrize("params, message", [
    ({"kind": "poem"}, "kind: unknown 'poem'"),
    ({"topic": "no-such-topic"}, "topic: topic 'no-such-topic' not in this knowledge base"),
    ({"recent_scene": "no-such-scene"}, "recent_scene: scene 'no-such-scene' not in this knowledge base"),
    ({"recent_scene": ""}, "recent_scene: expected non-empty strings"),  # named "recent_scenes", the library's word
    ({"triggered_rule": ""}, "triggered_rule: expected non-empty strings"),
    ({"kind": ""}, "kind: expected non-empty strings"),
])
def test_a_search_error_names_the_query_parameter_sent(client, params, message):
    response = client.get("/v1/search", params={"q": QUESTION, **params})
    assert response.status_code == 422 and response.json()["error"].startswith(message), response.text


# -- a body that is not plain UTF-8 (audit F7 c) -------------------------------------------------------


@pytest.mark.parametrize("body", [
    BODY.decode().encode("utf-16"),  # with its byte order mark: answered 200 before
    b"\xef\xbb\xbf" + BODY,  # UTF-8 behind a byte order mark: answered 200 before
    BODY.decode().encode("utf-16-le"),  # no mark: JSON's reader tells UTF-16 by its NUL bytes
    BODY.decode().encode("utf-32"),
])
@pytest.mark.parametrize("path", ["/v1/ask", "/v1/ask/stream"])
def test_a_body_that_is_not_plain_utf8_is_a_400_not_decoded_by_guessing(client, path, body):
    response = client.post(path, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    assert set(response.json()) == {"error"} and "not plain UTF-8" in response.json()["error"]
    assert "byte order mark" in response.json()["error"]


def test_a_body_that_is_not_plain_utf8_is_refused_whatever_its_content_type(client):
    response = client.post("/v1/ask", content=BODY.decode().encode("utf-16"), headers={"content-type": "text/plain"})
    assert response.status_code == 400 and "not plain UTF-8" in response.json()["error"]


# -- a path that is not UTF-8 once percent-decoded (audit F7 d) ------------------------------------------


@pytest.mark.parametrize("path", ["/v1/units/%ff%fe", "/v1/units/caf%e9", "/v1/citations/%c3", "/v1/units/ok%80"])
def test_a_path_that_is_not_utf8_is_a_400_not_a_404_for_replacement_characters(client, path):
    response = client.get(path)
    assert response.status_code == 400, response.text  # was 404 "no unit '\ufffd\ufffd'"
    assert response.json() == {"error": "the path is not UTF-8 once percent-decoded: percent-encode UTF-8 bytes"}
    assert "\ufffd" not in response.text


def test_a_path_percent_encoding_utf8_is_read_as_it(client):
    response = client.get("/v1/units/caf%C3%A9")
    assert response.status_code == 404 and response.json() == {"error": "no unit 'café'"}


# -- a whole number written one way only ------------------------------------------------------------------


@pytest.mark.parametrize("k", ["3_0", "3.0", "%2B3", "+3", "%207%20", "-1", "%EF%BC%93", "0x1f", "1e1", ""])
def test_k_is_read_only_from_plain_digits(client, k):
    """``k=3_0`` was 30 and ``k=3.0``, ``k=%2B3``, ``k=%207%20`` were taken (the library refuses ``2.0``): a number
    a proxy or a log reads otherwise is a 422 naming ``k``, never a guess."""
    response = client.get(f"/v1/search?q=B12&k={k}")
    assert response.status_code == 422, response.text
    assert response.json()["error"].startswith("k: expected a whole number in plain digits")


def test_k_in_plain_digits_is_taken(client):
    assert len(client.get("/v1/search?q=B12&k=03").json()["sources"]) <= 3
    assert client.get("/v1/search?q=B12&k=101").json()["error"].startswith("k: expected a whole number from 1 to 100")
