"""`[serve]` in unitrag.toml: a file's value of the wrong TOML type is one line naming the key, never read as text."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from unitrag.errors import UserError
from unitrag.serve import load_serve_settings

DIGEST = "sha256:" + hashlib.sha256(b"k").hexdigest()


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "unitrag.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("line, says", [
    ('cors_origins = "https://app.example.org"',
     "[serve] cors_origins: expected a list in the config file, got the string 'https://app.example.org': "
     'write a list, even of one: ["..."]'),
    ('trusted_proxies = "10.0.0.5"', "[serve] trusted_proxies: expected a list in the config file, got the string"),
    ('workers = "2"', "[serve] workers: expected a whole number in the config file, got the string '2': write it "
                      "without quotes"),
    ('port = "8000"', "[serve] port: expected a whole number in the config file, got the string '8000'"),
    ("workers = 1.5", "[serve] workers: expected a whole number in the config file, got a number"),
    ('request_timeout_s = "30"', "[serve] request_timeout_s: expected a number in the config file, got the string"),
    ('max_body_bytes = true', "[serve] max_body_bytes: expected a whole number in the config file, got a boolean"),
    (f'api_keys = "{DIGEST}=clinician"', "[serve] api_keys: expected a table in the config file, got a string: give "
                                         "it its own [section] header"),  # never shown: it may be a key pasted whole
])
def test_a_serve_value_of_the_wrong_toml_type_is_one_line_naming_the_key_and_the_type(tmp_path, line, says):
    """An attacker's `cors_origins = "https://…"` and `workers = "2"` were read as the environment's text would be."""
    with pytest.raises(UserError) as raised:
        load_serve_settings(_config(tmp_path, f"[serve]\n{line}\n"), env={})
    assert str(raised.value).startswith(says) and "\n" not in str(raised.value), str(raised.value)


def test_an_api_keys_role_given_as_a_string_is_one_line_naming_the_entry_not_the_value(tmp_path):
    """`"sha256:<hex>" = "vet"` was taken as ["vet"]; a string where the list of roles goes may be a pasted key."""
    config = _config(tmp_path, f'[serve.api_keys]\n"{DIGEST}" = "PastedSecret"\n')
    with pytest.raises(UserError) as raised:
        load_serve_settings(config, env={})
    assert str(raised.value) == '[serve.api_keys] entry 1: expected a list of role names, even for one: = ["clinician"]'
    config = _config(tmp_path, f'[serve.api_keys]\n"{DIGEST}" = ["clinician"]\n')
    assert [key.roles for key in load_serve_settings(config, env={}).api_keys] == [("clinician",)]


def test_the_environments_text_is_still_parsed(tmp_path):
    env = {"UNITRAG_SERVE_WORKERS": "2", "UNITRAG_SERVE_CORS_ORIGINS": "https://app.example.org",
           "UNITRAG_SERVE_REQUEST_TIMEOUT_S": "12.5", "UNITRAG_API_KEYS": f"{DIGEST}=clinician"}
    settings = load_serve_settings(_config(tmp_path, "[serve]\nport = 9000\ncors_origins = []\n"), env=env)
    assert (settings.port, settings.workers, settings.cors_origins, settings.request_timeout_s) == (
        9000, 2, ("https://app.example.org",), 12.5)
    assert [key.roles for key in settings.api_keys] == [("clinician",)]


def test_a_misspelled_serve_table_stops_the_server_loader_too(tmp_path):
    """`[servve]` was read by no loader: the server started with none of its settings, silently."""
    with pytest.raises(UserError, match=r"unknown table \[servve\]: did you mean \[serve\]\?"):
        load_serve_settings(_config(tmp_path, "[servve]\nport = 9000\n"), env={})
