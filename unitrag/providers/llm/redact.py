"""Secrets out of an LLM provider's error text, before it reaches a log or a caller.

Providers echo what they were sent: an endpoint's ``user:password@``, a rejected key
("Incorrect API key provided: sk-..."), an ``Authorization: Bearer`` header. ``redact_secrets``
masks those forms, anything shaped like a key (``sk-...``, a long run of letters and digits)
and every value it is told is secret (the configured key itself), so a message stays useful
to an operator without carrying what would let someone else use the account.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from urllib.parse import quote, unquote, urlsplit

MASK = "***"
#: A known secret shorter than this is not masked in running text: it would garble every word holding it.
MIN_SECRET_CHARS = 4

_URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://[^\s:/@]*):\S*@")  # greedy to the last '@': over-masks, never under
_AUTH_HEADER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]+")
_ASSIGNED = re.compile(
    r"(?i)(?<![a-z])(api[_ -]?key|key|token|secret|password|passwd|pwd)(?![a-z])([^:=\n.;()]{0,20}?[:=](?!//)\s*)[\"']?"
    r"[^\s\"'&,;()\[\]{}<>]*[^\s\"'&,;()\[\]{}<>.]"
)
_KEY_PREFIXED = re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_\-*.]{6,}")
_LONG_TOKEN = re.compile(r"(?<![\w\-])(?=[\w\-]*\d)(?=[\w\-]*[A-Za-z])[\w\-]{32,}={0,2}(?![\w\-])")  # a model name stays


def redact_secrets(text: str, known: Iterable[str | None] = ()) -> str:
    """``text`` with URL passwords, auth headers, ``key=...`` values, key-shaped tokens and the ``known`` values masked."""
    for secret in sorted({s for s in known if s and len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    text = _URL_PASSWORD.sub(rf"\1:{MASK}@", text)
    text = _AUTH_HEADER.sub(rf"\1 {MASK}", text)
    text = _ASSIGNED.sub(rf"\1\2{MASK}", text)
    text = _KEY_PREFIXED.sub(rf"\1-{MASK}", text)
    return _LONG_TOKEN.sub(MASK, text)


def endpoint_secrets(api_base: str | None, api_key: str | None) -> tuple[str, ...]:
    """The values a provider's messages must never show: the key, the endpoint's password in every
    spelling, and the provider keys litellm reads from the environment (``OPENAI_API_KEY`` ...)."""
    secrets = {api_key or ""}
    if api_base:
        try:
            password = urlsplit(api_base).password or ""
        except ValueError:  # a malformed endpoint: the URL pattern still masks its userinfo
            password = ""
        secrets |= {password, unquote(password), quote(unquote(password), safe="")}
    secrets |= {value for name, value in os.environ.items() if name.endswith(("API_KEY", "_TOKEN", "_SECRET"))}
    return tuple(s for s in secrets if s)
