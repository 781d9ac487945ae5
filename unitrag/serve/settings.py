"""What the operator decides about the server: where the artifact is, who holds which role, the limits.

Read from the ``[serve]`` section of ``unitrag.toml``, then ``UNITRAG_SERVE_<KEY>`` environment
variables, then ``unitrag serve`` flags (each later source wins, key by key, as for the
``[unitrag]`` config). API keys come from ``[serve.api_keys]`` or ``UNITRAG_API_KEYS``; see
``auth.py`` for their format. Nothing a request says can change any of this.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from ..config import bounded_number, check_toml_types, config_table, misspelled_setting, shown_value
from ..errors import UserError
from .auth import ApiKey, parse_api_keys

ENV_PREFIX = "UNITRAG_SERVE_"
API_KEYS_ENV = "UNITRAG_API_KEYS"
MAX_PORT = 65535


@dataclass(frozen=True)
class ServeSettings:
    kb: str | None = None  # artifact path or postgresql:// URL; None: the [unitrag] artifact
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    api_keys: tuple[ApiKey, ...] = ()
    # A header carrying the caller's roles, set by a reverse proxy that authenticated the caller.
    # Off (None) by default; honoured only when the TCP peer is one of ``trusted_proxies``.
    roles_header: str | None = None
    # The reverse proxies (their addresses as the server sees them) whose X-Forwarded-For and roles header
    # are believed. None by default, loopback included: any local process could otherwise claim any address.
    trusted_proxies: tuple[str, ...] = ()
    max_body_bytes: int = 64 * 1024
    rate_limit_per_minute: int = 0  # per client IP; 0: off
    rate_limit_clients: int = 10_000  # client addresses the limiter remembers (least recently seen dropped)
    request_timeout_s: float = 30.0
    # Slow clients: a connection is closed when a request's headers take longer than header_timeout_s, its
    # body longer than body_timeout_s after them (0: no limit), or it sits idle between requests for
    # keep_alive_s (0: closed after each response)
    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    keep_alive_s: float = 5.0
    cors_origins: tuple[str, ...] = ()  # e.g. ("https://app.example.org",); ("*",) for any
    reload_poll_s: float = 2.0  # artifact file watch interval; 0: only SIGHUP reloads

    def with_overrides(self, **overrides: Any) -> "ServeSettings":
        """A copy with every non-None override applied, coerced to the field's type."""
        return replace(self, **{k: _coerce(k, v) for k, v in overrides.items() if v is not None})


_FIELDS = {f.name: f for f in fields(ServeSettings)}
_TUPLES = {"trusted_proxies", "cors_origins"}
#: Each key's type as ``check_toml_types`` knows it: ``api_keys`` is the [serve.api_keys] table (``parse_api_keys``
#: reads ``UNITRAG_API_KEYS``' text, never a file's string).
_TOML_KINDS = {**{name: str(field.type) for name, field in _FIELDS.items()}, "api_keys": "table"}
#: A day: the longest any of the server's waits may be set to (each takes 0 for no limit, where it has one).
MAX_SECONDS = 86_400.0
#: The largest value each number may take, and why (``port`` has its own range): a bound past these is a mistake
#: (a million workers) or a number the server cannot use (a rate of 10^400 a minute overflows its float arithmetic).
LIMITS: dict[str, tuple[int | float, str]] = {
    "workers": (64, "each worker process opens the knowledge base and loads its embedder"),
    "max_body_bytes": (16 * 1024 * 1024, "a body is one question and a few ids; 0 turns the limit off"),
    "rate_limit_per_minute": (1_000_000, "0 turns the limit off"),
    "rate_limit_clients": (10_000_000, "~2.7 GB of remembered addresses"),
    **{key: (MAX_SECONDS, "a day; 0 turns it off" if key != "keep_alive_s" else "a day")
       for key in ("request_timeout_s", "header_timeout_s", "body_timeout_s", "keep_alive_s", "reload_poll_s")},
}
#: The least value of the numbers that take no 0 (the others' 0 is "off" or "no limit").
MINIMUMS = {"workers": 1, "rate_limit_clients": 1}


def _coerce(key: str, value: Any) -> Any:
    if key not in _FIELDS:
        raise UserError(f"unknown [serve] key {key!r} (known: {', '.join(_FIELDS)})")
    if key == "api_keys":
        return value if isinstance(value, tuple) else parse_api_keys(value)
    if key in _TUPLES:
        items = value.split(",") if isinstance(value, str) else value
        if not isinstance(items, (list, tuple)) or not all(isinstance(i, str) for i in items):
            raise UserError(f"[serve] {key}: expected a list of strings or a comma-separated string, got "
                            f"{shown_value(value)}")
        values = tuple(i.strip() for i in items if i.strip())
        if key == "cors_origins":
            check_origins(values)
            return values
        return proxy_addresses(values)
    kind = _FIELDS[key].type
    if key == "port":
        return _port(value)
    if kind in ("int", int, "float", float):  # nan, inf: never a wait
        whole = kind in ("int", int)
        return bounded_number(key, value, LIMITS, f"[serve] {key}", whole=whole, low=MINIMUMS.get(key, 0))
    if not isinstance(value, str):
        raise UserError(f"[serve] {key}: expected a string, got {shown_value(value)}")
    if key == "roles_header" and value.strip():
        return roles_header_name(value.strip())
    return value.strip() or None


