"""An API endpoint from the configuration (``UNITRAG_LLM_API_BASE``, ``UNITRAG_EMBEDDER_API_BASE``), parsed at the edge.

A URL crossing into the library is one type or an error, as the database URL is (``postgres.url``): "not a url",
``file:///etc/passwd`` or ``ftp://x/`` as the LLM's endpoint started a server that then answered every question
extractively, each after three failed attempts, and said so only in each answer's error kind. An endpoint is an
http(s) URL with a host (and a port, if any, that is a number); anything else is one line naming the setting.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from ..errors import UserError

SCHEMES = ("http", "https")
EXAMPLE = "http://localhost:8000/v1 or https://api.example.com/v1"


def endpoint_url(value: str | None, setting: str) -> str | None:
    """``value`` as an endpoint (None when unset or blank), or a ``UserError`` naming ``setting``."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        parts = urlsplit(text)
        port_ok = parts.port is None or 0 < parts.port < 65536
    except ValueError:  # a port that is no number, a bracket left open
        parts, port_ok = None, False
    if (parts is None or not port_ok or parts.scheme.lower() not in SCHEMES or not parts.hostname
            or any(ch.isspace() or not ch.isprintable() for ch in text)):
        raise UserError(f"{setting}: not an http(s) URL ({_shown(text)}); set it to the endpoint's address, e.g. {EXAMPLE}")
    return text


def configured_endpoint(given: str | None, variable: str) -> str | None:
    """The endpoint a provider was given, else the one its environment ``variable`` names (None: neither), each read
    by ``endpoint_url``."""
    return endpoint_url(given, "api_base") or endpoint_url(os.environ.get(variable), variable)


def plain_model_name(model: str, provider: str) -> str:
    """``model`` when it is one printable word: a name with a line break or a space reaches no provider's model."""
    if any(ch.isspace() or not ch.isprintable() for ch in model):
        raise UserError(f"{provider}: a model name has no spaces or line breaks ({model!r}); e.g. openai/gpt-4o-mini")
    return model


def _shown(text: str) -> str:
    """The value as written, without what a password could be (``user:secret@host``), shortened."""
    scheme, sep, rest = text.partition("://")
    if sep and "@" in rest.split("/", 1)[0]:
        rest = "***@" + rest.split("@", 1)[1]
    shown = f"{scheme}{sep}{rest}"
    return repr(shown if len(shown) <= 80 else shown[:77] + "...")
