"""Secrets out of an LLM provider's error text, before it reaches a log or a caller.

Providers echo what they were sent: an endpoint's ``user:password@``, a rejected key
("Incorrect API key provided: sk-..."), an ``Authorization: Bearer`` header. ``redact_secrets``
masks those forms, anything shaped like a key (``sk-...``, a long run of letters and digits)
and every value it is told is secret (the configured key itself), so a message stays useful
to an operator without carrying what would let someone else use the account.

Every value it is told is secret is masked as written and percent-encoded too (``quote`` and
``quote_plus``, either case of hex digit): a provider that echoes the request URL or form body
shows ``p@ss/w0rd`` as ``p%40ss%2Fw0rd``.

In a URL (``scheme://...``) the rules do not depend on names:

- the userinfo's password is masked (``user:***@``);
- every query value is masked, whatever its name (``?sig=***&api-version=***``). Endpoints carry
  credentials under names no list keeps up with (Azure SAS ``sig=``, Azure Functions ``code=``,
  ``key=``, ``X-Amz-Signature=``...), and a name alone still tells the operator what was sent;
- a path segment is masked only when it looks like a token: 16 or more characters of letters,
  digits and ``_``, with both a letter and a digit, and no ``-`` or ``.``. A shorter segment cannot
  be told from a name (``/v1/tenant/acme2``), and model and deployment names are hyphenated
  (``gpt-4o-mini-2024-07-18``), so ``/v1/chat/completions`` and ``/deployments/gpt-4o/`` stay readable.
  A short secret belongs in the key or the password, which are masked wherever they appear.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from urllib.parse import quote, quote_plus, unquote, unquote_plus, urlsplit

MASK = "***"
#: A known secret shorter than this is not masked in running text: it would garble every word holding it.
MIN_SECRET_CHARS = 4
#: An endpoint's query value shorter than this (``alt=json``, ``api-version=2024-02-01``) is not a secret to mask
#: everywhere; in a URL every query value is masked anyway.
MIN_QUERY_SECRET_CHARS = 12

_URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://[^\s:/@]*):\S*@")  # greedy to the last '@': over-masks, never under
_AUTH_HEADER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]+")
_ASSIGNED = re.compile(
    r"(?i)(?<![a-z])(api[_ -]?key|key|token|secret|password|passwd|pwd)(?![a-z])([^:=\n.;()]{0,20}?[:=](?!//)\s*)[\"']?"
    r"[^\s\"'&,;()\[\]{}<>]*[^\s\"'&,;()\[\]{}<>.]"
)
_KEY_PREFIXED = re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_\-*.]{6,}")
_URL = re.compile(r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s\"'<>`]*[^\s\"'<>`.,;:!?)\]}]")  # without a sentence's last mark
_QUERY_VALUE = re.compile(r"([?&;][^=&#;?]*=)[^&#;]*")
_PATH_TOKEN = re.compile(r"(?<=/)(?=[A-Za-z0-9_]*\d)(?=[A-Za-z0-9_]*[A-Za-z])[A-Za-z0-9_]{16,}(?=[/?#;]|$)")
_LONG_TOKEN = re.compile(r"(?<![\w\-])(?=[\w\-]*\d)(?=[\w\-]*[A-Za-z])[\w\-]{32,}={0,2}(?![\w\-])")  # a model name stays


def redact_secrets(text: str, known: Iterable[str | None] = ()) -> str:
    """``text`` with URL passwords, query values and token-like path segments, auth headers, ``key=...`` values,
    key-shaped tokens and the ``known`` values (as written and percent-encoded) masked."""
    for secret in sorted({s for s in known if s and len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True):
        text = text.replace(secret, MASK)
        for encoded in {quote(secret, safe=""), quote_plus(secret, safe=""), quote(secret)} - {secret}:
            text = re.sub(re.escape(encoded), MASK, text, flags=re.IGNORECASE)  # %2F and %2f alike
    text = _URL_PASSWORD.sub(rf"\1:{MASK}@", text)
    text = _URL.sub(_masked_url, text)
    text = _AUTH_HEADER.sub(rf"\1 {MASK}", text)
    text = _ASSIGNED.sub(rf"\1\2{MASK}", text)
    text = _KEY_PREFIXED.sub(rf"\1-{MASK}", text)
    return _LONG_TOKEN.sub(MASK, text)


def _masked_url(match: re.Match[str]) -> str:
    """A URL with its query values and token-like path segments masked (the module's rules)."""
    url = match.group(0)
    cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
    scheme, _, rest = url[:cut].partition("://")
    authority, slash, path = rest.partition("/")
    path = _PATH_TOKEN.sub(MASK, slash + path)
    query = _QUERY_VALUE.sub(rf"\1{MASK}", url[cut:])
    return f"{scheme}://{authority}{path}{query}"


def _query_values(api_base: str) -> set[str]:
    """The endpoint's query values long enough to be a credential, as written and decoded."""
    try:
        query = urlsplit(api_base).query
    except ValueError:
        return set()
    written = {part.partition("=")[2] for part in query.split("&")}
    return {v for w in written for v in (w, unquote(w), unquote_plus(w)) if len(v) >= MIN_QUERY_SECRET_CHARS}


def endpoint_secrets(api_base: str | None, api_key: str | None) -> tuple[str, ...]:
    """The values a provider's messages must never show: the key, the endpoint's password in every
    spelling, its query values of ``MIN_QUERY_SECRET_CHARS`` or more (a signature echoed outside its URL), and the provider keys litellm reads from the environment (``OPENAI_API_KEY`` ...)."""
    secrets = {api_key or ""}
    if api_base:
        try:
            password = urlsplit(api_base).password or ""
        except ValueError:  # a malformed endpoint: the URL pattern still masks its userinfo
            password = ""
        secrets |= {password, unquote(password), quote(unquote(password), safe="")}
        secrets |= _query_values(api_base)
    secrets |= {value for name, value in os.environ.items() if name.endswith(("API_KEY", "_TOKEN", "_SECRET"))}
    return tuple(s for s in secrets if s)