def proxy_addresses(values: tuple[str, ...]) -> tuple[str, ...]:
    """Each ``trusted_proxies`` entry as the peer address the server compares it with, or one line naming those that
    could never equal one: a host name, a network, "not-an-ip" (an attacker's list: each was taken, and never matched)."""
    import ipaddress

    addresses, bad = [], []
    for value in values:
        try:
            addresses.append(str(ipaddress.ip_address(value)))
        except ValueError:
            network = "/" in value
            bad.append(f"{value!r} (" + ("a network: list each proxy's own address" if network else
                                         "not an IP address: give the proxy's address as the server sees it, e.g. 127.0.0.1")
                       + ")")
    if bad:
        raise UserError(f"[serve] trusted_proxies ({ENV_PREFIX}TRUSTED_PROXIES): {'; '.join(bad)}")
    return tuple(addresses)


#: A header name (RFC 9110 token), and the ones a proxy's roles may never ride in: what the server or the client
#: already means by them.
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_RESERVED_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "host", "content-length", "content-type",
                               "content-encoding", "transfer-encoding", "connection", "upgrade", "te", "origin",
                               "forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-real-ip"})


def roles_header_name(value: str) -> str:
    """``roles_header`` as a header name the proxy can send, or one line saying why it cannot be one."""
    if not _TOKEN.fullmatch(value):
        raise UserError(f"[serve] roles_header: {value!r} is not a header name (letters, digits and - only, e.g. "
                        "X-Unitrag-Roles)")
    if value.lower() in _RESERVED_HEADERS:
        raise UserError(f"[serve] roles_header: {value!r} already means something to the server or the client: name "
                        "one of your own, e.g. X-Unitrag-Roles")
    return value


#: An origin as a browser sends it: scheme://host[:port], lower case, nothing after (no path, not even "/").
_ORIGIN = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*)://(?P<host>[a-z0-9._~-]+|\[[0-9a-f:.]+\])(?::(?P<port>[0-9]{1,5}))?")
_DEFAULT_PORTS = {"http": "80", "https": "443"}


def _origin_problem(origin: str) -> str | None:
    """Why a ``cors_origins`` entry can never equal a browser's ``Origin`` header (None: it can)."""
    if origin == "*":
        return None
    if any(c.isspace() for c in origin):
        return "whitespace inside"
    if "*" in origin:
        return "only a lone * is a wildcard: list each origin (https://app.example.com), or * for any"
    if "://" not in origin:
        return f"no scheme: write https://{origin}"
    match = _ORIGIN.fullmatch(origin)
    if match is None:
        scheme, _, rest = origin.partition("://")
        host = re.split(r"[/?#]", rest, maxsplit=1)[0]
        if host and host != rest:
            return f"an origin has no path, not even a trailing slash: write {scheme}://{host}"
        if origin != origin.lower():
            return f"browsers send an origin in lower case: write {origin.lower()}"
        return "is not scheme://host[:port]"
    if _DEFAULT_PORTS.get(match["scheme"]) == match["port"]:
        return f"browsers leave out the default port: write {match['scheme']}://{match['host']}"
    return None


def check_origins(origins: tuple[str, ...]) -> None:
    """Refuse, in one line, every origin that could never match: CORS would silently refuse that site's requests."""
    bad = [f"{o!r}: {problem}" for o in origins if (problem := _origin_problem(o))]
    if bad:
        raise UserError(f"[serve] cors_origins ({ENV_PREFIX}CORS_ORIGINS): {'; '.join(bad)}")


def _port(value: Any) -> int:
    """A TCP port, 0-65535 (0: any free one): refused here, in one line, not by the socket's bind with a traceback."""
    try:
        number = int(value)
        if isinstance(value, bool) or not 0 <= number <= MAX_PORT:
            raise ValueError
    except (TypeError, ValueError):
        raise UserError(f"--port ([serve] port): expected a port number 0-{MAX_PORT} (0: any free port), "
                        f"got {value!r}") from None
    return number


def load_serve_settings(path: Path | None = None, env: dict[str, str] | None = None, **cli: Any) -> ServeSettings:
    """The effective server settings: ``[serve]`` in the config file < environment < flags."""
    env = dict(os.environ) if env is None else env
    section = config_table("serve", path)
    check_toml_types(section, _TOML_KINDS, lambda key: f"[serve] {key}")
    settings = ServeSettings().with_overrides(**section)
    from_env: dict[str, Any] = {
        key[len(ENV_PREFIX):].lower(): value for key, value in env.items()
        if key.startswith(ENV_PREFIX) and key[len(ENV_PREFIX):].lower() in _FIELDS
    }
    if env.get(API_KEYS_ENV):
        from_env["api_keys"] = env[API_KEYS_ENV]
    for key in env:  # UNITRAG_SERVE_TRUSTED_PROXY: a typo is said, as a wrong [serve] key is refused
        said = misspelled_setting(key, _FIELDS, ENV_PREFIX)
        if said:
            logging.getLogger("unitrag").warning(said)
    settings = settings.with_overrides(**from_env).with_overrides(**cli)
    if settings.roles_header and not settings.trusted_proxies:
        raise UserError(f"[serve] roles_header {settings.roles_header!r} is believed only from trusted_proxies, and none "
                        f"is set: list the proxy's address ({ENV_PREFIX}TRUSTED_PROXIES=10.0.0.5), or leave "
                        "roles_header out")
    return settings
